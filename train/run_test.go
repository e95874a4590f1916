package train

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/posformer/posformer/metric"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/internal/testutil"
)

// tinyConfig is testutil.Minimal resolved, writing under out, with 20 steps and the overrides sets.
func tinyConfig(t *testing.T, out string, sets ...string) config.Config {
	return testutil.TinyConfig(t, config.Read, out, sets...)
}

// TestRunWritesRunDirectory: a run writes every file the docs promise, and the same config and
// seed give the same bits.
func TestRunWritesRunDirectory(t *testing.T) {
	dir := t.TempDir()
	var progress bytes.Buffer
	res, err := Run(context.Background(), tinyConfig(t, filepath.Join(dir, "a")), Options{Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(dir, "a", "copy_rope_s1")
	for _, f := range []string{"config.yaml", "metrics.jsonl", "results.json", "results.csv", "timing.json", "checkpoint.bin"} {
		if st, err := os.Stat(filepath.Join(run, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	csv, _ := os.ReadFile(filepath.Join(run, "results.csv"))
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	if lines[0] != "task,scheme,seed,length,in_range,exact_match,token_accuracy,n" || len(lines) != 1+8 {
		t.Fatalf("results.csv:\n%s", csv)
	}
	if !strings.HasPrefix(lines[1], "copy,rope,1,1,true,") || !strings.HasPrefix(lines[8], "copy,rope,1,8,false,") {
		t.Fatalf("results.csv rows:\n%s", csv)
	}
	mf, _ := os.Open(filepath.Join(run, "metrics.jsonl"))
	defer mf.Close()
	sc := bufio.NewScanner(mf)
	var n, vals int
	for sc.Scan() {
		var m Metric
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("metrics.jsonl line %d: %v", n+1, err)
		}
		if m.Step != 10*(n+1) || !(m.Loss > 0) || !(m.LR > 0) || !(m.TokPerSec > 0) || !(m.GradNorm > 0) {
			t.Fatalf("metrics line %d: %+v", n+1, m)
		}
		if m.ValExact != nil {
			vals++
		}
		n++
	}
	if n != 2 || vals != 2 {
		t.Fatalf("%d metrics lines with %d validations, want 2 and 2", n, vals)
	}
	if !strings.Contains(progress.String(), "train copy_rope_s1 20/20") {
		t.Errorf("plain progress lines missing:\n%s", progress.String())
	}
	if inRangeExact(res) < 0 || inRangeExact(res) > 1 || len(res.Lengths) != 8 {
		t.Fatalf("result %+v", res)
	}

	// Same config, same seed, another directory: identical results and weights.
	if _, err := Run(context.Background(), tinyConfig(t, filepath.Join(dir, "b")), Options{}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"results.csv", "results.json", "checkpoint.bin"} {
		a, _ := os.ReadFile(filepath.Join(dir, "a", "copy_rope_s1", f))
		b, _ := os.ReadFile(filepath.Join(dir, "b", "copy_rope_s1", f))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs of one config", f)
		}
	}
	// Another seed gives other weights.
	if _, err := Run(context.Background(), tinyConfig(t, filepath.Join(dir, "c"), "seed=2"), Options{}); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(filepath.Join(dir, "a", "copy_rope_s1", "checkpoint.bin"))
	c, _ := os.ReadFile(filepath.Join(dir, "c", "copy_rope_s2", "checkpoint.bin"))
	if bytes.Equal(a, c) {
		t.Error("seeds 1 and 2 gave the same weights")
	}
}

func TestRunRefusesToOverwrite(t *testing.T) {
	dir := t.TempDir()
	cfg := tinyConfig(t, dir, "train.steps=2", "eval.lengths=1..2")
	if _, err := Run(context.Background(), cfg, Options{}); err != nil {
		t.Fatal(err)
	}
	_, err := Run(context.Background(), cfg, Options{})
	if err == nil || !strings.Contains(err.Error(), "-force") {
		t.Fatalf("second run into the same directory: %v; want an error mentioning -force", err)
	}
	if _, err := Run(context.Background(), cfg, Options{Force: true}); err != nil {
		t.Fatalf("with Force: %v", err)
	}
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, tinyConfig(t, t.TempDir()), Options{}); err == nil {
		t.Fatal("a cancelled context: want an error")
	}
}

// TestResumeRemovesTempFiles: the temporary file a process killed inside an atomic write leaves
// behind is removed when the run resumes; the checkpoint itself is used.
func TestResumeRemovesTempFiles(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // interrupted before the first step: a checkpoint at step 0
	cfg := tinyConfig(t, t.TempDir(), "train.steps=3", "eval.lengths=1..2")
	if _, err := Run(ctx, cfg, Options{}); err == nil {
		t.Fatal("a cancelled run: want an error")
	}
	dir := filepath.Join(cfg.Out, cfg.Name)
	stale := filepath.Join(dir, ".checkpoint.bin.tmp123456")
	if err := os.WriteFile(stale, []byte("torn"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), cfg, Options{Resume: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale temporary file is still there after resuming (%v)", err)
	}
}

// TestRunIndependentOfCores: the same config and seed give the same checkpoint and results bit
// for bit whatever the number of cores the kernels split their work over.
func TestRunIndependentOfCores(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	dir := t.TempDir()
	var first []byte
	for _, procs := range []int{1, 2, 3} {
		runtime.GOMAXPROCS(procs)
		// big enough for the kernels to split their work: 64 tokens × batch 32, d_ff 256
		cfg := tinyConfig(t, filepath.Join(dir, fmt.Sprint(procs)), "train.steps=3", "train.batch_size=32",
			"task.min_len=31", "task.max_len=31", "model.d_model=64", "model.d_ff=256", "eval.lengths=31..32", "eval.examples=40")
		if _, err := Run(context.Background(), cfg, Options{}); err != nil {
			t.Fatal(err)
		}
		run := filepath.Join(cfg.Out, cfg.Name)
		ck, err := os.ReadFile(filepath.Join(run, "checkpoint.bin"))
		if err != nil {
			t.Fatal(err)
		}
		res, err := os.ReadFile(filepath.Join(run, "results.csv"))
		if err != nil {
			t.Fatal(err)
		}
		both := append(ck, res...)
		if first == nil {
			first = both
		} else if !bytes.Equal(first, both) {
			t.Errorf("GOMAXPROCS %d: the checkpoint or results differ from GOMAXPROCS 1", procs)
		}
	}
}

// inRangeExact is a result's mean exact match over its training lengths.
func inRangeExact(r *Result) float64 {
	in, _ := r.Summary(metric.ExactMatch)
	return in
}
