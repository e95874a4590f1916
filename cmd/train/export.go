package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/posformer/posformer/export"
	"github.com/posformer/posformer/rundir"
	"github.com/posformer/posformer/train"
)

// runExport is `train export RUN_DIR [-o FILE] [-force]`, flags before or after the directory:
// it writes the run's weights as a safetensors file (docs/export.md).
func runExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	out := fs.String("o", "", "the `file` to write (default RUN_DIR/"+rundir.ExportName+")")
	force := fs.Bool("force", false, "overwrite an existing .safetensors file")
	dir, err := parseDir(fs, args, stderr, "export RUN_DIR [-o FILE] [-force]", "flags before or after RUN_DIR; layout: docs/export.md",
		"give one run directory, e.g. train export runs/default/<run> [-o FILE]")
	if err != nil {
		return err
	}
	if flagSet(fs, "o") && *out == "" { // a written -o is what runs, never the default
		return fmt.Errorf("export: -o: empty; give the file to write, or leave the flag out for RUN_DIR/%s", rundir.ExportName)
	}
	if strings.HasPrefix(*out, "-") { // -o -force: the flag took the next flag as its file
		return fmt.Errorf("export: -o %s looks like a flag, not a file; give the file after -o (./%s if that is its name)", *out, *out)
	}
	path, err := export.Check(dir, *out, *force)
	if err != nil {
		return err
	}
	m, cfg, err := train.LoadModel(dir)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if err := ctx.Err(); err != nil { // a signal while the weights loaded: nothing written
		return err
	}
	if err := export.Write(path, m, cfg); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "exported %s to %s\n", dir, path)
	return nil
}
