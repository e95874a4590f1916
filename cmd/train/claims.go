package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"runtime"

	"github.com/posformer/posformer/configs"
	"github.com/posformer/posformer/report"
	"github.com/posformer/posformer/train"
)

// runClaims regenerates docs/claims.md: it runs the claims grid (resuming whatever is already
// finished), writes the grid's report, measures the mathematics and writes the document.
func runClaims(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("claims", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "runs", "output `directory` for the claims grid")
	docs := fs.String("docs", "docs", "`directory` to write claims.md and img/ into")
	jobs := fs.Int("jobs", runtime.NumCPU(), "runs to train in parallel")
	var sets setFlags
	fs.Var(&sets, "set", "override a field of configs/claims.yaml (e.g. -set train.steps=300 for a quick look)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	src, err := configs.FS.ReadFile("claims.yaml")
	if err != nil {
		return err
	}
	cfg, err := train.Parse(src, "configs/claims.yaml", append([]string{"out=" + *out}, sets...))
	if err != nil {
		return err
	}
	if err := runGrid(ctx, cfg, *jobs, false, true, train.All, stdout, stderr); err != nil {
		return err
	}
	g, err := report.Load(train.GridDir(cfg))
	if err != nil {
		return err
	}
	rep, err := report.Write(g)
	if err != nil {
		return err
	}
	cmd := "go run ./cmd/train claims"
	if len(sets) > 0 {
		cmd += fmt.Sprintf(" (with -set %v)", sets)
	}
	if err := report.Claims(g, rep, *docs, cmd); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(*docs, "claims.md"))
	return nil
}
