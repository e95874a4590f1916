package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/grid"
	"github.com/posformer/posformer/report"
	"github.com/posformer/posformer/setup"
)

// trainGrid trains every cell of a checked grid, jobs at a time (package grid), then writes and
// prints its report.
func trainGrid(ctx context.Context, g *setup.Grid, cells []config.Cell, jobs int, force, resume bool, shard config.Shard, stdout, stderr io.Writer) error {
	for _, w := range setup.GridWarnings(cells, func(i int) []string { return g.Cells[i].Warnings() }) {
		fmt.Fprintf(stderr, "train: warning: %s\n", w)
	}
	ran, err := grid.Train(ctx, g, grid.Options{Jobs: jobs, Force: force, Resume: resume, Shard: shard, Log: stderr, LimitMemory: limitMemory})
	if err != nil || ran == nil {
		return err
	}
	if shard.Count > 1 {
		fmt.Fprintf(stdout, "%s: %d runs finished in %s; when every shard is done, merge them with: train report %s\n", shard, len(ran.Cells), ran.Elapsed.Round(time.Second), ran.Dir)
		return nil
	}
	return writeReport(ran.Dir, stdout, fmt.Sprintf("%d runs in %s\n\n", len(ran.Cells), ran.Elapsed.Round(time.Second)))
}

// runReport regenerates the report of an existing grid or run directory.
func runReport(_ context.Context, args []string, stdout, stderr io.Writer) error {
	dir, err := parseDir(flag.NewFlagSet("report", flag.ContinueOnError), args, stderr, "report DIR", "a grid's or a run's directory",
		"give one directory, e.g. train report runs/default")
	if err != nil {
		return err
	}
	return writeReport(dir, stdout, "")
}

// writeReport writes the report of a grid or run directory and prints head, its headline table,
// the cells missing, if any, and where the report is.
func writeReport(dir string, stdout io.Writer, head string) error {
	g, err := grid.Load(dir)
	if err != nil {
		return err
	}
	rep, err := report.Write(g)
	if err != nil {
		return err
	}
	fmt.Fprint(stdout, head+rep.Headline)
	if len(g.Missing) > 0 {
		fmt.Fprintf(stdout, "\n%d of %d cells missing: %v\n", len(g.Missing), len(g.Cells), g.Missing)
	}
	fmt.Fprintf(stdout, "\nreport: %s\n", filepath.Join(rep.Dir, "report.md"))
	return nil
}
