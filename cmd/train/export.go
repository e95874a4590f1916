package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/posformer/posformer/train"
)

// runExport is `train export RUN_DIR [-o FILE] [-force]`, flags before or after the directory:
// it writes the run's weights as a safetensors file (docs/export.md).
func runExport(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: train export RUN_DIR [-o FILE] [-force]   (layout: docs/export.md)")
		fs.PrintDefaults()
	}
	out := fs.String("o", "", "the `file` to write (default RUN_DIR/"+train.ExportName+")")
	force := fs.Bool("force", false, "overwrite an existing .safetensors file")
	dirs, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(dirs) != 1 {
		return fmt.Errorf("export: give one run directory, e.g. train export runs/default/<run> [-o FILE] (got %d arguments)", len(dirs))
	}
	path, err := train.Export(dirs[0], *out, *force)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "exported %s to %s\n", dirs[0], path)
	return nil
}

// parseInterleaved parses flags wherever they stand among the positional arguments (the flag
// package stops at the first positional one) and returns the positional ones in order.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}
