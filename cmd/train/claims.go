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

// runClaims regenerates docs/claims.md: it runs the claims grid and the literature grid (resuming
// whatever is already finished), writes their reports, measures the mathematics and writes the
// document.
func runClaims(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("claims", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "runs", "output `directory` for the claims grid")
	docs := fs.String("docs", "docs", "`directory` to write claims.md and img/ into")
	jobs := fs.Int("jobs", runtime.NumCPU(), "runs to train in parallel")
	literature := fs.Bool("literature", true, "also run configs/literature.yaml for section 8 (about 10 more minutes on 2 cores)")
	var sets setFlags
	fs.Var(&sets, "set", "override a field of configs/claims.yaml and configs/literature.yaml (e.g. -set train.steps=300 for a quick look)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	// grid runs one embedded grid config (resuming what is finished) and writes its report.
	grid := func(file string) (*report.Grid, *report.Report, error) {
		src, err := configs.FS.ReadFile(file)
		if err != nil {
			return nil, nil, err
		}
		cfg, err := train.Parse(src, "configs/"+file, append([]string{"out=" + *out}, sets...))
		if err != nil {
			return nil, nil, err
		}
		if err := runGrid(ctx, cfg, *jobs, false, true, train.All, stdout, stderr); err != nil {
			return nil, nil, err
		}
		g, err := report.Load(train.GridDir(cfg))
		if err != nil {
			return nil, nil, err
		}
		rep, err := report.Write(g)
		return g, rep, err
	}
	g, rep, err := grid("claims.yaml")
	if err != nil {
		return err
	}
	var lit *report.Grid
	var litRep *report.Report
	if *literature {
		if lit, litRep, err = grid("literature.yaml"); err != nil {
			return err
		}
	}
	cmd := "go run ./cmd/train claims"
	if len(sets) > 0 {
		cmd += fmt.Sprintf(" (with -set %v)", sets)
	}
	if err := report.Claims(g, rep, lit, litRep, *docs, cmd); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(*docs, "claims.md"))
	return nil
}
