// Package grid runs a grid, a config with a sweep: (expanded into cells by package
// config): its directory and grid.yaml (a grid is resumed only into the same grid), the
// select: phase (tuning runs in <grid>/select/, each group's value chosen on in-range validation
// and kept in selection.json), and the cells themselves, jobs at a time, each a train.Run; and
// the finished grid's reader (Load: the cells it should have and the runs it has). cmd/train
// parses the flags, calls Train and writes the report.
package grid

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/internal/regfile"
	"github.com/posformer/posformer/metric"
	"github.com/posformer/posformer/rundir"
	"github.com/posformer/posformer/setup"
	"github.com/posformer/posformer/train"
	"go.yaml.in/yaml/v3"
)

// Options control a grid's run.
type Options struct {
	Jobs          int  // runs trained at once; default 1
	Force, Resume bool // start the grid over; continue it (finished runs are kept)
	// Shard is this process's share of the cells (config.Shard; the zero value: all of them).
	Shard config.Shard
	// Log receives the progress lines: the select phase, one line per finished run, the ETA.
	Log io.Writer
	// LimitMemory, when set, is called before training with the predicted peak memory of Jobs
	// runs at once (cmd/train sets the runtime's soft memory limit with it).
	LimitMemory func(peak int64)
}

// Ran is what Train trained: the cells of this process (after the select: phase and the shard),
// the grid's directory and the time the cells took.
type Ran struct {
	Cells   []*setup.Checked
	Dir     string
	Elapsed time.Duration
}

// Train trains a checked grid's cells (setup.CheckGrid's) in its directory config.GridDir: it
// checks the directory's grid.yaml against this grid (a different grid is refused, an existing
// one needs Resume or Force), writes it, runs the select: phase when the grid has one, and
// trains this shard's cells, Jobs at a time. It returns nil, without error, when there is nothing
// to train yet: other shards' tuning runs are missing, or this shard has no cells.
func Train(ctx context.Context, g *setup.Grid, opt Options) (*Ran, error) {
	cfg, cells := g.Config, g.Cells
	if opt.Log == nil {
		opt.Log = io.Discard
	}
	log, shard := opt.Log, opt.Shard
	dir := config.GridDir(cfg)
	gridFile := filepath.Join(dir, config.GridFile)
	src, err := config.MarshalGrid(cfg)
	if err != nil {
		return nil, err
	}
	old, err := regfile.ReadFile(gridFile)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("cannot read the grid's %w; remove it, or choose another -out or name", err)
	}
	if err == nil {
		same := sameGrid(gridFile, old, src)
		reordered := !same && (opt.Resume || shard.Count > 1) && reorderedSweep(old, src) && sameCells(gridFile, src)
		switch {
		case shard.Count > 1 && same:
			// another shard of the same grid got here first
		case reordered && shard.Count > 1:
			return nil, fmt.Errorf("cannot resume the grid in %s as %s: its %s has the same cells, but lists the sweep's values in another order (%s), and shards split the cells by their order, so every shard of a grid must list them alike; write the sweep in %s's order, or resume without -shard", dir, shard, config.GridFile, rundir.FingerprintDiff(rundir.GridFields(old), rundir.GridFields(src)), config.GridFile)
		case reordered:
			// The same cells, each with its name and config: resume them, in the new order.
			fmt.Fprintf(log, "grid %s: the sweep lists its values in another order than %s (%s), with the same %d cells: resuming them\n", dir, config.GridFile, rundir.FingerprintDiff(rundir.GridFields(old), rundir.GridFields(src)), len(cells))
		case (opt.Resume || shard.Count > 1) && !same:
			return nil, fmt.Errorf("cannot resume the grid in %s: its %s is a different grid (%s); pass -force to start over, or choose another -out or name", dir, config.GridFile, rundir.FingerprintDiff(rundir.GridFields(old), rundir.GridFields(src)))
		case !opt.Resume && !opt.Force:
			return nil, fmt.Errorf("grid directory %s already exists: pass -resume to continue it (finished runs are kept), -force to overwrite it, or choose another -out or name", dir)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create the grid directory %s: %w (choose a writable -out)", dir, err)
	}
	if err := rundir.WriteFileAtomic(gridFile, src); err != nil {
		return nil, err
	}
	var copies map[string]string // cells that are tuning runs: copied, not trained again
	if cfg.Select.On() {
		sel, err := runSelection(ctx, g, dir, opt)
		if err != nil || sel == nil {
			return nil, err
		}
		chosen, err := ExpandSelected(cfg, sel)
		if err != nil {
			return nil, err
		}
		if copies, err = TuningCopies(cfg, sel, chosen); err != nil {
			return nil, err
		}
		if cells, err = setup.CheckCells(chosen, false); err != nil { // the cells at their chosen values
			return nil, cfg.At(err)
		}
	}
	all := len(cells)
	cells = shardOf(shard, cells)
	if len(cells) == 0 {
		fmt.Fprintf(log, "grid %s: %s has no cells (the grid has %d)\n", dir, shard, all)
		return nil, nil
	}
	jobs := min(max(opt.Jobs, 1), len(cells))
	var peak int64 // the jobs largest runs at once
	for _, c := range cells {
		peak = max(peak, c.Memory.Peak)
	}
	if opt.LimitMemory != nil {
		opt.LimitMemory(peak * int64(jobs))
	}
	fmt.Fprintf(log, "grid %s: predicted peak memory %.0f MB per run, %.0f MB for %d at a time\n", dir, float64(peak)/1e6, float64(peak*int64(jobs))/1e6, jobs)
	fmt.Fprintf(log, "grid %s: %s, %d of %d runs, %d at a time\n", dir, shard, len(cells), all, jobs)
	// Runs that take no time (copied tuning runs, and with -resume finished ones) are left out of
	// the ETA.
	instant, copied, trained := map[string]bool{}, 0, 0
	for _, c := range cells {
		if copies[c.Config.Name] != "" {
			copied++
			instant[c.Config.Name] = true
		} else if _, err := train.ReadResult(filepath.Join(c.Config.Out, c.Config.Name)); opt.Resume && err == nil {
			instant[c.Config.Name] = true
		}
	}
	if copied > 0 {
		fmt.Fprintf(log, "grid %s: %d of them are tuning runs at the chosen %s (the same config): copied from %s, not trained again\n", dir, copied, cfg.Select.Field, filepath.Join(dir, config.SelectDir))
	}
	toTrain := len(cells) - len(instant)
	start := time.Now()
	_, err = TrainCells(ctx, cells, CellOptions{Jobs: jobs, Force: opt.Force, Resume: opt.Resume, CopyFrom: copies,
		Progress: func(done, total int, c *setup.Checked, r *train.Result, err error) {
			el := time.Since(start)
			if !instant[c.Config.Name] {
				trained++
			}
			eta := "–" // from the runs trained here: copied and already finished ones take no time
			if trained > 0 {
				eta = time.Duration(float64(el) / float64(trained) * float64(toTrain-trained)).Round(time.Second).String()
			}
			var d *train.DivergedError
			if errors.As(err, &d) {
				fmt.Fprintf(log, "[%d/%d] %s: %s · elapsed %s, eta %s\n", done, total, c.Config.Name, divergedLine(d), el.Round(time.Second), eta)
				return
			}
			if err != nil {
				fmt.Fprintf(log, "[%d/%d] %s failed: %v\n", done, total, c.Config.Name, err)
				return
			}
			how := fmt.Sprintf("%.0f s", r.TrainSeconds+r.EvalSeconds)
			if copies[c.Config.Name] != "" {
				how = "copied from " + filepath.Join(config.SelectDir, filepath.Base(copies[c.Config.Name]))
			}
			fmt.Fprintf(log, "[%d/%d] %s: %s (%s) · elapsed %s, eta %s\n",
				done, total, c.Config.Name, scoreLine(c.Config, r), how, el.Round(time.Second), eta)
		}})
	if err != nil {
		return nil, err
	}
	return &Ran{Cells: cells, Dir: dir, Elapsed: time.Since(start)}, nil
}

// shardOf is the runs of a grid's cells (in the cells' order) that are the shard's.
func shardOf(shard config.Shard, runs []*setup.Checked) []*setup.Checked {
	var out []*setup.Checked
	for i, r := range runs {
		if shard.Has(i) {
			out = append(out, r)
		}
	}
	return out
}

// sameGrid tells whether a grid directory's grid.yaml (old) holds the grid that src encodes:
// the same bytes, or a file an earlier version wrote that reads back as the same grid.
func sameGrid(path string, old, src []byte) bool {
	if rundir.SameConfig(old, src) { // the same bytes but for out:, the directory spelled otherwise
		return true
	}
	cfg, _, err := config.ReadWritten(path)
	if err != nil {
		return false
	}
	again, err := config.MarshalGrid(cfg)
	return err == nil && rundir.SameConfig(again, src)
}

// reorderedSweep tells whether two grid.yaml texts differ only in the order of some sweep's
// values: every other field the same, each sweep the same values.
func reorderedSweep(old, src []byte) bool {
	fields := func(b []byte) map[string]string {
		m := map[string]string{}
		for _, l := range strings.Split(rundir.GridFields(b), "\n") {
			if k, v, ok := strings.Cut(l, ": "); ok {
				m[k] = v
			}
		}
		return m
	}
	a, b := fields(old), fields(src)
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || v != w && !(strings.HasPrefix(k, "sweep.") && sameValues(v, w)) {
			return false
		}
	}
	return true
}

// sameValues tells whether two YAML lists hold the same values, in any order.
func sameValues(a, b string) bool {
	values := func(s string) []string {
		var xs []any
		if yaml.Unmarshal([]byte(s), &xs) != nil {
			return nil
		}
		var out []string
		for _, x := range xs {
			y, err := yaml.Marshal(x)
			if err != nil {
				return nil
			}
			out = append(out, string(y))
		}
		slices.Sort(out)
		return out
	}
	va, vb := values(a), values(b)
	return va != nil && slices.Equal(va, vb)
}

// sameCells tells whether a grid directory's grid.yaml (at path) and the grid src encodes expand
// to the same cells, each with the same name and config (out aside), in any order: a sweep whose
// values are listed in another order.
func sameCells(path string, src []byte) bool {
	_, old, err := config.ReadWritten(path)
	if err != nil {
		return false
	}
	_, cur, err := config.Read(src, path, nil)
	if err != nil || len(old) != len(cur) {
		return false
	}
	texts := func(cells []config.Cell) (map[string]string, bool) {
		m := map[string]string{}
		for _, c := range cells {
			cc := c.Config
			cc.Out = ""
			y, err := yaml.Marshal(cc)
			if err != nil {
				return nil, false
			}
			m[c.Name] = string(y)
		}
		return m, len(m) == len(cells)
	}
	a, okA := texts(old)
	b, okB := texts(cur)
	return okA && okB && maps.Equal(a, b)
}

// runSelection makes a grid's select: choice: it trains the tuning runs (this shard's, resuming
// like the grid) in <grid>/select/, and once every tuning run has finished, chooses each
// group's value and writes selection.json. An existing selection.json is kept (-force starts
// over). It returns nil, without error, when other shards' tuning runs are still missing.
func runSelection(ctx context.Context, g *setup.Grid, dir string, opt Options) (*Selection, error) {
	cfg, jobs, log := g.Config, max(opt.Jobs, 1), opt.Log
	if opt.Force {
		if err := os.RemoveAll(filepath.Join(dir, SelectionFile)); err != nil {
			return nil, err
		}
	} else if sel, err := ReadSelection(dir); err == nil {
		fmt.Fprintf(log, "select: using the choice in %s\n", filepath.Join(dir, SelectionFile))
		return sel, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	tuning, err := config.SelectCells(cfg) // their swept values, in g.Tuning's order
	if err != nil {
		return nil, err
	}
	mine := shardOf(opt.Shard, g.Tuning)
	fmt.Fprintf(log, "select %s: %d of %d tuning runs (%s, %d at a time)\n", cfg.Select.Field, len(mine), len(tuning), opt.Shard, min(jobs, max(len(mine), 1)))
	if len(mine) > 0 {
		_, err := TrainCells(ctx, mine, CellOptions{Jobs: min(jobs, len(mine)), Force: opt.Force, Resume: true,
			Progress: func(done, total int, c *setup.Checked, r *train.Result, err error) {
				var d *train.DivergedError
				switch {
				case errors.As(err, &d):
					fmt.Fprintf(log, "[select %d/%d] %s: %s (the value loses)\n", done, total, c.Config.Name, divergedLine(d))
				case err == nil:
					fmt.Fprintf(log, "[select %d/%d] %s: %s\n", done, total, c.Config.Name, scoreLine(c.Config, r))
				}
			}})
		if err != nil {
			return nil, err
		}
	}
	for _, c := range tuning {
		if _, err := train.ReadResult(filepath.Join(c.Config.Out, c.Name)); err != nil {
			fmt.Fprintf(log, "select: tuning run %s is not finished (another shard's?); when every shard is done, run again with -resume to choose and train the grid\n", c.Name)
			return nil, nil
		}
	}
	sel, err := Choose(cfg, tuning)
	if err != nil {
		return nil, err
	}
	if err := WriteSelection(dir, sel); err != nil {
		return nil, err
	}
	for _, g := range sel.Groups {
		fmt.Fprintln(log, selectionLine(sel, g))
	}
	return sel, nil
}

// selectionLine is one group's choice as runSelection prints it: the group's swept values, the
// value chosen, and every candidate's score beside it (report.SelectionTable's form).
func selectionLine(sel *Selection, g SelectionGroup) string {
	var vals, scores []string
	for _, k := range slices.Sorted(maps.Keys(g.Values)) {
		vals = append(vals, k+"="+g.Values[k])
	}
	if len(vals) == 0 {
		vals = []string{"all cells"}
	}
	for i, x := range g.Scores {
		if g.Diverged != nil && g.Diverged[i] {
			scores = append(scores, fmt.Sprintf("%g: diverged", sel.Values[i]))
			continue
		}
		scores = append(scores, fmt.Sprintf("%g: %.3f", sel.Values[i], x))
	}
	return fmt.Sprintf("select: %s: %s = %g (mean validation %s %s)", strings.Join(vals, ", "), sel.Field, g.Chosen, sel.Metric, strings.Join(scores, ", "))
}

// lengthsLine is a run's score in a metric with a sliding twin (metric.Metric.Sliding: bits per
// byte) at the training length and at the longest length it was evaluated at, with the sliding
// window's where it differs.
func lengthsLine(r *train.Result, m metric.Metric) string {
	if len(r.Lengths) == 0 {
		return "no length evaluated"
	}
	at := func(l train.LengthResult) string {
		x, sliding := l.Score(m.Name), l.Score(m.Sliding)
		s := fmt.Sprintf("%.3f at %d", x, l.Length)
		if sliding != x {
			s += fmt.Sprintf(" (sliding %.3f)", sliding)
		}
		return s
	}
	last := r.Lengths[len(r.Lengths)-1]
	var parts []string
	if i := slices.IndexFunc(r.Lengths, func(l train.LengthResult) bool { return l.Length == r.MaxLen }); i >= 0 && r.Lengths[i].Length != last.Length {
		parts = append(parts, at(r.Lengths[i])+" (training length)")
	}
	return metric.Words(m.Name) + " " + strings.Join(append(parts, at(last)), ", ")
}

// divergedLine is a grid cell that diverged, as its progress line says it: a result, no scores.
func divergedLine(d *train.DivergedError) string {
	return fmt.Sprintf("diverged at step %d (%s; %s), recorded as its result without scores", d.Step, d.Reason, d.Fix)
}

// scoreLine is a finished run's in-range and beyond scores for the progress lines, in the metric
// the report headlines for it (metric.Headline): token accuracy for a task in the slots format
// (Protocol B's metric), exact match otherwise; a metric with a sliding twin (bits per byte) at
// the training length and the longest (lengthsLine).
func scoreLine(c config.Config, r *train.Result) string {
	m := metric.Headline(c.Task.Name, c.Task.Format)
	if m.Sliding != "" {
		return lengthsLine(r, m)
	}
	in, beyond := r.Summary(m.Name)
	return fmt.Sprintf("in-range %s %.3f, beyond %.3f", m.Label, in, beyond)
}
