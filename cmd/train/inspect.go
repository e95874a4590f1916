package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/posformer/posformer/inspect"
	"github.com/posformer/posformer/report"
)

// DefaultInspectExamples is inspect's default -examples.
const DefaultInspectExamples = 16

// runInspect loads a finished run, runs the first -examples test examples of input length -length
// exactly as its evaluation did, and writes RUN_DIR/inspect/len-L/ (attention heatmaps,
// attention.csv, examples.txt); examples.txt goes to stdout too.
func runInspect(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	length := fs.Int("length", 0, "input `length` L to inspect (required)")
	examples := fs.Int("examples", DefaultInspectExamples, "the first `N` test examples of that length, at most eval.examples (the default is eval.examples if fewer; with eval.examples, exact match is results.csv's)")
	dir, err := parseDir(fs, args, stderr, "inspect RUN_DIR -length L [-examples N]", "flags before or after RUN_DIR",
		"give one run directory, e.g. train inspect runs/default/position.kind-rope__seed-1 -length 12")
	if err != nil {
		return err
	}
	if !flagSet(fs, "length") {
		return fmt.Errorf("inspect: -length is required: the input length to inspect, e.g. -length 12")
	}
	n := *examples
	if !flagSet(fs, "examples") { // the default, within the run's test set
		n = inspect.Examples(dir, DefaultInspectExamples)
	}
	in, err := inspect.Show(ctx, dir, *length, n, stderr)
	if err != nil {
		return err
	}
	dir, files, err := report.WriteInspection(in)
	if err != nil {
		return err
	}
	text, err := report.ExamplesText(in)
	if err != nil {
		return err
	}
	fmt.Fprint(stdout, text)
	fmt.Fprintf(stdout, "\nwrote %s: %v\n", filepath.Clean(dir), files)
	return nil
}

// parseDir parses the flags of `train NAME` (fs's name), before or after its one directory, and
// returns the directory. -h prints "usage: train USAGE   (NOTE)" and the flags; a bad flag, or
// not one directory (oneDir says what to give), is an error that names the command.
func parseDir(fs *flag.FlagSet, args []string, stderr io.Writer, usage, note, oneDir string) (string, error) {
	fs.SetOutput(io.Discard) // errors come back as one line; -h prints the usage
	pos, err := parseInterleaved(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(stderr)
		fmt.Fprintf(stderr, "usage: train %s   (%s)\n", usage, note)
		fs.PrintDefaults()
		return "", err
	}
	if err != nil {
		return "", fmt.Errorf("%s: %w; usage: train %s", fs.Name(), err, usage)
	}
	if len(pos) != 1 {
		return "", fmt.Errorf("%s: %s (got %d arguments)", fs.Name(), oneDir, len(pos))
	}
	return pos[0], nil
}

// parseInterleaved parses flags that may come before, between or after the positional
// arguments (Go's flag package stops at the first positional one) and returns the positionals.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		args = fs.Args()
		if args[0] == "--" { // only positionals follow
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// flagSet tells whether the command line set the flag.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
