package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/inspect"
	"github.com/posformer/posformer/rundir"
	"github.com/posformer/posformer/train"
)

// TestSetErrorBlamesSet: a bad value given with -set is blamed on -set, not on the config file
// that never wrote it, also when the error's path lies below the -set key (eval.variants[0].when
// inside -set eval.variants=[...]); through the loader, the CLI and a real process.
func TestSetErrorBlamesSet(t *testing.T) {
	cfg := writeFile(t, filepath.Join(t.TempDir(), "tiny.yaml"), tinyConfig)
	const variants = "eval.variants=[{name: a, when: [position.kind=ropee], rope_scaling: ntk}]"
	for _, c := range []struct{ set, want string }{
		{"train.lr=-1", "-set train.lr=-1: train.lr: must be a positive number, got -1"},
		{variants, "-set " + variants + ": eval.variants[0].when: "},
	} {
		if _, _, err := config.Read(nil, cfg, []string{c.set}); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("loader: %v; want %q", err, c.want)
		}
		if err := runCaught("-config", cfg, "-set", c.set, "-out", t.TempDir()); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("CLI: %v; want %q", err, c.want)
		}
		_, stderr, code := runChild(t, "-config", cfg, "-set", c.set, "-out", t.TempDir())
		oneLineError(t, "-set "+c.set, stderr, code, "train: "+c.want)
		if strings.Contains(stderr, "tiny.yaml") {
			t.Errorf("the error blames the file: %s", stderr)
		}
	}
}

// TestEarlyStoppedSays: a run that early stopping ends says for how many of its steps it trained
// and which step's weights its results are, not "for 3000 steps".
func TestEarlyStoppedSays(t *testing.T) {
	base := t.TempDir()
	cfg := writeFile(t, filepath.Join(base, "cfg.yaml"), strings.Replace(tinyConfig, "checkpoint_every: 5}", "checkpoint_every: 5, val_every: 5, log_every: 5, early_stop: {metric: exact_match, patience: 1, target: 0.0001}}", 1)+"\n")
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-config", cfg, "-out", filepath.Join(base, "a")}, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	first := strings.SplitN(out.String(), "\n", 2)[0]
	res, err := train.ReadResult(filepath.Join(base, "a", "copy_rope_s1"))
	if err != nil || res.StopStep >= res.Steps {
		t.Fatalf("the run did not stop early (%v): %+v", err, res)
	}
	if strings.Contains(first, "for 20 steps") || !strings.Contains(first, "of 20 steps (stopped early") {
		t.Errorf("the table's first line %q does not say the run stopped early", first)
	}
	o, _, code := runChild(t, "-config", cfg, "-out", filepath.Join(base, "b"))
	if code != 0 || !strings.Contains(o, "of 20 steps (stopped early") {
		t.Errorf("process: exit %d, stdout:\n%s", code, o)
	}
}

// TestExportAdviceDoesNotLoop: a finished run whose checkpoint is gone is not told to -resume
// (which keeps a finished run as it is) but to train it again; and after a re-evaluation
// (-resume with another rope_scaling) an earlier export is written again with the new config,
// not left with the old one's metadata.
func TestExportAdviceDoesNotLoop(t *testing.T) {
	cfg, out, dir := trainedTiny(t, tinyConfig)
	if err := runCaught("export", dir); err != nil {
		t.Fatal(err)
	}
	if err := runCaught("-config", cfg, "-out", out, "-resume", "-set", "position.rope_scaling=ntk"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, rundir.ExportName))
	if err != nil || !bytes.Contains(b, []byte(`rope_scaling\":\"ntk`)) {
		t.Errorf("after the re-evaluation the export does not carry rope_scaling ntk (%v)", err)
	}
	os.Remove(filepath.Join(dir, "checkpoint.bin"))
	os.Remove(filepath.Join(dir, rundir.ExportName))
	err = runCaught("export", dir)
	if err == nil || strings.Contains(err.Error(), "-resume to continue") || !strings.Contains(err.Error(), "train it again") {
		t.Errorf("export of a finished run without its checkpoint: %v", err)
	}
	_, stderr, code := runChild(t, "export", dir)
	oneLineError(t, "export without a checkpoint", stderr, code, "has no checkpoint.bin", "train it again (the command that trained it, with -force; for a run of a grid, delete")
}

// TestExportIntoAnotherRun: export -o naming a file in another run's directory is refused (the
// file would pass for that run's model), with or without -force; a file outside run
// directories, or in the run's own, is written.
func TestExportIntoAnotherRun(t *testing.T) {
	base := t.TempDir()
	cfg := writeFile(t, filepath.Join(base, "cfg.yaml"), strings.Replace(tinyConfig, "steps: 20", "steps: 4", 1))
	out := filepath.Join(base, "out")
	for _, seed := range []string{"1", "2"} {
		if err := runCaught("-config", cfg, "-out", out, "-set", "seed="+seed); err != nil {
			t.Fatal(err)
		}
	}
	a, b := filepath.Join(out, "copy_rope_s1"), filepath.Join(out, "copy_rope_s2")
	target := filepath.Join(b, rundir.ExportName)
	for _, force := range [][]string{nil, {"-force"}} {
		args := append([]string{"export", a, "-o", target}, force...)
		if err := runCaught(args...); err == nil || !strings.Contains(err.Error(), "is in another run's directory") {
			t.Errorf("%v: %v", args, err)
		}
		_, stderr, code := runChild(t, args...)
		oneLineError(t, strings.Join(args, " "), stderr, code, "is in another run's directory", "choose -o outside it")
	}
	if _, err := os.Stat(target); err == nil {
		t.Error("export wrote run 1's model into run 2's directory")
	}
	for _, o := range []string{filepath.Join(base, "m.safetensors"), filepath.Join(a, "own.safetensors")} {
		if err := runCaught("export", a, "-o", o); err != nil {
			t.Errorf("export -o %s: %v", o, err)
		}
	}
}

// TestInspectSaysWhatItDoes: inspect prints, before the forward passes, the memory it predicts
// for the length and examples, then a line at each stage (at long lengths each takes minutes);
// through the library's log (inspect.Show), the CLI and a real process.
func TestInspectSaysWhatItDoes(t *testing.T) {
	_, _, dir := trainedTiny(t, tinyConfig)
	wants := []string{"inspect: length 6 (12 tokens), 2 examples: predicted peak memory ", "inspect: evaluating the 2 examples", "inspect: measuring the attention of the 2 examples"}
	var log bytes.Buffer
	if _, err := inspect.Show(context.Background(), dir, 6, 2, &log); err != nil {
		t.Fatal(err)
	}
	var cli bytes.Buffer
	if err := run(context.Background(), []string{"inspect", dir, "-length", "6", "-examples", "2"}, io.Discard, &cli); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runChild(t, "inspect", dir, "-length", "6", "-examples", "2")
	for what, got := range map[string]string{"library": log.String(), "CLI": cli.String(), "process": stderr} {
		for _, w := range wants {
			if !strings.Contains(got, w) {
				t.Errorf("%s: the log does not say %q:\n%s", what, w, got)
			}
		}
	}
	if code != 0 {
		t.Errorf("process: exit %d", code)
	}
}

// TestSingleLengthPlotted: a run tested at a single length draws its score as a dot in the
// exact-match plot (a line of one point draws nothing, and the plot was empty).
func TestSingleLengthPlotted(t *testing.T) {
	base := t.TempDir()
	cfg := writeFile(t, filepath.Join(base, "cfg.yaml"), strings.Replace(tinyConfig, `lengths: "1..8"`, `lengths: "8"`, 1))
	out := filepath.Join(base, "out")
	if err := runCaught("-config", cfg, "-out", out); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(out, "copy_rope_s1")
	_, stderr, code := runChild(t, "report", dir)
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	svg, err := os.ReadFile(filepath.Join(dir, "report", "exact_vs_length_copy.svg"))
	if err != nil || !strings.Contains(string(svg), "A3,3 0 1 1") {
		t.Errorf("the plot of a single tested length draws no dot (%v)", err)
	}
}

// trainedTiny trains the config src (tinyConfig or a variant of it: copy · rope, seed 1) in a
// new temporary directory and returns its config file, -out directory and run directory.
func trainedTiny(t *testing.T, src string) (cfg, out, dir string) {
	t.Helper()
	base := t.TempDir()
	cfg = writeFile(t, filepath.Join(base, "cfg.yaml"), src)
	out = filepath.Join(base, "out")
	if err := runCaught("-config", cfg, "-out", out); err != nil {
		t.Fatal(err)
	}
	return cfg, out, filepath.Join(out, "copy_rope_s1")
}
