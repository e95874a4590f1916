package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/configs"
	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/internal/interrupt"
	"github.com/posformer/posformer/metric"
	"github.com/posformer/posformer/setup"
	"github.com/posformer/posformer/train"
	"golang.org/x/term"
)

const usage = `usage:
  train [-config FILE] [-out DIR] [-set key=value ...] [-jobs N] [-shard i/n] [-force | -resume]
        [-tfevents=false]             train and evaluate a run, or every cell of a grid (a config
                                      with a sweep:) and write its report
  train report DIR                    regenerate the report of a grid or run directory
  train inspect RUN_DIR -length L [-examples N]
                                      a finished run's greedy answers and attention at input
                                      length L: RUN_DIR/inspect/len-L/ (heatmaps, attention.csv,
                                      examples.txt, also printed)
  train claims [-export] [-runs DIR] [FILE...]
                                      judge claims files (default docs/claims/*.yaml) from their
                                      per-seed tables into FILE.md (never trains; -export first
                                      exports each table from its finished grid under -runs,
                                      which it only reads)
  train pe -scheme KIND [-positions N] [-dim D] [...]
                                      print a scheme's table as CSV
  train bench [-schemes LIST] [-eval-lens LIST] [-d-model N] [...]
                                      time training steps and forward passes (BENCH lines)
  train export RUN_DIR [-o FILE] [-force]
                                      write a finished run's weights as a .safetensors file
                                      (default RUN_DIR/model.safetensors; docs/export.md)

With no -config, train runs the embedded default experiment (configs/default.yaml).
Config reference: configs/README.md.
`

// errUsage marks a command-line mistake (the usage is printed with it).
var errUsage = errors.New("bad usage")

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	out := &checkedWriter{w: stdout}
	err := dispatch(ctx, args, out, stderr)
	if err == nil && out.err != nil {
		return fmt.Errorf("writing the output to stdout failed: %w; what was not written is lost (the run directory keeps the results; train report DIR prints a grid's table again)", out.err)
	}
	return err
}

// checkedWriter keeps the first error of its writes (a full disk, a closed pipe): the tables go
// to stdout with fmt.Fprint*, whose errors would be lost, and a table that did not reach its
// reader must not exit 0.
type checkedWriter struct {
	w   io.Writer
	err error
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	if err != nil {
		c.err = err
	}
	return n, err
}

// commands are train's subcommands by name; any other first argument is runTrain's.
var commands = map[string]func(ctx context.Context, args []string, stdout, stderr io.Writer) error{
	"pe": runPE, "report": runReport, "inspect": runInspect, "claims": runClaims, "bench": runBench, "export": runExport,
}

// ownStages are the commands that name their own stages (interrupt.Stage) for a signal's line;
// the others are named by their command line (commandStage).
var ownStages = map[string]bool{"inspect": true}

// commandStage names a command for the line a signal prints: `train export runs/x`, its
// arguments cut short past 120 characters.
func commandStage(args []string) string {
	line := "train " + strings.Join(args, " ")
	if r := []rune(line); len(r) > 120 {
		line = string(r[:119]) + "…"
	}
	return "`" + line + "`"
}

func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		if cmd, ok := commands[args[0]]; ok {
			if !ownStages[args[0]] { // a signal's line names the command it stopped (U6)
				defer interrupt.Stage(ctx, commandStage(args))()
			}
			return cmd(ctx, args[1:], stdout, stderr)
		}
		if slices.Contains([]string{"help", "-h", "-help", "--help"}, args[0]) {
			fmt.Fprint(stdout, usage)
			return nil
		}
	}
	return runTrain(ctx, args, stdout, stderr)
}

// setFlags collects repeated -set flags.
type setFlags []string

func (s *setFlags) String() string     { return strings.Join(*s, " ") }
func (s *setFlags) Set(v string) error { *s = append(*s, v); return nil }

func runTrain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	cfgPath := fs.String("config", "", "YAML config `file` (default: the embedded configs/default.yaml)")
	out := fs.String("out", "", "output `directory` (overrides the config's out; default runs)")
	force := fs.Bool("force", false, "overwrite an existing run or grid directory")
	resume := fs.Bool("resume", false, "continue an existing run (or grid) from its last checkpoint; finished runs are kept")
	jobs := fs.Int("jobs", runtime.NumCPU(), "grid runs to train in parallel")
	shardFlag := fs.String("shard", "", "run only the grid cells i, i+n, i+2n, ... (`i/n`); default: from a Slurm array or Kubernetes Indexed Job environment, else all")
	tfevents := fs.Bool("tfevents", true, "write TensorBoard's event file into each run directory (overrides the config's tfevents; docs/runs.md)")
	var sets setFlags
	fs.Var(&sets, "set", "override a config field: -set model.d_model=128 (repeatable)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q: %w (see train -h)", fs.Arg(0), errUsage)
	}
	for _, f := range []struct{ name, value, fix string }{ // a flag written empty is refused, never a default
		{"out", *out, "give a directory, or leave the flag out for the config's out (default runs)"},
		{"shard", *shardFlag, "give i/n, or leave the flag out to read the shard from the environment (else all cells)"},
		{"config", *cfgPath, "give a file, or leave the flag out for the embedded configs/default.yaml"}} {
		if flagSet(fs, f.name) && f.value == "" {
			return fmt.Errorf("-%s: empty; %s", f.name, f.fix)
		}
	}
	if flagSet(fs, "out") {
		sets = append(sets, "out="+*out)
	}
	if flagSet(fs, "tfevents") {
		sets = append(sets, fmt.Sprintf("tfevents=%t", *tfevents))
	}
	var (
		cfg   config.Config
		cells []config.Cell // expanded once, here
		err   error
	)
	if *cfgPath == "" {
		src, rerr := configs.FS.ReadFile(configs.Default)
		if rerr != nil {
			return rerr
		}
		cfg, cells, err = config.Read(src, "configs/"+configs.Default+" (embedded)", sets)
	} else {
		cfg, cells, err = config.Read(nil, *cfgPath, sets)
	}
	if err != nil {
		return err
	}
	// What needs the model is checked once, before anything is written.
	var (
		checked *setup.Checked
		g       *setup.Grid
	)
	if len(cfg.Sweep) == 0 {
		checked, err = setup.Check(cfg)
	} else {
		g, err = setup.CheckGrid(cfg, cells)
	}
	if err != nil {
		return err
	}
	shard, err := config.ShardFromEnv(os.Getenv)
	if *shardFlag != "" {
		shard, err = config.ParseShard(*shardFlag)
	}
	if err != nil {
		return err
	}
	if g != nil {
		if *jobs < 1 {
			return fmt.Errorf("-jobs must be at least 1, got %d", *jobs)
		}
		if err := g.CheckJobs(*jobs, shard); err != nil {
			return err
		}
	}
	if *force && *resume {
		return fmt.Errorf("-force and -resume contradict each other: -force starts over, -resume continues")
	}
	if g == nil && !shard.Has(0) { // a single run is a grid of one cell, index 0: the other shards have none
		fmt.Fprintf(stderr, "train: %s has nothing to run: the config has no sweep:, so it is one run, which shard 0/%d trains\n", shard, shard.Count)
		return nil
	}
	if err := checkWritable(cfg.OutDir()); err != nil {
		return err
	}
	if g != nil {
		return trainGrid(ctx, g, cells, *jobs, *force, *resume, shard, stdout, stderr)
	}
	for _, w := range checked.Warnings() {
		fmt.Fprintf(stderr, "train: warning: %s\n", w)
	}
	limitMemory(checked.Memory.Peak)
	res, err := train.Train(ctx, checked, train.Options{Progress: stderr, TTY: isTerminal(stderr), Force: *force, Resume: *resume})
	if err != nil {
		return err
	}
	printTable(stdout, res)
	return nil
}

// limitMemory sets the Go runtime's soft memory limit to the runs' predicted peak memory
// (setup.Memory), unless GOMEMLIMIT sets one: the collector then frees garbage before the process
// outgrows the prediction rather than when its heap has doubled.
func limitMemory(peak int64) {
	if os.Getenv("GOMEMLIMIT") == "" && peak > 0 {
		debug.SetMemoryLimit(peak)
	}
}

// checkWritable makes sure the output directory exists and takes files before any training,
// so a bad -out fails at once with one line rather than after the first checkpoint.
func checkWritable(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot create the output directory %s: %w; choose a writable -out", dir, err)
	}
	f, err := os.CreateTemp(dir, ".posformer-write-check*")
	if err != nil {
		return fmt.Errorf("the output directory %s is not writable: %w; choose a writable -out", dir, err)
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func fmtScore(x float64) string {
	if math.IsNaN(x) {
		return "  -  "
	}
	return fmt.Sprintf("%.3f", x)
}

// printTable writes the accuracy-by-length table and the in/beyond-range summary.
func printTable(w io.Writer, r *train.Result) {
	steps := fmt.Sprintf("%d steps", r.Steps)
	if r.StopStep > 0 && r.StopStep < r.Steps {
		steps = fmt.Sprintf("%d of %d steps (stopped early; the results are step %d's weights, the best validation)", r.StopStep, r.Steps, r.BestStep)
	}
	fmt.Fprintf(w, "%s · %s · seed %d · trained on lengths %d..%d for %s (%.1f s, %.0f tok/s), %d parameters\n\n",
		r.Task, r.Scheme, r.Seed, r.MinLen, r.MaxLen, steps, r.TrainSeconds, r.TokensPerSec, r.Params)
	if traits := data.TraitsOf(r.Task); traits.Windows { // scored per context, by bits per byte
		fmt.Fprintf(w, "%7s  %-6s  %13s  %13s  %10s  %11s\n", "context", "range", "bits/byte", "sliding", "next byte", "predictions")
		for _, l := range r.Lengths {
			rng := map[bool]string{true: "in", false: "beyond"}[l.InRange]
			fmt.Fprintf(w, "%7d  %-6s  %13.4f  %13.4f  %10.3f  %11d\n", l.Length, rng, l.Score(metric.BitsPerByte), l.Score(metric.SlidingBitsPerByte), l.Score(metric.TokenAccuracy), l.N)
		}
		fmt.Fprintf(w, "run directory: %s (per length: %s)\n", r.Dir, traits.ScoresFile)
		return
	}
	fmt.Fprintf(w, "%6s  %-6s  %5s  %5s  %4s\n", "length", "range", "exact", "token", "n")
	for _, l := range r.Lengths {
		rng := "beyond"
		if l.InRange {
			rng = "in"
		} else if l.Length < r.MinLen {
			rng = "below"
		}
		fmt.Fprintf(w, "%6d  %-6s  %5.3f  %5.3f  %4d\n", l.Length, rng, l.Score(metric.ExactMatch), l.Score(metric.TokenAccuracy), l.N)
	}
	inE, beyondE := r.Summary(metric.ExactMatch)
	inT, beyondT := r.Summary(metric.TokenAccuracy)
	fmt.Fprintf(w, "\nin range (%d..%d): exact match %s, token accuracy %s\n", r.MinLen, r.MaxLen, fmtScore(inE), fmtScore(inT))
	fmt.Fprintf(w, "beyond (> %d):     exact match %s, token accuracy %s\n", r.MaxLen, fmtScore(beyondE), fmtScore(beyondT))
	fmt.Fprintf(w, "run directory: %s\n", r.Dir)
}
