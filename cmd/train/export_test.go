package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// exportDir holds the bad uses of `train export` and their golden errors (export/testdata;
// cases.txt describes the fixture, which exportFixture builds).
var exportDir = filepath.Join("..", "..", "export", "testdata")

type exportCase struct {
	name string
	args []string
}

func exportCases(t *testing.T, tmp string) []exportCase {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(exportDir, "cases.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var cs []exportCase
	for _, line := range strings.Split(string(b), "\n") {
		name, args, ok := strings.Cut(line, "\t")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		cs = append(cs, exportCase{name, strings.Fields(strings.ReplaceAll(args, "$TMP", tmp))})
	}
	if len(cs) < 10 {
		t.Fatalf("only %d export cases", len(cs))
	}
	return cs
}

// exportFixture trains a tiny run with the CLI and lays out tmp as cases.txt describes.
func exportFixture(t *testing.T, tmp string) {
	t.Helper()
	cfg := writeFile(t, filepath.Join(tmp, "cfg.yaml"), tinyConfig)
	if err := run(context.Background(), []string{"-config", cfg, "-out", filepath.Join(tmp, "out"), "-set", "train.steps=3",
		"-set", "eval.lengths=1..2", "-set", "eval.examples=2"}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(tmp, "out", "copy_rope_s1"), filepath.Join(tmp, "run")); err != nil {
		t.Fatal(err)
	}
	for dir, drop := range map[string]string{"nockpt": "checkpoint.bin", "unfinished": "results.json"} {
		if err := os.CopyFS(filepath.Join(tmp, dir), os.DirFS(filepath.Join(tmp, "run"))); err != nil {
			t.Fatal(err)
		}
		os.Remove(filepath.Join(tmp, dir, drop))
	}
	for _, d := range []string{"grid", "empty", "run/eval-ntk"} { // run/eval-ntk: an evaluation variant's directory
		os.Mkdir(filepath.Join(tmp, d), 0o755)
	}
	for _, f := range []string{"grid/grid.yaml", "file", "existing.safetensors"} {
		writeFile(t, filepath.Join(tmp, f), "x\n")
	}
}

// TestExportCLI: `train export` writes RUN_DIR/model.safetensors and says so; flags go before
// or after the directory; every bad use of cases.txt fails through the CLI's entry point and as
// a real process (exit status 1, nothing on stdout) with its golden line; a usage mistake (no
// directory, two) fails with one line too.
func TestExportCLI(t *testing.T) {
	tmp := t.TempDir()
	exportFixture(t, tmp)
	runDir := filepath.Join(tmp, "run")
	var out bytes.Buffer
	if err := run(context.Background(), []string{"export", runDir}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	written := filepath.Join(runDir, "model.safetensors")
	if out.String() != "exported "+runDir+" to "+written+"\n" {
		t.Errorf("stdout %q", out.String())
	}
	first, err := os.ReadFile(written)
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(tmp, "other.safetensors")
	if err := run(context.Background(), []string{"export", "-force", "-o", other, runDir}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(other); !bytes.Equal(b, first) {
		t.Error("-o wrote another file than the default export")
	}
	if err := run(context.Background(), []string{"export", runDir, "-o", other, "-force"}, io.Discard, io.Discard); err != nil {
		t.Fatalf("-force after the directory: %v", err)
	}
	os.Remove(written)

	for _, c := range exportCases(t, tmp) {
		t.Run(c.name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(exportDir, c.name+".golden"))
			if err != nil {
				t.Fatal(err)
			}
			err = runCaught(append([]string{"export"}, c.args...)...)
			if err == nil {
				t.Fatal("accepted")
			}
			if msg := strings.ReplaceAll(err.Error(), tmp, "$TMP"); msg+"\n" != string(want) {
				t.Errorf("CLI got:  %s\nwant: %s", msg, want)
			}
			stdout, stderr, code := runChild(t, append([]string{"export"}, c.args...)...)
			if code != 1 || stdout != "" || strings.ReplaceAll(stderr, tmp, "$TMP") != "train: "+string(want) {
				t.Errorf("process: exit %d, stdout %q, stderr %q; want exit 1 and stderr %q", code, stdout, stderr, "train: "+string(want))
			}
		})
	}
	if b, _ := os.ReadFile(filepath.Join(tmp, "existing.safetensors")); string(b) != "x\n" {
		t.Error("an existing export was overwritten without -force")
	}
	if _, err := os.Stat(written); err == nil {
		t.Error("a refused export wrote the run's model.safetensors")
	}
	_, stderr, code := runChild(t, "export")
	oneLineError(t, "no directory", stderr, code, "give one run directory")
	_, stderr, code = runChild(t, "export", runDir, runDir)
	oneLineError(t, "two directories", stderr, code, "give one run directory", "got 2")
	_, stderr, code = runChild(t, "export", runDir, "-x")
	oneLineError(t, "an unknown flag", stderr, code, "export: flag provided but not defined: -x", "usage: train export RUN_DIR")
	_, stderr, code = runChild(t, "export", runDir, "-o", "")
	oneLineError(t, "an empty -o", stderr, code, "export: -o: empty; give the file to write, or leave the flag out for RUN_DIR/model.safetensors")
	if _, err := os.Stat(written); err == nil {
		t.Error("an empty -o wrote the run's model.safetensors")
	}
	_, stderr, code = runChild(t, "export", runDir, "-o", "-force")
	oneLineError(t, "-o followed by a flag", stderr, code, "export: -o -force looks like a flag, not a file; give the file after -o (./-force if that is its name)")
	if _, err := os.Stat("-force"); err == nil {
		t.Error("-o -force wrote a file named -force")
	}
}
