package main

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"strings"
	"testing"
)

// TestBenchCommand runs `train bench` on a tiny model and checks that it prints the kernels it
// chose, the peak it measured, then one BENCH line per measurement with its fraction of that
// peak, in the documented format.
func TestBenchCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	args := []string{"bench", "-layers", "1", "-d-model", "8", "-heads", "2", "-d-ff", "16", "-vocab", "5",
		"-batch", "2", "-len", "4", "-steps", "2", "-warmup", "1", "-chunks", "2", "-eval-iters", "2",
		"-schemes", "sinusoidal,rope", "-eval-lens", "4,8", "-peak", "48"}
	if err := run(t.Context(), args, &out, &errOut); err != nil {
		t.Fatalf("bench: %v\n%s", err, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	kernels := regexp.MustCompile(`^KERNELS( \w+=(avx-512|avx2|generic|neon|go|go-fma|go-lanes)){7}$`)
	peak := regexp.MustCompile(`^PEAK sgemm=48 GFLOP/s=\d+\.\d$`)
	if len(lines) < 2 || !kernels.MatchString(lines[0]) || !peak.MatchString(lines[1]) {
		t.Fatalf("want a KERNELS and a PEAK line first, got:\n%s", out.String())
	}
	lines = lines[2:]
	train := regexp.MustCompile(`^BENCH train scheme=(\w+) tok/s=\d+ ms/step=\d+\.\d+ alloc_MB/step=\d+\.\d+ allocs/step=\d+ GFLOP/step=\d+\.\d+ GFLOP/s=\d+\.\d+ of_peak=\d+\.\d\d$`)
	eval := regexp.MustCompile(`^BENCH eval scheme=(\w+) T=(\d+) tok/s=\d+ GFLOP/s=\d+\.\d+ of_peak=\d+\.\d\d$`)
	var want []string
	for _, s := range []string{"sinusoidal", "rope"} {
		want = append(want, "train "+s, "eval "+s+" 4", "eval "+s+" 8")
	}
	if len(lines) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(lines), len(want), out.String())
	}
	for i, l := range lines {
		var got string
		if m := train.FindStringSubmatch(l); m != nil {
			got = "train " + m[1]
		} else if m := eval.FindStringSubmatch(l); m != nil {
			got = "eval " + m[1] + " " + m[2]
		}
		if got != want[i] {
			t.Errorf("line %d: %q, want a BENCH line for %q", i, l, want[i])
		}
	}
}

// TestBenchBadFlags: each bad flag is an error that names it, before any work.
func TestBenchBadFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-heads", "5"}, "-heads 5 does not divide -d-model 64"},
		{[]string{"-batch", "0"}, "-batch must be between 1 and"},
		{[]string{"-d-model", "1000000"}, "-d-model must be between 1 and 16384, got 1000000"},
		{[]string{"-len", "30000"}, "-len 30000 with -batch 32, -d-model 64, -heads 4 and -layers 2 needs about"},
		{[]string{"-eval-lens", "64,32768"}, "-eval-lens: 32768 with -batch 32, -d-model 64 and -layers 2 needs about"},
		{[]string{"-eval-lens", "64,100000"}, `"100000" is not a length between 1 and 32768`},
		{[]string{"-schemes", "fourier"}, `unknown scheme "fourier"`},
		{[]string{"-schemes", ""}, "-schemes is empty"},
		{[]string{"-eval-lens", "64,x"}, `"x" is not a length between 1 and`},
		{[]string{"-dtype", "float16"}, "-dtype must be float32 or float64"},
		{[]string{"-steps", "2", "-chunks", "5"}, "must be at least -chunks"},
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"-nosuchflag"}, "flag provided but not defined"},
		{[]string{"-peak", "-1"}, "-peak must be between 0 and 8192, got -1"},
	} {
		err := run(t.Context(), append([]string{"bench"}, c.args...), io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("bench %v: error %v, want one containing %q", c.args, err, c.want)
		}
	}
	err := run(t.Context(), []string{"bench", "extra"}, io.Discard, io.Discard)
	if !errors.Is(err, errUsage) {
		t.Errorf("a stray argument should be a usage error, got %v", err)
	}
}

// TestBenchZeroFlags: every flag of bench given its zero value is either used as written
// (-warmup 0: no untimed steps; -eval-lens "": no evaluation; -peak 0: no peak) or refused naming the flag; 0 never
// silently becomes a default.
func TestBenchZeroFlags(t *testing.T) {
	tiny := []string{"-layers", "1", "-d-model", "8", "-heads", "2", "-d-ff", "16", "-vocab", "5",
		"-batch", "2", "-len", "4", "-steps", "2", "-warmup", "1", "-chunks", "2", "-eval-iters", "2", "-schemes", "none", "-eval-lens", "4", "-peak", "16"}
	legal := map[string]bool{"warmup": true, "eval-lens": true, "peak": true}
	for i := 0; i < len(tiny); i += 2 {
		name := tiny[i][1:]
		zero := "0"
		if name == "schemes" || name == "eval-lens" || name == "dtype" {
			zero = ""
		}
		args := append(append([]string{"bench"}, tiny...), "-"+name+"="+zero)
		err := run(t.Context(), args, io.Discard, io.Discard)
		switch {
		case err == nil && !legal[name]:
			t.Errorf("bench -%s=%s accepted", name, zero)
		case err != nil && legal[name]:
			t.Errorf("bench -%s=%s: %v", name, zero, err)
		case err != nil && !strings.Contains(err.Error(), "-"+name):
			t.Errorf("bench -%s=%s: %v does not name the flag", name, zero, err)
		}
	}
	if err := run(t.Context(), append(append([]string{"bench"}, tiny...), "-dtype="), io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "-dtype") {
		t.Errorf("bench -dtype=: %v", err)
	}
}

// TestBenchEvalOnly: -train=false measures the evaluations alone; with no -eval-lens it is an
// error naming both flags.
func TestBenchEvalOnly(t *testing.T) {
	tiny := []string{"bench", "-layers", "1", "-d-model", "8", "-heads", "2", "-d-ff", "16", "-vocab", "5",
		"-batch", "2", "-len", "4", "-steps", "2", "-warmup", "1", "-chunks", "2", "-eval-iters", "2", "-schemes", "none", "-train=false", "-peak", "0"}
	var out bytes.Buffer
	if err := run(t.Context(), append(tiny, "-eval-lens", "4,8"), &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if strings.Count(out.String(), "BENCH eval") != 2 || strings.Contains(out.String(), "BENCH train") {
		t.Errorf("bench -train=false printed %q, want two BENCH eval lines only", out.String())
	}
	err := run(t.Context(), append(tiny, "-eval-lens="), io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "-train=false") || !strings.Contains(err.Error(), "-eval-lens") {
		t.Errorf("bench -train=false -eval-lens=: %v, want an error naming both flags", err)
	}
}

// TestBenchFloat64NoPeakFraction: a float64 model's lines get no of_peak (the peak is float32's),
// while the PEAK line is still printed.
func TestBenchFloat64NoPeakFraction(t *testing.T) {
	var out bytes.Buffer
	args := []string{"bench", "-layers", "1", "-d-model", "8", "-heads", "2", "-d-ff", "16", "-vocab", "5", "-batch", "2", "-len", "4",
		"-steps", "2", "-warmup", "1", "-chunks", "2", "-eval-iters", "2", "-schemes", "none", "-eval-lens", "4", "-dtype", "float64", "-peak", "16"}
	if err := run(t.Context(), args, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "\nPEAK sgemm=16 ") || strings.Contains(out.String(), "of_peak") || strings.Count(out.String(), "BENCH ") != 2 {
		t.Errorf("bench -dtype float64 printed:\n%s\nwant a PEAK line and two BENCH lines without of_peak", out.String())
	}
}
