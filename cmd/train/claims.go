package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/posformer/posformer/report"
)

// claimGrids are the grids docs/claims.md reads, each the name of its config in configs/ and of
// its directory under -runs.
var claimGrids = []string{"claims", "literature", "kazemnejad2023", "ruoss2023"}

// followUpGrids are the experiments behind a claim the grids contradict (§9) or leave untested
// (§10): optional, read when present; their sections say how to run them when absent.
var followUpGrids = append(append([]string{}, report.KazemnejadFollowUps...), report.RuossFollowUps...)

// runClaims regenerates docs/claims.md and the per-seed files docs/claims/*.csv from the
// finished runs of the claims, literature, kazemnejad2023 and ruoss2023 grids under -runs, and of
// the follow-up grids (followUpGrids) present there. It
// never trains: a grid is trained (and resumed) by `train -config configs/<name>.yaml`, and the
// sections of a grid that is absent say so.
func runClaims(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("claims", flag.ContinueOnError)
	fs.SetOutput(stderr)
	runs := fs.String("runs", "runs", "`directory` holding the grids ("+strings.Join(claimGrids, ", ")+") and the follow-ups' ("+strings.Join(followUpGrids, ", ")+"), each in its own directory")
	docs := fs.String("docs", "docs", "`directory` to write claims.md, claims/*.csv and img/ into")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("claims: unexpected argument %q: %w (see train -h)", fs.Arg(0), errUsage)
	}
	in := report.ClaimsInput{Dirs: map[string]string{}, FollowUps: map[string]*report.Grid{}, DocsDir: *docs, Command: "go run ./cmd/train claims"}
	grids := map[string]**report.Grid{"claims": &in.Claims, "literature": &in.Literature, "kazemnejad2023": &in.Kazemnejad, "ruoss2023": &in.Ruoss}
	for _, name := range append(append([]string{}, claimGrids...), followUpGrids...) {
		if err := ctx.Err(); err != nil {
			return err
		}
		in.Dirs[name] = filepath.Join(*runs, name)
		main, required := grids[name]
		g, err := loadClaimGrid(*runs, name, required, stderr)
		switch {
		case err != nil:
			return err
		case required:
			*main = g
		case g != nil:
			in.FollowUps[name] = g
		}
	}
	if err := report.Claims(in); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(*docs, "claims.md"))
	return nil
}

// loadClaimGrid reads the grid of configs/<name>.yaml under runs for `train claims`. It is nil
// when the grid is absent (said on stderr when required, as a follow-up's section says it) or
// has no finished run yet (said on stderr); runs still missing are named on stderr and the
// finished ones used; a damaged file of a run is an error naming it.
func loadClaimGrid(runs, name string, required bool, stderr io.Writer) (*report.Grid, error) {
	dir := filepath.Join(runs, name)
	if _, err := os.Stat(filepath.Join(dir, report.GridFile)); errors.Is(err, os.ErrNotExist) {
		if required {
			fmt.Fprintf(stderr, "claims: %s is missing: train it with `train -config configs/%s.yaml -jobs 2`; its sections say so\n", dir, name)
		}
		return nil, nil
	}
	g, err := report.Load(dir)
	if err != nil {
		return nil, fmt.Errorf("claims: %w", err)
	}
	if len(g.Missing) == len(g.Cells) {
		fmt.Fprintf(stderr, "claims: %s has no finished run yet: continue it with `train -config configs/%s.yaml -jobs 2 -resume`\n", dir, name)
		return nil, nil
	}
	if len(g.Missing) > 0 {
		fmt.Fprintf(stderr, "claims: %s: %d of %d runs missing (continue with -resume); using the finished ones\n", dir, len(g.Missing), len(g.Cells))
	}
	return g, nil
}
