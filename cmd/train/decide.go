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

	"github.com/posformer/posformer/claims"
	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/grid"
	"github.com/posformer/posformer/rundir"
	"github.com/posformer/posformer/setup"
	"github.com/posformer/posformer/train"
)

// decideOptions are `claims -decide`'s flags.
type decideOptions struct {
	runs     string
	jobs     int
	maxSeeds int           // 0: the file's sequential.max_seeds
	budget   time.Duration // wall clock for the training of this invocation; 0: none
	// plan: collect, judge, write the tables and the document, print the next look's runs and
	// stop (a cluster's driver step); shard: train only this share of the next look, as the
	// tables stand, and stop (a job array's task).
	plan  bool
	shard config.Shard
}

// decideClaims runs a claims file's sequential design to its end: it collects the finished runs
// of the seeds directories under -runs into the file's tables, judges the claims, and, while a
// claim is open below max_seeds, trains the next seed of the cells the open claims need (one
// look), through each table's grid, until every claim is decided, the seeds are spent or the
// budget is. Killed at any point, the same command continues where it stopped: finished runs
// are collected, never trained again, and a run stopped midway resumes from its checkpoint. It
// then writes the tables and the document, as `claims FILE` would.
func decideClaims(ctx context.Context, path string, o decideOptions, stdout, stderr io.Writer) error {
	f, err := claims.Load(path)
	if err != nil {
		return fmt.Errorf("claims: %w", err)
	}
	if !f.Sequential.On() {
		return fmt.Errorf("claims: %s has no sequential design: -decide judges after each seed as the file declares it; add `sequential: {max_seeds: 10}` to it (docs/statistics.md), or judge it with a fixed n (claims %s)", path, path)
	}
	maxSeeds := f.Sequential.MaxSeeds
	if o.maxSeeds > 0 {
		maxSeeds = o.maxSeeds
	}
	if least := claims.FewestDecisive(f.Sequential.Alpha); maxSeeds < least && f.Bounded() {
		fmt.Fprintf(stderr, "claims -decide: warning: at most %d seeds a cell: a comparison of scores in [0, 1] cannot be decided before %d seeds a cell at α = %g, even when every seed of one cell beats every seed of the other by the most it can (docs/statistics.md); give max_seeds ≥ %d\n",
			maxSeeds, least, f.Sequential.Alpha, least)
	}
	start := time.Now()
	if o.shard.Source != "" { // a job array's task
		return decideShard(ctx, f, maxSeeds, o, stderr)
	}
	locked := map[string]bool{}
	for _, t := range f.Tables { // one process a seeds directory
		if t.Grid == "" {
			continue
		}
		dir, err := claims.GridDir(o.runs, t)
		if err != nil {
			return fmt.Errorf("claims: %s: table %s: %w", path, t.Name, err)
		}
		if locked[dir] { // tables of one grid share its seeds directory: locked once
			continue
		}
		locked[dir] = true
		release, err := lockDir(dir + claims.SeedsDir)
		if err != nil {
			return fmt.Errorf("claims: %w", err)
		}
		defer release()
	}
	var trained int
	var runTime time.Duration // of the runs trained here
	train1 := func(look int, lk *claims.Look) error {
		for _, lt := range lk.Tables {
			if err := lt.WriteGrid(); err != nil {
				return fmt.Errorf("claims: %w", err)
			}
			checked, jobs, err := checkCells(lt, o.jobs)
			if err != nil {
				return err
			}
			finished := map[string]bool{} // before this look (a look stopped part-way, a table sharing the grid): not trained again
			for _, c := range checked {
				if _, err := train.ReadResult(filepath.Join(c.Config.Out, c.Config.Name)); err == nil {
					finished[c.Config.Name] = true
				}
			}
			lookStart := time.Now()
			_, err = grid.TrainCells(ctx, checked, grid.CellOptions{Jobs: jobs, Resume: true,
				Progress: func(done, total int, c *setup.Checked, r *train.Result, err error) {
					switch {
					case err != nil:
						fmt.Fprintf(stderr, "claims -decide: [%d/%d] %s: %v\n", done, total, c.Config.Name, err)
					case r != nil && finished[c.Config.Name]:
						fmt.Fprintf(stderr, "claims -decide: [%d/%d] %s: finished before, not trained again\n", done, total, c.Config.Name)
					case r != nil:
						trained++
						runTime += time.Duration((r.TrainSeconds + r.EvalSeconds) * float64(time.Second))
						fmt.Fprintf(stderr, "claims -decide: [%d/%d] %s (%.0f s) · elapsed %s\n", done, total, c.Config.Name, r.TrainSeconds+r.EvalSeconds, time.Since(start).Round(time.Second))
					}
				}})
			if err != nil {
				return fmt.Errorf("claims: %s: %w", lt.Table.Grid, err)
			}
			fmt.Fprintf(stderr, "claims -decide: look %d: %s trained in %s\n", look, lt.Dir, time.Since(lookStart).Round(time.Second))
		}
		return nil
	}
	if o.plan { // the first look, while a table is missing: its grid's own seeds
		if csvs, _, err := f.Collect(o.runs); err != nil {
			return fmt.Errorf("claims: %s: %w", path, err)
		} else if err := claims.WriteAll(csvs); err != nil {
			return fmt.Errorf("claims: %w", err)
		}
		if boot, err := f.Bootstrap(o.runs); err != nil || boot != nil {
			if err != nil {
				return fmt.Errorf("claims: %w", err)
			}
			fmt.Fprintf(stdout, "next look: %d runs\n", boot.Runs())
			return nil
		}
	}
	boot, err := f.Bootstrap(o.runs)
	if err != nil {
		return fmt.Errorf("claims: %w", err)
	}
	if boot != nil {
		fmt.Fprintf(stderr, "claims -decide: look 0: no table yet: training the grid's own seeds (%d runs)\n", boot.Runs())
		if err := train1(0, boot); err != nil {
			return err
		}
	}
	lastWants := "" // the previous look's wants: the same again means no progress
	for look := 1; ; look++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		csvs, added, err := f.Collect(o.runs)
		if err != nil {
			return fmt.Errorf("claims: %s: %w", path, err)
		}
		if len(csvs) > 0 {
			if err := claims.WriteAll(csvs); err != nil {
				return fmt.Errorf("claims: %w", err)
			}
			for _, p := range slices.Sorted(maps.Keys(added)) {
				fmt.Fprintf(stderr, "claims -decide: %s: %d new runs collected\n", p, added[p])
			}
		}
		j, err := claims.Judge(f, nil)
		if err != nil {
			return fmt.Errorf("claims: %w", err)
		}
		wants := j.Wants(maxSeeds)
		fmt.Fprintf(stderr, "claims -decide: look %d: %s\n", look, lookStatus(j, maxSeeds))
		if look == 1 {
			if err := worstCase(f, j, maxSeeds, o, stderr); err != nil {
				return err
			}
		}
		if o.plan {
			n := 0
			if len(wants) > 0 {
				lk, err := f.NextLook(wants, o.runs)
				if err != nil {
					return fmt.Errorf("claims: %w", err)
				}
				n = lk.Runs()
			}
			if err := writeDoc(path, stdout); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "next look: %d runs\n", n)
			return nil
		}
		if len(wants) == 0 {
			break
		}
		if w := fmt.Sprint(wants); w == lastWants { // a look that trained and collected changed nothing
			return fmt.Errorf("claims: %s: look %d asks for the seeds look %d did (%s) although it trained them: the runs do not reach the table; check -runs and the table's grid, then run the command again", path, look, look-1, w)
		} else {
			lastWants = w
		}
		if o.budget > 0 && time.Since(start) >= o.budget {
			fmt.Fprintf(stderr, "claims -decide: the budget of %s is spent (%s): stopping with claims open; run the command again to go on\n", o.budget, time.Since(start).Round(time.Second))
			break
		}
		lk, err := f.NextLook(wants, o.runs)
		if err != nil {
			return fmt.Errorf("claims: %w", err)
		}
		var cells []string
		for _, w := range wants {
			cells = append(cells, fmt.Sprintf("%s · %s%s seeds %v", w.Task, w.Scheme, variantOf(w.Variant), w.NextSeeds()))
		}
		fmt.Fprintf(stderr, "claims -decide: look %d trains %d runs: %s\n", look, lk.Runs(), strings.Join(cells, "; "))
		if err := train1(look, lk); err != nil {
			return err
		}
	}
	fmt.Fprintf(stderr, "claims -decide: %d runs trained here (%s of training and evaluation) in %s\n", trained, runTime.Round(time.Second), time.Since(start).Round(time.Second))
	return writeDoc(path, stdout)
}

// writeDoc writes the claims file's document from its tables, as `claims FILE` does, and prints
// its counts.
func writeDoc(path string, stdout io.Writer) error {
	docs, err := claims.Docs([]string{path}, "go run ./cmd/train claims", nil)
	if err != nil {
		return fmt.Errorf("claims: %w; nothing was written", err)
	}
	files := map[string][]byte{}
	for _, d := range docs {
		files[d.Path] = d.Content
	}
	if err := claims.WriteAll(files); err != nil {
		return fmt.Errorf("claims: %w", err)
	}
	printCounts(stdout, docs)
	return nil
}

// decideShard trains a job array task's share of the next look: the look the tables as they
// stand call for (the first, the grids' own seeds, when a table is missing), its runs in a stable
// order (table, then cell name), runs i, i+n, ... of it. It collects nothing and writes no table
// or document: the driver's -plan does, after the array (docs/runs.md).
func decideShard(ctx context.Context, f *claims.File, maxSeeds int, o decideOptions, stderr io.Writer) error {
	lk, err := f.Bootstrap(o.runs)
	if err != nil {
		return fmt.Errorf("claims: %w", err)
	}
	if lk == nil {
		j, err := claims.Judge(f, nil)
		if err != nil {
			return fmt.Errorf("claims: %w", err)
		}
		wants := j.Wants(maxSeeds)
		if len(wants) == 0 {
			fmt.Fprintf(stderr, "claims -decide: %s: nothing to train (every claim decided or at %d seeds a cell)\n", o.shard, maxSeeds)
			return nil
		}
		if lk, err = f.NextLook(wants, o.runs); err != nil {
			return fmt.Errorf("claims: %w", err)
		}
	}
	i := 0
	seen := map[string]bool{} // a run two tables sharing a grid both want: one shard's, once
	for t := range lk.Tables {
		lt := &lk.Tables[t]
		if err := lt.WriteGrid(); err != nil {
			return fmt.Errorf("claims: %w", err)
		}
		slices.SortFunc(lt.Cells, func(a, b config.Cell) int { return strings.Compare(a.Name, b.Name) })
		var mine []config.Cell
		for _, c := range lt.Cells {
			run := filepath.Join(lt.Dir, c.Name)
			if seen[run] {
				continue
			}
			seen[run] = true
			if o.shard.Has(i) {
				mine = append(mine, c)
			}
			i++
		}
		lt.Cells = mine
	}
	fmt.Fprintf(stderr, "claims -decide: %s: %d of the look's %d runs\n", o.shard, lk.Runs(), i)
	for _, lt := range lk.Tables {
		if len(lt.Cells) == 0 {
			continue
		}
		checked, jobs, err := checkCells(lt, o.jobs)
		if err != nil {
			return err
		}
		if _, err := grid.TrainCells(ctx, checked, grid.CellOptions{Jobs: jobs, Resume: true,
			Progress: func(done, total int, c *setup.Checked, r *train.Result, err error) {
				if err != nil {
					fmt.Fprintf(stderr, "claims -decide: [%d/%d] %s: %v\n", done, total, c.Config.Name, err)
				} else {
					fmt.Fprintf(stderr, "claims -decide: [%d/%d] %s\n", done, total, c.Config.Name)
				}
			}}); err != nil {
			return fmt.Errorf("claims: %s: %w", lt.Table.Grid, err)
		}
	}
	return nil
}

// lookStatus says which claims are open and the seeds each cell has.
func lookStatus(j *claims.Judged, maxSeeds int) string {
	var open, atBudget []string
	decided, fixed := 0, 0
	for _, o := range j.Claims {
		switch {
		case o.Seq == nil:
			fixed++
		case o.Seq.Decided:
			decided++
		case o.Seq.Seeds >= maxSeeds:
			atBudget = append(atBudget, fmt.Sprintf("%s (%d seeds)", o.Claim.ID, o.Seq.Seeds))
		default:
			open = append(open, fmt.Sprintf("%s (%d seeds)", o.Claim.ID, o.Seq.Seeds))
		}
	}
	s := fmt.Sprintf("%d claims decided, %d open", decided, len(open))
	if len(open) > 0 {
		s += ": " + strings.Join(open, ", ")
	}
	if len(atBudget) > 0 {
		s += fmt.Sprintf("; %d open at %d seeds a cell (the most -decide trains): %s", len(atBudget), maxSeeds, strings.Join(atBudget, ", "))
	}
	if fixed > 0 {
		s += fmt.Sprintf("; %d judged with a fixed n", fixed)
	}
	return s
}

// worstCase prints what the design costs at most from here: every open claim's cells trained
// to max seeds, with the predicted peak memory of jobs runs at once and, where runs of the seeds
// directories have finished, their mean time.
func worstCase(f *claims.File, j *claims.Judged, maxSeeds int, o decideOptions, w io.Writer) error {
	wants := j.WorstCase(maxSeeds)
	if len(wants) == 0 {
		return nil
	}
	lk, err := f.NextLook(wants, o.runs)
	if err != nil {
		return fmt.Errorf("claims: %w", err)
	}
	var peak int64
	var took time.Duration
	var finished int
	for _, lt := range lk.Tables {
		checked, err := setup.CheckCells(lt.Cells, false)
		if err != nil {
			return fmt.Errorf("claims: %s: %w", lt.Table.Grid, err)
		}
		for _, c := range checked {
			peak = max(peak, c.Memory.Peak)
		}
		ents, _ := os.ReadDir(lt.Dir) // every finished run of the seeds directory times a run
		for _, e := range ents {
			if r, err := train.ReadResult(filepath.Join(lt.Dir, e.Name())); e.IsDir() && err == nil {
				finished++
				took += time.Duration((r.TrainSeconds + r.EvalSeconds) * float64(time.Second))
			}
		}
	}
	jobs := max1(o.jobs)
	when := "time: known once a run has finished (each look prints its runs' times)"
	if finished > 0 {
		per := took / time.Duration(finished)
		when = fmt.Sprintf("about %s of wall time (%s a run, the mean of the %d finished in %s, %d at a time)",
			(per * time.Duration(lk.Runs()) / time.Duration(jobs)).Round(time.Second), per.Round(time.Second), finished, o.runs, jobs)
	}
	fmt.Fprintf(w, "claims -decide: the worst case from here: %d runs to train (every open claim's cells to %d seeds), predicted peak memory %.0f MB a run, %.0f MB for %d at a time; %s\n",
		lk.Runs(), maxSeeds, float64(peak)/1e6, float64(peak*int64(jobs))/1e6, jobs, when)
	return nil
}

// lockDir locks a seeds directory for this process (rundir.Lock): two -decide processes on one
// -runs would train the same runs.
func lockDir(dir string) (func(), error) { return rundir.Lock(dir) }

func variantOf(v string) string {
	if v == "" {
		return ""
	}
	return " (" + v + ")"
}

func max1(n int) int { return max(n, 1) }

// checkCells checks a look's table's cells for training, gives the jobs to train them with (at most
// one a cell) and sets the memory limit to that many of the largest predicted peak.
func checkCells(lt claims.LookTable, jobs int) ([]*setup.Checked, int, error) {
	checked, err := setup.CheckCells(lt.Cells, false)
	if err != nil {
		return nil, 0, fmt.Errorf("claims: %s: %w", lt.Table.Grid, err)
	}
	jobs = min(max1(jobs), len(checked))
	var peak int64
	for _, c := range checked {
		peak = max(peak, c.Memory.Peak)
	}
	limitMemory(peak * int64(jobs))
	return checked, jobs, nil
}

// sequentialClaims runs `claims -decide FILE` or `claims -replay FILE...`.
func sequentialClaims(ctx context.Context, fs *flag.FlagSet, decide, export bool, d decideOptions, runs string, stdout, stderr io.Writer) error {
	paths := fs.Args()
	for _, p := range paths {
		if strings.HasPrefix(p, "-") {
			return fmt.Errorf("claims: %s after the claims files: flags go before them, e.g. claims -decide -runs runs FILE: %w", p, errUsage)
		}
	}
	switch {
	case decide && fs.Lookup("replay").Value.String() == "true":
		return fmt.Errorf("claims: -decide and -replay: give one (-replay judges the seeds held and trains nothing): %w", errUsage)
	case export:
		return fmt.Errorf("claims: -export with -decide or -replay: -decide collects its own runs, -replay reads the tables as they are; export first with claims -export: %w", errUsage)
	case decide && len(paths) != 1:
		return fmt.Errorf("claims: -decide takes one claims file, got %d: %w", len(paths), errUsage)
	case len(paths) == 0:
		return fmt.Errorf("claims: -replay needs claims files (e.g. docs/claims/literature_2024.yaml): %w", errUsage)
	case !decide && (flagSet(fs, "max-seeds") || flagSet(fs, "budget") || flagSet(fs, "jobs") || flagSet(fs, "plan") || flagSet(fs, "shard")):
		return fmt.Errorf("claims: -max-seeds, -budget, -jobs, -plan and -shard set -decide's training; -replay trains nothing: %w", errUsage)
	case d.plan && d.shard.Source != "":
		return fmt.Errorf("claims: -plan with %s: the plan is the driver's step, a shard trains its share of the look: give one: %w", d.shard, errUsage)
	case d.maxSeeds < 0 || flagSet(fs, "max-seeds") && (d.maxSeeds < 2 || d.maxSeeds > claims.MostSeeds):
		return fmt.Errorf("claims: -max-seeds %d: a cell needs at least 2 seeds to be judged, and -decide trains at most %d (as sequential.max_seeds); give 2 to %d: %w", d.maxSeeds, claims.MostSeeds, claims.MostSeeds, errUsage)
	case d.budget < 0:
		return fmt.Errorf("claims: -budget %s: give a positive duration such as 2h: %w", d.budget, errUsage)
	case d.jobs < 1:
		return fmt.Errorf("claims: -jobs %d: give at least 1: %w", d.jobs, errUsage)
	}
	if decide {
		if err := checkDecideRuns(runs); err != nil {
			return err
		}
		d.runs = runs
		return decideClaims(ctx, paths[0], d, stdout, stderr)
	}
	for _, p := range paths {
		doc, summary, err := claims.Replay(p, "go run ./cmd/train claims -replay")
		if err != nil {
			return fmt.Errorf("claims: %w", err)
		}
		fmt.Fprint(stderr, summary)
		fmt.Fprint(stdout, doc)
	}
	return nil
}

// checkDecideRuns checks -decide's -runs, where it trains its seeds: given, a directory (created
// if missing) and writable. The errors name -runs: the run directories' own say -out, the
// training command's flag.
func checkDecideRuns(runs string) error {
	if runs == "" {
		return fmt.Errorf("claims: -runs is empty: -decide trains its seeds under it (<runs>/<grid name>-seeds); give a directory, e.g. -runs runs: %w", errUsage)
	}
	if info, err := os.Stat(runs); err == nil && !info.IsDir() {
		return fmt.Errorf("claims: -runs %s is not a directory: -decide trains its seeds under it; give a directory, e.g. -runs runs: %w", runs, errUsage)
	}
	if err := os.MkdirAll(runs, 0o755); err != nil {
		return fmt.Errorf("claims: -runs %s: cannot create it (%v): -decide trains its seeds under it; give a writable directory", runs, errors.Unwrap(err))
	}
	probe, err := os.CreateTemp(runs, ".posformer-writable-*")
	if err != nil {
		return fmt.Errorf("claims: -runs %s is not writable (%v): -decide trains its seeds under it; give a writable directory", runs, errors.Unwrap(err))
	}
	probe.Close()
	return os.Remove(probe.Name())
}
