package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/posformer/posformer/report"
	"github.com/posformer/posformer/train"
	"go.yaml.in/yaml/v3"
)

// runGrid trains every cell of a grid, jobs at a time, then writes and prints its report.
func runGrid(ctx context.Context, cfg train.Config, jobs int, force bool, stdout, stderr io.Writer) error {
	cells, err := train.Expand(cfg)
	if err != nil {
		return err
	}
	dir := train.GridDir(cfg)
	gridFile := filepath.Join(dir, report.GridFile)
	if _, err := os.Stat(gridFile); err == nil && !force {
		return fmt.Errorf("grid directory %s already exists: pass -force to overwrite it, or choose another -out or name", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot create the grid directory %s: %w (choose a writable -out)", dir, err)
	}
	src, err := yaml.Marshal(cfg)
	if err != nil {
		return err
	}
	if err := os.WriteFile(gridFile, src, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", gridFile, err)
	}
	jobs = min(jobs, len(cells))
	fmt.Fprintf(stderr, "grid %s: %d runs, %d at a time\n", dir, len(cells), jobs)
	start := time.Now()
	_, err = train.RunGrid(ctx, cells, train.GridOptions{Jobs: jobs, Force: force,
		Progress: func(done, total int, c train.Cell, r *train.Result, err error) {
			el := time.Since(start)
			eta := time.Duration(float64(el) / float64(done) * float64(total-done))
			if err != nil {
				fmt.Fprintf(stderr, "[%d/%d] %s failed: %v\n", done, total, c.Name, err)
				return
			}
			fmt.Fprintf(stderr, "[%d/%d] %s: in-range exact %.3f, beyond %.3f (%.0f s) · elapsed %s, eta %s\n",
				done, total, c.Name, r.InRangeExact, r.BeyondExact, r.TrainSeconds+r.EvalSeconds, el.Round(time.Second), eta.Round(time.Second))
		}})
	if err != nil {
		return err
	}
	g, err := report.Load(dir)
	if err != nil {
		return err
	}
	rep, err := report.Write(g)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d runs in %s\n\n", len(cells), time.Since(start).Round(time.Second))
	fmt.Fprint(stdout, report.SummaryTable(rep.Summaries))
	fmt.Fprintf(stdout, "\nreport: %s\n", filepath.Join(rep.Dir, "report.md"))
	return nil
}

// runReport regenerates the report of an existing grid or run directory.
func runReport(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("report: give one directory, e.g. train report runs/default")
	}
	g, err := report.Load(fs.Arg(0))
	if err != nil {
		return err
	}
	rep, err := report.Write(g)
	if err != nil {
		return err
	}
	fmt.Fprint(stdout, report.SummaryTable(rep.Summaries))
	if len(g.Missing) > 0 {
		fmt.Fprintf(stdout, "\n%d of %d cells missing: %v\n", len(g.Missing), len(g.Cells), g.Missing)
	}
	fmt.Fprintf(stdout, "\nreport: %s\n", filepath.Join(rep.Dir, "report.md"))
	return nil
}
