package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary act as the CLI in a child process (POSFORMER_AS_CLI=1), so the
// tests can kill a real process mid-run.
func TestMain(m *testing.M) {
	if os.Getenv("POSFORMER_AS_CLI") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

const resumeConfig = `
task: {name: copy, min_len: 1, max_len: 6}
model: {d_model: 16, heads: 2, layers: 1, d_ff: 32}
position: {kind: rope}
train: {steps: 1500, batch_size: 8, lr: 0.003, checkpoint_every: 40, log_every: 10, val_every: 100}
eval: {lengths: "1..12", examples: 32}
`

func writeConfig(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "cfg.yaml")
	if err := os.WriteFile(path, []byte(resumeConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func child(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "POSFORMER_AS_CLI=1")
	return cmd
}

// metricLines counts the lines of a run's metrics.jsonl.
func metricLines(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		n++
	}
	return n
}

// deterministicMetrics is metrics.jsonl without the wall-clock fields.
func deterministicMetrics(t *testing.T, path string) string {
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, line := range bytes.Split(bytes.TrimSpace(src), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		delete(m, "tokens_per_second")
		delete(m, "elapsed_seconds")
		b, _ := json.Marshal(m)
		out.Write(append(b, '\n'))
	}
	return out.String()
}

func sameRun(t *testing.T, a, b string) {
	t.Helper()
	for _, f := range []string{"results.json", "results.csv", "checkpoint.bin"} { // config.yaml differs by its out: path
		x, err1 := os.ReadFile(filepath.Join(a, f))
		y, err2 := os.ReadFile(filepath.Join(b, f))
		if err1 != nil || err2 != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs between the uninterrupted and the resumed run (%v, %v)", f, err1, err2)
		}
	}
	if x, y := deterministicMetrics(t, filepath.Join(a, "metrics.jsonl")), deterministicMetrics(t, filepath.Join(b, "metrics.jsonl")); x != y {
		t.Errorf("metrics.jsonl differs:\n%s\nvs\n%s", x, y)
	}
}

// waitFor polls until cond holds or the deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestKillAndResume kills a real training process with SIGKILL in the middle of its run, resumes
// it with -resume, and checks that it ends bit-identical to a run that was never interrupted.
func TestKillAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three training processes")
	}
	cfg := writeConfig(t)
	base := t.TempDir()
	if err := run(context.Background(), []string{"-config", cfg, "-out", filepath.Join(base, "clean")}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	killed := filepath.Join(base, "killed")
	runDir := filepath.Join(killed, "copy_rope_s1")
	cmd := child("-config", cfg, "-out", killed)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill it well after a checkpoint (every 40 steps) and well before the end (1500 steps).
	waitFor(t, "the child to pass step 500", func() bool { return metricLines(filepath.Join(runDir, "metrics.jsonl")) >= 50 })
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	lines := metricLines(filepath.Join(runDir, "metrics.jsonl"))
	if _, err := os.Stat(filepath.Join(runDir, "results.json")); err == nil || lines >= 150 {
		t.Fatalf("the child finished before it was killed (%d metrics lines): make the run longer", lines)
	}
	t.Logf("killed at about step %d of 1500", 10*lines)

	// Without -resume the directory is refused, never overwritten.
	err := run(context.Background(), []string{"-config", cfg, "-out", killed}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "-resume") {
		t.Fatalf("re-running without -resume: %v; want a refusal that mentions -resume", err)
	}
	if err := run(context.Background(), []string{"-config", cfg, "-out", killed, "-resume"}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	sameRun(t, filepath.Join(base, "clean", "copy_rope_s1"), runDir)

	// Resuming a finished run changes nothing.
	before, _ := os.ReadFile(filepath.Join(runDir, "checkpoint.bin"))
	if err := run(context.Background(), []string{"-config", cfg, "-out", killed, "-resume"}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(filepath.Join(runDir, "checkpoint.bin"))
	if !bytes.Equal(before, after) {
		t.Error("resuming a finished run rewrote its checkpoint")
	}
}

// TestInterruptSavesCheckpoint sends SIGINT: the process saves a checkpoint, says how to resume,
// and exits with status 130; the resumed run equals an uninterrupted one.
func TestInterruptSavesCheckpoint(t *testing.T) {
	if testing.Short() {
		t.Skip("runs training processes")
	}
	cfg := writeConfig(t)
	base := t.TempDir()
	if err := run(context.Background(), []string{"-config", cfg, "-out", filepath.Join(base, "clean")}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(base, "int")
	runDir := filepath.Join(out, "copy_rope_s1")
	cmd := child("-config", cfg, "-out", out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the child to pass step 300", func() bool { return metricLines(filepath.Join(runDir, "metrics.jsonl")) >= 30 })
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit: %v; want status 130 (stderr: %s)", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "-resume") || !strings.Contains(stderr.String(), "checkpoint saved") {
		t.Fatalf("stderr does not say how to resume:\n%s", stderr.String())
	}
	if err := run(context.Background(), []string{"-config", cfg, "-out", out, "-resume"}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	sameRun(t, filepath.Join(base, "clean", "copy_rope_s1"), runDir)
}
