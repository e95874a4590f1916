package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/internal/regfile"
	"github.com/posformer/posformer/report"
	"github.com/posformer/posformer/rundir"
	"github.com/posformer/posformer/train"
	"github.com/posformer/posformer/train/config"
)

// runGrid trains every cell of a grid, jobs at a time, then writes and prints its report.
func runGrid(ctx context.Context, cfg config.Config, jobs int, force, resume bool, shard config.Shard, stdout, stderr io.Writer) error {
	if force && resume {
		return fmt.Errorf("-force and -resume contradict each other: -force starts over, -resume continues")
	}
	cells, err := config.Expand(cfg)
	if err != nil {
		return err
	}
	dir := config.GridDir(cfg)
	for _, w := range report.Warnings(&report.Grid{Cells: cells}) {
		fmt.Fprintf(stderr, "train: warning: %s\n", w)
	}
	gridFile := filepath.Join(dir, report.GridFile)
	src, err := config.MarshalGrid(cfg)
	if err != nil {
		return err
	}
	old, err := regfile.ReadFile(gridFile)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("cannot read the grid's %w; remove it, or choose another -out or name", err)
	}
	if err == nil {
		same := sameGrid(gridFile, old, src)
		switch {
		case shard.Count > 1 && same:
			// another shard of the same grid got here first
		case (resume || shard.Count > 1) && !same:
			return fmt.Errorf("cannot resume the grid in %s: its %s is a different grid; pass -force to start over, or choose another -out or name", dir, report.GridFile)
		case !resume && !force:
			return fmt.Errorf("grid directory %s already exists: pass -resume to continue it (finished runs are kept), -force to overwrite it, or choose another -out or name", dir)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot create the grid directory %s: %w (choose a writable -out)", dir, err)
	}
	if err := rundir.WriteFileAtomic(gridFile, src); err != nil {
		return err
	}
	var copies map[string]string // cells that are tuning runs: copied, not trained again
	if cfg.Select.On() {
		sel, err := runSelection(ctx, cfg, dir, jobs, force, resume, shard, stderr)
		if err != nil || sel == nil {
			return err
		}
		if cells, err = config.ExpandSelected(cfg, sel); err != nil {
			return err
		}
		if copies, err = config.TuningCopies(cfg, sel, cells); err != nil {
			return err
		}
	}
	all := len(cells)
	cells = shard.Select(cells)
	if len(cells) == 0 {
		fmt.Fprintf(stderr, "grid %s: %s has no cells (the grid has %d)\n", dir, shard, all)
		return nil
	}
	jobs = min(jobs, len(cells))
	var peak int64 // the jobs largest runs at once
	for _, c := range cells {
		peak = max(peak, c.Config.PeakMemory())
	}
	limitMemory(peak * int64(jobs))
	fmt.Fprintf(stderr, "grid %s: predicted peak memory %.0f MB per run, %.0f MB for %d at a time\n", dir, float64(peak)/1e6, float64(peak*int64(jobs))/1e6, jobs)
	fmt.Fprintf(stderr, "grid %s: %s, %d of %d runs, %d at a time\n", dir, shard, len(cells), all, jobs)
	if n := countCopies(cells, copies); n > 0 {
		fmt.Fprintf(stderr, "grid %s: %d of them are tuning runs at the chosen %s (the same config): copied from %s, not trained again\n", dir, n, cfg.Select.Field, filepath.Join(dir, config.SelectDir))
	}
	// Runs that take no time (copied tuning runs, and with -resume finished ones) are left out of
	// the ETA.
	instant, trained := map[string]bool{}, 0
	for _, c := range cells {
		if _, err := train.ReadResult(filepath.Join(c.Config.Out, c.Name)); copies[c.Name] != "" || resume && err == nil {
			instant[c.Name] = true
		}
	}
	toTrain := len(cells) - len(instant)
	start := time.Now()
	_, err = train.RunGrid(ctx, cells, train.GridOptions{Jobs: jobs, Force: force, Resume: resume, CopyFrom: copies,
		Progress: func(done, total int, c config.Cell, r *train.Result, err error) {
			el := time.Since(start)
			if !instant[c.Name] {
				trained++
			}
			eta := "–" // from the runs trained here: copied and already finished ones take no time
			if trained > 0 {
				eta = time.Duration(float64(el) / float64(trained) * float64(toTrain-trained)).Round(time.Second).String()
			}
			if err != nil {
				fmt.Fprintf(stderr, "[%d/%d] %s failed: %v\n", done, total, c.Name, err)
				return
			}
			how := fmt.Sprintf("%.0f s", r.TrainSeconds+r.EvalSeconds)
			if copies[c.Name] != "" {
				how = "copied from " + filepath.Join(config.SelectDir, filepath.Base(copies[c.Name]))
			}
			fmt.Fprintf(stderr, "[%d/%d] %s: %s (%s) · elapsed %s, eta %s\n",
				done, total, c.Name, scoreLine(c.Config, r), how, el.Round(time.Second), eta)
		}})
	if err != nil {
		return err
	}
	if shard.Count > 1 {
		fmt.Fprintf(stdout, "%s: %d runs finished in %s; when every shard is done, merge them with: train report %s\n", shard, len(cells), time.Since(start).Round(time.Second), dir)
		return nil
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

// countCopies counts the cells with a tuning run to copy.
func countCopies(cells []config.Cell, copies map[string]string) int {
	n := 0
	for _, c := range cells {
		if copies[c.Name] != "" {
			n++
		}
	}
	return n
}

// sameGrid tells whether a grid directory's grid.yaml (old) holds the grid that src encodes:
// the same bytes, or a file an earlier version wrote that reads back as the same grid.
func sameGrid(path string, old, src []byte) bool {
	if rundir.SameConfig(old, src) { // the same bytes but for out:, the directory spelled otherwise
		return true
	}
	cfg, err := config.Load(path, nil)
	if err != nil {
		return false
	}
	again, err := config.MarshalGrid(cfg)
	return err == nil && rundir.SameConfig(again, src)
}

// runReport regenerates the report of an existing grid or run directory.
func runReport(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors come back as one line; -h prints the usage below
	pos, err := parseInterleaved(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(stderr, "usage: train report DIR   (a grid's or a run's directory)")
		return err
	}
	if err != nil {
		return fmt.Errorf("report: %w; usage: train report DIR", err)
	}
	if len(pos) != 1 {
		return errors.New("report: give one directory, e.g. train report runs/default")
	}
	g, err := report.Load(pos[0])
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

// runSelection makes a grid's select: choice: it trains the tuning runs (this shard's, resuming
// like the grid) in <grid>/select/, and once every tuning run has finished, chooses each
// group's value and writes selection.json. An existing selection.json is kept (-force starts
// over). It returns nil, without error, when other shards' tuning runs are still missing.
func runSelection(ctx context.Context, cfg config.Config, dir string, jobs int, force, resume bool, shard config.Shard, stderr io.Writer) (*config.Selection, error) {
	if force {
		if err := os.RemoveAll(filepath.Join(dir, config.SelectionFile)); err != nil {
			return nil, err
		}
	} else if sel, err := train.ReadSelection(dir); err == nil {
		fmt.Fprintf(stderr, "select: using the choice in %s\n", filepath.Join(dir, config.SelectionFile))
		return sel, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	tuning, err := config.SelectCells(cfg)
	if err != nil {
		return nil, err
	}
	mine := shard.Select(tuning)
	fmt.Fprintf(stderr, "select %s: %d of %d tuning runs (%s, %d at a time)\n", cfg.Select.Field, len(mine), len(tuning), shard, min(jobs, max(len(mine), 1)))
	if len(mine) > 0 {
		_, err = train.RunGrid(ctx, mine, train.GridOptions{Jobs: min(jobs, len(mine)), Force: force, Resume: true,
			Progress: func(done, total int, c config.Cell, r *train.Result, err error) {
				if err == nil {
					fmt.Fprintf(stderr, "[select %d/%d] %s: %s\n", done, total, c.Name, scoreLine(c.Config, r))
				}
			}})
		if err != nil {
			return nil, err
		}
	}
	for _, c := range tuning {
		if _, err := train.ReadResult(filepath.Join(c.Config.Out, c.Name)); err != nil {
			fmt.Fprintf(stderr, "select: tuning run %s is not finished (another shard's?); when every shard is done, run again with -resume to choose and train the grid\n", c.Name)
			return nil, nil
		}
	}
	sel, err := train.Choose(cfg, tuning)
	if err != nil {
		return nil, err
	}
	if err := train.WriteSelection(dir, sel); err != nil {
		return nil, err
	}
	for _, g := range sel.Groups {
		fmt.Fprintln(stderr, selectionLine(sel, g))
	}
	return sel, nil
}

// selectionLine is one group's choice as runSelection prints it: the group's swept values, the
// value chosen, and every candidate's score beside it (report.SelectionTable's form).
func selectionLine(sel *config.Selection, g config.SelectionGroup) string {
	var vals, scores []string
	for _, k := range slices.Sorted(maps.Keys(g.Values)) {
		vals = append(vals, k+"="+g.Values[k])
	}
	if len(vals) == 0 {
		vals = []string{"all cells"}
	}
	for i, x := range g.Scores {
		scores = append(scores, fmt.Sprintf("%g: %.3f", sel.Values[i], x))
	}
	return fmt.Sprintf("select: %s: %s = %g (mean validation %s %s)", strings.Join(vals, ", "), sel.Field, g.Chosen, sel.Metric, strings.Join(scores, ", "))
}

// scoreLine is a finished run's in-range and beyond scores for the progress lines, in the metric
// the report headlines for it: token accuracy for a task in the slots format (Protocol B's
// metric), exact match otherwise.
func scoreLine(c config.Config, r *train.Result) string {
	if c.Task.Format == data.FormatSlots {
		return fmt.Sprintf("in-range token accuracy %.3f, beyond %.3f", r.InRangeToken, r.BeyondToken)
	}
	return fmt.Sprintf("in-range exact %.3f, beyond %.3f", r.InRangeExact, r.BeyondExact)
}
