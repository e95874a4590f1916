package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/posformer/posformer/data"
)

// runChildWithin is runChild that fails the test when the child is still running after limit
// (a hang: the child is killed), rather than hang the suite.
func runChildWithin(t *testing.T, limit time.Duration, args ...string) (stderr string, code int) {
	t.Helper()
	cmd := child(args...)
	var e bytes.Buffer
	cmd.Stderr = &e
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(limit, func() { cmd.Process.Kill() })
	defer timer.Stop()
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); ok {
		if ee.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL {
			t.Fatalf("%v still ran after %v (killed):\n%s", args, limit, e.String())
		}
		code = ee.ExitCode()
	}
	return e.String(), code
}

// TestSpecialFilesRefused: every file the CLI reads (the config, a run's checkpoint for inspect
// and export, its results and metrics.jsonl for report, a grid's grid.yaml on -resume, the
// document claims replaces) that is a FIFO with no writer, a directory or a device is refused at
// once with one line naming the path and what it is, through the CLI and a real process; before,
// a FIFO blocked the process forever.
func TestSpecialFilesRefused(t *testing.T) {
	base := t.TempDir()
	fifo := filepath.Join(base, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(base, "dir.yaml")
	os.Mkdir(dir, 0o755)
	for path, what := range map[string]string{fifo: "is a named pipe (FIFO), not a regular file", dir: "is a directory, not a regular file", "/dev/null": "is a character device, not a regular file"} {
		err := runCaught("-config", path, "-out", filepath.Join(base, "out"))
		if err == nil || !strings.Contains(err.Error(), path+" "+what) || strings.Contains(err.Error(), "\n") {
			t.Errorf("-config %s: %v", path, err)
		}
		stderr, code := runChildWithin(t, 20*time.Second, "-config", path, "-out", filepath.Join(base, "out"))
		oneLineError(t, "-config "+path, stderr, code, "cannot read the config", path+" "+what, "give the path of a file")
	}

	cfg, out, run := trainedTiny(t, tinyConfig)
	for _, c := range []struct {
		file string
		args []string
	}{
		{"checkpoint.bin", []string{"inspect", run, "-length", "2"}},
		{"checkpoint.bin", []string{"export", run, "-o", filepath.Join(base, "m.safetensors")}},
		{"checkpoint.bin", []string{"-config", cfg, "-out", out, "-resume", "-set", "eval.lengths=1..6"}},
		{"results.json", []string{"report", run}},
		{"metrics.jsonl", []string{"report", run}},
	} {
		path := filepath.Join(run, c.file)
		keep := path + ".keep"
		if err := os.Rename(path, keep); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Fatal(err)
		}
		stderr, code := runChildWithin(t, 20*time.Second, c.args...)
		oneLineError(t, strings.Join(c.args[:1], " ")+" with a FIFO as "+c.file, stderr, code, path+" is a named pipe (FIFO), not a regular file")
		os.Remove(path)
		if err := os.Rename(keep, path); err != nil {
			t.Fatal(err)
		}
	}

	// an lm config whose task.corpus is a FIFO
	stderr, code := runChildWithin(t, 20*time.Second, "-config", writeFile(t, filepath.Join(base, "lm.yaml"), lmCorpusConfig(fifo)), "-out", filepath.Join(base, "out"))
	oneLineError(t, "a FIFO as task.corpus", stderr, code, "task.corpus: "+fifo+" is a named pipe (FIFO), not a regular file")

	// a claims file whose document is a FIFO
	src := filepath.Join("..", "..", "claims", "testdata")
	for _, f := range []string{"handwritten/README.yaml", "tiny.csv"} {
		b, _ := os.ReadFile(filepath.Join(src, f))
		os.WriteFile(filepath.Join(base, filepath.Base(f)), b, 0o644)
	}
	doc := filepath.Join(base, "README.md")
	if err := syscall.Mkfifo(doc, 0o644); err != nil {
		t.Fatal(err)
	}
	stderr, code = runChildWithin(t, 20*time.Second, "claims", filepath.Join(base, "README.yaml"))
	oneLineError(t, "claims with a FIFO as its document", stderr, code, doc+" is a named pipe (FIFO), not a regular file")
}

// lmCorpusConfig is a small lm config reading the corpus at path (pinned to the built-in hash).
func lmCorpusConfig(path string) string {
	return "task: {name: lm, max_len: 16, corpus: " + path + ", corpus_sha256: " + data.BuiltinCorpusSHA256 + "}\n"
}

// TestSignalEndsAnyStage: SIGTERM and SIGINT end a stage that does not watch for them (a long
// inspect, whose forward pass at length 1500 runs a minute and more) at once, with status 130 and
// one line saying what to do; training's own handling (a checkpoint saved) is
// TestInterruptSavesCheckpoint's.
func TestSignalEndsAnyStage(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	_, _, run := trainedTiny(t, tinyConfig)
	for _, sig := range []os.Signal{syscall.SIGTERM, os.Interrupt} {
		cmd := child("inspect", run, "-length", "1500", "-examples", "1")
		var e bytes.Buffer
		cmd.Stderr = &e
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second) // into the forward pass
		sent := time.Now()
		cmd.Process.Signal(sig)
		timer := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
		err := cmd.Wait()
		timer.Stop()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 130 {
			t.Fatalf("%v: %v after %v; want exit status 130 (stderr %q)", sig, err, time.Since(sent), e.String())
		}
		lines := strings.Split(strings.TrimSpace(e.String()), "\n")
		if last := lines[len(lines)-1]; !strings.HasPrefix(last, "train: interrupted by SIG") || !strings.Contains(last, "run the same command again") {
			t.Errorf("%v: the last line %q does not say it was interrupted and what to do", sig, last)
		}
		if _, err := os.Stat(filepath.Join(run, "inspect", "len-1500", "examples.txt")); err == nil {
			t.Errorf("%v: inspect finished before the signal", sig)
		}
	}
}

// bigExport is a model whose export takes seconds (6.3 M parameters; at 1.6 M an idle machine
// exported it within 450 ms, before the signal came).
const bigExport = `
task: {name: copy, min_len: 1, max_len: 4}
model: {d_model: 512, heads: 4, layers: 2, d_ff: 2048}
position: {kind: rope}
train: {steps: 1, batch_size: 2}
eval: {lengths: "1..2", examples: 1}
`

// TestSignalEndsExport: SIGTERM early in the export of a larger model ends it at once with
// status 130 and one line naming the command it stopped (U6), and no model.safetensors is
// written (issue 35 point 10: the file was written and the command exited 0).
func TestSignalEndsExport(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	base := t.TempDir()
	cfg := writeFile(t, filepath.Join(base, "cfg.yaml"), bigExport)
	if err := runCaught("-config", cfg, "-out", base); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(base, "copy_rope_s1")
	for _, delay := range []time.Duration{100 * time.Millisecond, 300 * time.Millisecond} {
		cmd := child("export", run)
		var e bytes.Buffer
		cmd.Stderr = &e
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(delay)
		sent := time.Now()
		cmd.Process.Signal(syscall.SIGTERM)
		err := cmd.Wait()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 130 || strings.Count(e.String(), "\n") != 1 || !strings.Contains(e.String(), "interrupted by SIGTERM in `train export "+run+"`;") {
			t.Fatalf("SIGTERM %v into export: %v after %v; want exit status 130 and one line (stderr %q)", delay, err, time.Since(sent), e.String())
		}
		if _, err := os.Stat(filepath.Join(run, "model.safetensors")); err == nil {
			t.Fatalf("SIGTERM %v into export: model.safetensors was written", delay)
		}
	}
}
