package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/posformer/posformer/rundir"
)

// TestMain lets the test binary act as the CLI in a child process (POSFORMER_AS_CLI=1), so the
// tests can kill a real process mid-run.
func TestMain(m *testing.M) {
	if os.Getenv("POSFORMER_AS_CLI") == "1" {
		main()
		if os.Getenv("POSFORMER_PRINT_HWM") == "1" {
			printHWM(os.Stderr)
		}
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
	// Kill it well after a checkpoint (every 40 steps) and well before the end (1500 steps), at
	// whatever it is doing then (a step, a metrics line, a checkpoint half-written).
	kill := func(cmd *exec.Cmd, minLines int) {
		t.Helper()
		waitFor(t, fmt.Sprintf("the child to pass step %d", 10*minLines), func() bool { return metricLines(filepath.Join(runDir, "metrics.jsonl")) >= minLines })
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		lines := metricLines(filepath.Join(runDir, "metrics.jsonl"))
		if _, err := os.Stat(filepath.Join(runDir, "results.json")); err == nil || lines >= 150 {
			t.Fatalf("the child finished before it was killed (%d metrics lines): make the run longer", lines)
		}
		t.Logf("killed at about step %d of 1500", 10*lines)
	}
	kill(cmd, 50)
	// Resumed in a second process, it is killed again further on.
	again := child("-config", cfg, "-out", killed, "-resume")
	if err := again.Start(); err != nil {
		t.Fatal(err)
	}
	kill(again, 90)

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

// TestInterruptSavesCheckpoint sends SIGINT, then (to another run) SIGTERM: the process saves a
// checkpoint, says how to resume, and exits with status 130; each resumed run equals an
// uninterrupted one, bit for bit.
func TestInterruptSavesCheckpoint(t *testing.T) {
	if testing.Short() {
		t.Skip("runs training processes")
	}
	cfg := writeConfig(t)
	base := t.TempDir()
	if err := run(context.Background(), []string{"-config", cfg, "-out", filepath.Join(base, "clean")}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		out := filepath.Join(base, sig.String())
		runDir := filepath.Join(out, "copy_rope_s1")
		cmd := child("-config", cfg, "-out", out)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the child to pass step 300", func() bool { return metricLines(filepath.Join(runDir, "metrics.jsonl")) >= 30 })
		cmd.Process.Signal(sig)
		err := cmd.Wait()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 130 {
			t.Fatalf("%v: exit %v; want status 130 (stderr: %s)", sig, err, stderr.String())
		}
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		last := lines[len(lines)-1]
		if !strings.HasPrefix(last, "train: interrupted at step ") || !strings.Contains(last, "-resume") || !strings.Contains(last, "checkpoint saved") {
			t.Fatalf("%v: the last line of stderr does not say where it stopped and how to resume:\n%s", sig, stderr.String())
		}
		if _, err := os.Stat(filepath.Join(runDir, "results.json")); err == nil {
			t.Fatalf("%v: the child finished before the signal: make the run longer", sig)
		}
		var step int
		fmt.Sscanf(strings.TrimPrefix(last, "train: interrupted at step "), "%d", &step)
		ck, err := loadRunModel(runDir)
		if err != nil {
			t.Fatalf("%v: the checkpoint does not load: %v", sig, err)
		}
		if got, finite := ck(); got != step || !finite {
			t.Fatalf("%v: the checkpoint holds step %d (finite %v); the message says step %d", sig, got, finite, step)
		}
		t.Logf("%v at step %d", sig, step)
		if err := run(context.Background(), []string{"-config", cfg, "-out", out, "-resume"}, io.Discard, io.Discard); err != nil {
			t.Fatal(err)
		}
		sameRun(t, filepath.Join(base, "clean", "copy_rope_s1"), runDir)
	}
}

const resumeGrid = `
name: g
task: {name: copy, min_len: 1, max_len: 4}
model: {d_model: 16, heads: 2, layers: 1, d_ff: 32}
position: {kind: rope}
train: {steps: 1500, batch_size: 4, checkpoint_every: 40, val_every: 0}
eval: {examples: 16}
sweep:
  seed: [1, 2]
`

// TestGridResume kills a grid process while its second run trains. Re-running the grid without
// -resume is refused; with -resume the finished run is kept as it was (not trained again), the
// partial one continues from its checkpoint, and every result and the report equal those of a
// grid that was never interrupted. (The grid leaves eval.lengths unset: its grid.yaml must
// still read back.)
func TestGridResume(t *testing.T) {
	if testing.Short() {
		t.Skip("runs training processes")
	}
	base := t.TempDir()
	cfg := writeFile(t, filepath.Join(base, "grid.yaml"), resumeGrid)
	clean, killed := filepath.Join(base, "clean"), filepath.Join(base, "killed")
	if err := run(context.Background(), []string{"-config", cfg, "-out", clean, "-jobs", "1"}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	g := filepath.Join(killed, "g")
	first, second := filepath.Join(g, "seed-1"), filepath.Join(g, "seed-2")
	cmd := child("-config", cfg, "-out", killed, "-jobs", "1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the second run to pass step 200", func() bool { return metricLines(filepath.Join(second, "metrics.jsonl")) >= 20 })
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if _, err := os.Stat(filepath.Join(second, "results.json")); err == nil {
		t.Fatal("the second run finished before the kill: make it longer")
	}
	if _, err := os.Stat(filepath.Join(first, "results.json")); err != nil {
		t.Fatalf("the first run did not finish before the kill: %v", err)
	}

	err := run(context.Background(), []string{"-config", cfg, "-out", killed, "-jobs", "1"}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "-resume") || !strings.Contains(err.Error(), "-force") {
		t.Fatalf("re-running the grid without -resume: %v; want a refusal naming -resume and -force", err)
	}
	st1, _ := os.Stat(filepath.Join(first, "results.json"))
	ck1, _ := os.ReadFile(filepath.Join(first, "checkpoint.bin"))
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-config", cfg, "-out", killed, "-jobs", "1", "-resume"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(filepath.Join(first, "results.json")); err != nil || !st.ModTime().Equal(st1.ModTime()) {
		t.Error("the finished run's results.json was rewritten on resume")
	}
	if ck, _ := os.ReadFile(filepath.Join(first, "checkpoint.bin")); !bytes.Equal(ck, ck1) {
		t.Error("the finished run's checkpoint was rewritten on resume")
	}
	for _, cell := range []string{"seed-1", "seed-2"} {
		sameRun(t, filepath.Join(clean, "g", cell), filepath.Join(g, cell))
	}
	for _, f := range []string{"summary.csv", "by_length.csv"} {
		a, err1 := os.ReadFile(filepath.Join(clean, "g", "report", f))
		b, err2 := os.ReadFile(filepath.Join(g, "report", f))
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			t.Errorf("report/%s differs from the uninterrupted grid's (%v, %v)", f, err1, err2)
		}
	}
	if _, err := os.Stat(filepath.Join(g, "report", "report.md")); err != nil {
		t.Error(err)
	}
	if !strings.Contains(out.String(), "report: ") {
		t.Errorf("the resumed grid does not print its report:\n%s", out.String())
	}
}

// TestNeverOverwrite: a finished run's directory is refused without -force or -resume, left
// byte for byte as it was; -force and -resume together are refused; -force starts over.
func TestNeverOverwrite(t *testing.T) {
	base := t.TempDir()
	cfg := writeFile(t, filepath.Join(base, "cfg.yaml"), tinyConfig)
	out := filepath.Join(base, "out")
	if err := run(context.Background(), []string{"-config", cfg, "-out", out}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	runDir := filepath.Join(out, "copy_rope_s1")
	snapshot := func() map[string]string {
		m := map[string]string{}
		entries, _ := os.ReadDir(runDir)
		for _, e := range entries {
			if e.Name() == rundir.LockFile { // each attempt takes the lock, and writes its pid
				continue
			}
			b, _ := os.ReadFile(filepath.Join(runDir, e.Name()))
			st, _ := e.Info()
			m[e.Name()] = string(b) + st.ModTime().String()
		}
		return m
	}
	before := snapshot()
	for _, args := range [][]string{{}, {"-set", "train.steps=30"}, {"-force", "-resume"}} {
		err := run(context.Background(), append([]string{"-config", cfg, "-out", out}, args...), io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "-force") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: %v; want a one-line refusal naming -force", args, err)
		}
	}
	// A different config with -resume is refused too: it would mix two runs.
	if err := run(context.Background(), []string{"-config", cfg, "-out", out, "-resume", "-set", "train.steps=30"}, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "different config") {
		t.Errorf("-resume with another config: %v; want a refusal", err)
	}
	if after := snapshot(); !reflect.DeepEqual(before, after) {
		t.Fatal("a refused run changed the run directory")
	}
	if err := run(context.Background(), []string{"-config", cfg, "-out", out, "-force", "-set", "train.steps=30"}, io.Discard, io.Discard); err != nil {
		t.Fatalf("-force: %v", err)
	}
	if c, _ := os.ReadFile(filepath.Join(runDir, "config.yaml")); !strings.Contains(string(c), "steps: 30") {
		t.Error("-force did not start the run over with the new config")
	}
}
