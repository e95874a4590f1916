package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/posformer/posformer/claims"
	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/internal/regfile"
	"github.com/posformer/posformer/report"
)

// claimsDir is where the shipped claims files live; their documents and the index are written
// beside them.
const claimsDir = "docs/claims"

// runClaims judges claims files (default: every docs/claims/*.yaml) from their per-seed tables
// and writes each file's document beside it (and, for the shipped set, the index
// docs/claims/README.md and docs/claims/mathematics.md). With -export it first exports each
// table from its finished grid under -runs. It never trains and never writes under -runs;
// every file is written or none. -decide and -replay are sequentialClaims'; -decide's own flags
// without -decide are refused.
func runClaims(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("claims", flag.ContinueOnError)
	fs.SetOutput(stderr)
	runs := fs.String("runs", config.DefaultOut, "`directory` holding the finished grids that -export reads (runs/<grid config name>), only read; with -decide, where its seeds are trained (runs/<grid name>-seeds)")
	export := fs.Bool("export", false, "first export each table whose grid is under -runs to the table's CSV (checked to be the grid its config describes, every run finished)")
	replay := fs.Bool("replay", false, "judge each file sequentially over the seeds its tables hold, as -decide would have stopped, and print the document (docs/statistics.md); writes nothing")
	decide := fs.Bool("decide", false, "train, under -runs, the next seed of the cells of the file's open claims (its sequential: design) and judge again, until every claim is decided, max_seeds or -budget is spent; then write its tables and document (docs/runs.md)")
	var d decideOptions
	fs.IntVar(&d.jobs, "jobs", runtime.NumCPU(), "with -decide: runs to train in parallel")
	fs.IntVar(&d.maxSeeds, "max-seeds", 0, "with -decide: the most seeds a cell is trained to (default: the file's sequential.max_seeds)")
	fs.DurationVar(&d.budget, "budget", 0, "with -decide: stop starting looks after this wall-clock `duration` (e.g. 2h; default: none)")
	fs.BoolVar(&d.plan, "plan", false, "with -decide: collect the finished runs, judge, write the tables and the document, print the next look's runs and stop (a cluster's driver step: docs/runs.md)")
	shardFlag := fs.String("shard", "", "with -decide: train only runs i, i+n, ... (`i/n`) of the next look as the tables stand, and stop (default: a Slurm array's or Indexed Job's task from the environment, else all)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *decide || *replay {
		var err error
		switch {
		case flagSet(fs, "shard") && *shardFlag == "":
			return fmt.Errorf("claims: -shard: empty; give i/n, or leave the flag out to read the shard from the environment: %w", errUsage)
		case *shardFlag != "":
			d.shard, err = config.ParseShard(*shardFlag)
			d.shard.Source = "-shard"
		case *decide:
			d.shard, err = config.ShardFromEnv(os.Getenv)
		}
		if err != nil {
			return fmt.Errorf("claims: %w: %w", err, errUsage)
		}
		return sequentialClaims(ctx, fs, *decide, *export, d, *runs, stdout, stderr)
	}
	for _, name := range []string{"plan", "shard", "max-seeds", "budget", "jobs"} { // -decide's own
		if flagSet(fs, name) {
			return fmt.Errorf("claims: -%s without -decide: it sets -decide's training, and claims without -decide trains nothing; add -decide (claims -decide -%s ... -runs DIR FILE), or remove -%s: %w", name, name, name, errUsage)
		}
	}
	if *runs == "" {
		return fmt.Errorf("claims: -runs is empty: give the directory holding the grids, e.g. -runs runs: %w", errUsage)
	}
	if info, err := os.Stat(*runs); err == nil && !info.IsDir() {
		return fmt.Errorf("claims: -runs %s is not a directory: give the directory the grids were trained into (their -out), e.g. -runs runs: %w", *runs, errUsage)
	}
	paths := fs.Args()
	shipped := len(paths) == 0
	if shipped {
		var err error
		if paths, err = filepath.Glob(filepath.Join(claimsDir, "*.yaml")); err != nil || len(paths) == 0 {
			return fmt.Errorf("claims: no claims files in %s (run from the repository's root, or name the files)", claimsDir)
		}
		sort.Strings(paths)
	}
	files := map[string][]byte{}
	if *export {
		var loaded []*claims.File
		for _, p := range paths {
			f, err := claims.Load(p)
			if err != nil {
				return fmt.Errorf("claims: %w", err)
			}
			loaded = append(loaded, f)
		}
		var index []string // the shipped set's index files, written too
		if shipped {
			index = []string{filepath.Join(claimsDir, "README.md"), filepath.Join(claimsDir, "mathematics.md")}
		}
		if err := claims.CheckExports(loaded, *runs, index); err != nil {
			return fmt.Errorf("claims: %w; nothing was written", err)
		}
		for i, f := range loaded {
			if err := ctx.Err(); err != nil {
				return err
			}
			p := paths[i]
			for _, t := range f.Tables {
				if t.Grid == "" {
					continue
				}
				dir, err := claims.GridDir(*runs, t)
				if err != nil {
					return fmt.Errorf("claims: %s: table %s: %w; nothing was written", p, t.Name, err)
				}
				if _, err := os.Stat(dir); err != nil {
					fmt.Fprintf(stderr, "claims: %s: table %s keeps %s: no grid in %s (train it with `go run ./cmd/train -config %s -out %s -jobs 2`)\n",
						p, t.Name, t.CSV, dir, t.Grid, *runs)
					continue
				}
				csv, err := claims.Export(*runs, t)
				if err != nil {
					return fmt.Errorf("claims: %s: table %s: %w; nothing was written", p, t.Name, err)
				}
				files[t.CSV] = csv
			}
		}
	}
	docs, err := claims.Docs(paths, "go run ./cmd/train claims", files)
	if err != nil {
		return fmt.Errorf("claims: %w; nothing was written", err)
	}
	for _, d := range docs {
		files[d.Path] = d.Content
	}
	if shipped {
		math, verdicts := report.Mathematics()
		mpath := filepath.Join(claimsDir, "mathematics.md")
		files[mpath] = []byte(math)
		counts := map[string]int{}
		for _, v := range verdicts {
			counts[strings.Fields(v)[0]]++
		}
		docs = append([]claims.Doc{{Path: mpath, Title: "The mathematics of the encodings (float64)", Counts: counts}}, docs...)
		index := filepath.Join(claimsDir, "README.md")
		old, err := regfile.ReadFile(index)
		if err != nil {
			return fmt.Errorf("claims: %w; nothing was written", err)
		}
		if files[index], err = claims.WithIndex(string(old), claims.Index(docs, claimsDir), index); err != nil {
			return fmt.Errorf("claims: %w; nothing was written", err)
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := claims.WriteAll(files); err != nil {
		return fmt.Errorf("claims: %w", err)
	}
	printCounts(stdout, docs)
	return nil
}

// printCounts prints each written document's path and its count of verdicts.
func printCounts(stdout io.Writer, docs []claims.Doc) {
	for _, d := range docs {
		c := d.Counts
		fmt.Fprintf(stdout, "%s: %d reproduced, %d contradicted, %d inconclusive, %d untested\n", d.Path, c[claims.Reproduced], c[claims.Contradicted], c[claims.Inconclusive], c[claims.Untested])
	}
}
