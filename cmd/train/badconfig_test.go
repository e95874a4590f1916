package main

import (
	"bytes"
	"context"
	"encoding/gob"
	"fmt"
	"github.com/posformer/posformer/metric"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/posformer/posformer/train"
)

// badDir holds the malformed and inconsistent configs, each with its golden error message
// (config/testdata/bad; `go test ./setup -run TestBadConfigs -update` rewrites the goldens).
var badDir = filepath.Join("..", "..", "config", "testdata", "bad")

var knownList = regexp.MustCompile(`\(known: [^)]+\)`)

// goldenForm is an error message as the golden files hold it: without the configs' directory
// and with the lists of known names elided (see train/badconfig_test.go).
func goldenForm(msg string) string {
	return knownList.ReplaceAllString(strings.ReplaceAll(msg, badDir+string(filepath.Separator), ""), "(known: …)")
}

// runCaught is run with a panic turned into an error, so one bad input cannot hide the others.
func runCaught(args ...string) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("PANIC: %v", p)
		}
	}()
	return run(context.Background(), args, io.Discard, io.Discard)
}

// TestBadConfigsCLI runs every bad config through the CLI's entry point: each must return one
// line that matches its golden file (so it names the field), without panicking, and must not
// have trained anything: the output directory is never even created.
func TestBadConfigsCLI(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(badDir, "*.yaml"))
	if err != nil || len(files) < 30 {
		t.Fatalf("want at least 30 bad configs in %s, found %d (%v)", badDir, len(files), err)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // as the goldens (memory errors count the cores)
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			err := runCaught("-config", file, "-out", out)
			if err == nil {
				t.Fatal("accepted")
			}
			msg := goldenForm(err.Error())
			if strings.HasPrefix(msg, "PANIC") || strings.Contains(msg, "\n") {
				t.Fatalf("want one line, got:\n%s", msg)
			}
			want, rerr := os.ReadFile(strings.TrimSuffix(file, ".yaml") + ".golden")
			if rerr != nil {
				t.Fatal(rerr)
			}
			if msg+"\n" != string(want) {
				t.Errorf("got:  %s\nwant: %s", msg, want)
			}
			if _, serr := os.Stat(out); serr == nil {
				t.Errorf("a bad config created the output directory %s", out)
			}
		})
	}
}

// TestBadConfigExitStatus runs the real binary (this test binary acting as the CLI) on every
// bad config: exit status 1, one line on stderr that starts with "train: ", nothing on stdout,
// no panic.
func TestBadConfigExitStatus(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process per bad config")
	}
	files, _ := filepath.Glob(filepath.Join(badDir, "*.yaml"))
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "out")
			stdout, stderr, code := runChildEnv(t, []string{"GOMAXPROCS=2"}, "-config", file, "-out", out)
			want, _ := os.ReadFile(strings.TrimSuffix(file, ".yaml") + ".golden")
			if code != 1 || stdout != "" || goldenForm(stderr) != "train: "+string(want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and stderr %q", code, stdout, stderr, "train: "+string(want))
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("a bad config created the output directory")
			}
		})
	}
}

// runChild runs the CLI in a child process and returns its output and exit status.
func runChild(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runChildEnv(t, nil, args...)
}

// runChildEnv is runChild with extra environment variables.
func runChildEnv(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := child(args...)
	cmd.Env = append(cmd.Env, env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(e.String(), "panic") || strings.Contains(e.String(), "goroutine ") {
		t.Errorf("the CLI panicked:\n%s", e.String())
	}
	return o.String(), e.String(), code
}

// oneLineError checks a CLI failure: exit status 1 and, last on stderr (after any progress
// lines), a single line "train: ..." that contains every one of wants.
func oneLineError(t *testing.T, what, stderr string, code int, wants ...string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	last := lines[len(lines)-1]
	if code != 1 || !strings.HasSuffix(stderr, "\n") || !strings.HasPrefix(last, "train: ") || strings.Count(stderr, "train: ") != 1 {
		t.Fatalf("%s: exit %d, stderr %q; want exit 1 and one line", what, code, stderr)
	}
	for _, w := range wants {
		if !strings.Contains(last, w) {
			t.Errorf("%s: %q does not say %q", what, last, w)
		}
	}
}

const tinyConfig = `
task: {name: copy, min_len: 1, max_len: 4}
model: {d_model: 16, heads: 2, layers: 1, d_ff: 32}
position: {kind: rope}
train: {steps: 20, batch_size: 4, checkpoint_every: 5}
eval: {lengths: "1..8", examples: 8}
`

func writeFile(t *testing.T, path, src string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestMissingConfig(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.yaml")
	_, stderr, code := runChild(t, "-config", missing, "-out", t.TempDir())
	oneLineError(t, "a missing config", stderr, code, missing, "no such file", "-config")
}

func TestUnreadableConfig(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root: chmod 000 does not stop root from reading a file")
	}
	path := writeFile(t, filepath.Join(t.TempDir(), "secret.yaml"), tinyConfig)
	if err := os.Chmod(path, 0); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runChild(t, "-config", path, "-out", t.TempDir())
	oneLineError(t, "an unreadable config", stderr, code, path, "permission denied", "-config")
}

// TestUnwritableOut: -out under a regular file cannot be created; the error says so before any
// training, and nothing is written.
func TestUnwritableOut(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, filepath.Join(dir, "cfg.yaml"), tinyConfig)
	file := writeFile(t, filepath.Join(dir, "a-file"), "not a directory\n")
	_, stderr, code := runChild(t, "-config", cfg, "-out", filepath.Join(file, "runs"))
	oneLineError(t, "-out under a regular file", stderr, code, "cannot create the output directory", "not a directory", "choose a writable -out")
	if b, _ := os.ReadFile(file); string(b) != "not a directory\n" {
		t.Error("the regular file was changed")
	}
	if os.Geteuid() != 0 {
		ro := filepath.Join(dir, "ro")
		if err := os.Mkdir(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		_, stderr, code := runChild(t, "-config", cfg, "-out", ro)
		oneLineError(t, "a read-only -out", stderr, code, "not writable", "permission denied", "choose a writable -out")
	}
}

// TestNaNStops: a learning rate of 1e30 blows the weights up within a few steps; training stops
// with one line naming the step and what is not finite (the loss, or the tensor whose gradient
// is), exits non-zero, keeps the checkpoint of the step before (checkpoints every step here),
// which loads with finite weights and moments, and records the run as diverged in results.json.
func TestNaNStops(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, filepath.Join(dir, "cfg.yaml"), tinyConfig)
	out := filepath.Join(dir, "out")
	err := runCaught("-config", cfg, "-out", out, "-set", "train.lr=1e30", "-set", "train.checkpoint_every=1")
	if err == nil {
		t.Fatal("a learning rate of 1e30 trained without an error")
	}
	msg := err.Error()
	m := regexp.MustCompile(`^step (\d+): (the loss is (NaN|[+-]Inf)|the gradient of \S+ is not finite); the last good checkpoint is kept in \S+checkpoint\.bin; lower train.lr`).FindStringSubmatch(msg)
	if m == nil || strings.Contains(msg, "\n") {
		t.Fatalf("error %q: want one line naming the step, the loss or the tensor, the checkpoint and train.lr", msg)
	}
	step, _ := strconv.Atoi(m[1])
	t.Logf("stopped at step %d: %s", step, m[2])
	ck, lerr := loadRunModel(filepath.Join(out, "copy_rope_s1"))
	if lerr != nil {
		t.Fatalf("the last good checkpoint does not load: %v", lerr)
	}
	if got, finite := ck(); got != step-1 || !finite {
		t.Fatalf("the checkpoint holds step %d (finite: %v); want the state after step %d, finite", got, finite, step-1)
	}
	// Divergence is a result: results.json records it, with the step, and no scores.
	res, rerr := train.ReadResult(filepath.Join(out, "copy_rope_s1"))
	if rerr != nil || res.Diverged == nil || res.Diverged.Step != step || len(res.Lengths) != 0 || !math.IsNaN(inRangeExact(res)) {
		t.Errorf("results.json of the diverged run: %+v, %v; want it recorded as diverged at step %d, without scores", res, rerr, step)
	}
	// Without a checkpoint yet (the default is every 500 steps), the message says so.
	_, stderr, code := runChild(t, "-config", cfg, "-out", filepath.Join(dir, "child"), "-set", "train.lr=1e30")
	oneLineError(t, "a NaN", stderr, code, "step", "no checkpoint had been written yet")
}

// loadRunModel reads a run directory's checkpoint.bin (encoding/gob; the fields of
// train's checkpoint that matter here) and returns a function reporting the completed step and
// whether every weight and moment is finite.
func loadRunModel(dir string) (func() (int, bool), error) {
	f, err := os.Open(filepath.Join(dir, "checkpoint.bin"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var ck struct {
		Weights, M, V [][]float64
		Train         struct{ Step int }
	}
	if err := gob.NewDecoder(f).Decode(&ck); err != nil {
		return nil, err
	}
	if len(ck.Weights) == 0 {
		return nil, fmt.Errorf("no weights in the checkpoint")
	}
	finite := true
	for _, group := range [][][]float64{ck.Weights, ck.M, ck.V} {
		for _, w := range group {
			for _, x := range w {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					finite = false
				}
			}
		}
	}
	return func() (int, bool) { return ck.Train.Step, finite }, nil
}

// inRangeExact is a result's mean exact match over its training lengths.
func inRangeExact(r *train.Result) float64 {
	in, _ := r.Summary(metric.ExactMatch)
	return in
}
