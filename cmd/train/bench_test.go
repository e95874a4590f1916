package main

import (
	"bytes"
	"errors"
	"io"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/posformer/posformer/position"
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
		{[]string{"-schemes", "abacus", "-task", ""}, "-schemes abacus numbers the digits of a task's numbers, but -task is empty; set -task addition"},
		{[]string{"-schemes", "none,coupled", "-task", "copy"}, "-task copy has no digit tokens, which -schemes coupled numbers; set -task addition"},
		{[]string{"-schemes", "abacus", "-task", "nosuchtask"}, "-task: "},
		{[]string{"-schemes", "abacus", "-vocab", "8"}, "-task addition has 13 tokens but -vocab is 8; set -vocab 13 or more"},
		{[]string{"-schemes", "rope+fourier"}, `unknown scheme "rope+fourier"`},
		{[]string{"-schemes", "rope+yarn", "-eval-lens", ""}, "are evaluation variants (rope's scalings act beyond -len only) and -eval-lens is empty"},
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

// TestBenchAllSchemes: -schemes all measures every registered scheme (abacus and coupled on
// -task addition's digits) and every variant (the evaluation variants at -eval-lens only), then
// prints a RATIO line per measurement with its time over none's at the same length (none's own
// 1.00).
func TestBenchAllSchemes(t *testing.T) {
	var out bytes.Buffer
	args := []string{"bench", "-layers", "1", "-d-model", "8", "-heads", "2", "-d-ff", "16", "-vocab", "13",
		"-batch", "2", "-len", "4", "-steps", "2", "-warmup", "1", "-chunks", "2", "-eval-iters", "2",
		"-schemes", "all", "-eval-lens", "8", "-peak", "0"}
	if err := run(t.Context(), args, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	names := allSchemes()
	if names[0] != "none" || names[len(names)-1] != "none" || len(names) != len(position.Kinds())+len(variantNames())+2 {
		t.Fatalf("-schemes all: %v, want every scheme and variant with none first, in the middle and last", names)
	}
	if !slices.Contains(names, "abacus") || !slices.Contains(names, "coupled") || !slices.Contains(names, "cope") {
		t.Fatalf("the schemes and variants: %v", names)
	}
	train := regexp.MustCompile(`(?m)^BENCH train scheme=(\S+) `)
	eval := regexp.MustCompile(`(?m)^BENCH eval scheme=(\S+) T=8 `)
	rtrain := regexp.MustCompile(`(?m)^RATIO train scheme=(\S+) ms/step=\d+\.\d\d to_none=(\d+\.\d\d) alloc_MB/step=\d+\.\d\d$`)
	reval := regexp.MustCompile(`(?m)^RATIO eval scheme=(\S+) T=8 tok/s=\d+ to_none=(\d+\.\d\d)$`)
	nones := 0 // none's ratios of 1.00: at least one per RATIO kind (the median of three is one of them)
	got := func(re *regexp.Regexp) []string {
		var s []string
		for _, m := range re.FindAllStringSubmatch(out.String(), -1) {
			s = append(s, m[1])
			if len(m) > 2 && m[1] == "none" && m[2] == "1.00" {
				nones++
			}
		}
		return s
	}
	var wantTrain []string
	for _, n := range names {
		if !slices.ContainsFunc(benchVariants, func(v benchVariant) bool { return v.name == n && v.evalOnly }) {
			wantTrain = append(wantTrain, n)
		}
	}
	for _, c := range []struct {
		what      string
		got, want []string
	}{{"BENCH train", got(train), wantTrain}, {"BENCH eval", got(eval), names}, {"RATIO train", got(rtrain), wantTrain}, {"RATIO eval", got(reval), names}} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s lines for %v, want %v", c.what, c.got, c.want)
		}
	}
	if nones < 2 {
		t.Errorf("none's own RATIO lines: %d at 1.00, want one per kind at least (its median)", nones)
	}
}

// TestBenchRatioMedian: the ratios' base is the median of none's measurements.
func TestBenchRatioMedian(t *testing.T) {
	rs := []benchResult{
		{"BENCH train scheme=none tok/s=1 ms/step=10.00 alloc_MB/step=0.10", "none", 0},
		{"BENCH train scheme=cope tok/s=1 ms/step=15.00 alloc_MB/step=0.20", "cope", 0},
		{"BENCH train scheme=none tok/s=1 ms/step=30.00 alloc_MB/step=0.10", "none", 0},
		{"BENCH train scheme=none tok/s=1 ms/step=12.00 alloc_MB/step=0.10", "none", 0},
		{"BENCH eval scheme=none T=64 tok/s=1000", "none", 64},
		{"BENCH eval scheme=cope T=64 tok/s=500", "cope", 64},
		{"BENCH eval scheme=rope T=128 tok/s=500", "rope", 128},
	}
	got := strings.Join(ratioLines(rs), "\n")
	want := strings.Join([]string{
		"RATIO train scheme=none ms/step=10.00 to_none=0.83 alloc_MB/step=0.10",
		"RATIO train scheme=cope ms/step=15.00 to_none=1.25 alloc_MB/step=0.20",
		"RATIO train scheme=none ms/step=30.00 to_none=2.50 alloc_MB/step=0.10",
		"RATIO train scheme=none ms/step=12.00 to_none=1.00 alloc_MB/step=0.10",
		"RATIO eval scheme=none T=64 tok/s=1000 to_none=1.00",
		"RATIO eval scheme=cope T=64 tok/s=500 to_none=2.00",
	}, "\n")
	if got != want {
		t.Errorf("ratio lines:\n%s\nwant (rope at T=128 has no none to compare with):\n%s", got, want)
	}
}

// TestBenchMemoryUnderUlimit: under an address-space limit, bench predicts its graphs' memory
// and refuses in one line naming the flag and the limit before it allocates anything (issue 47
// P2: it measured for 33 s, then died with Go's "fatal error: out of memory"); a small bench
// still runs there.
func TestBenchMemoryUnderUlimit(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	for _, evalLens := range []string{"16384", "4096"} {
		c := underUlimit("2000000", "bench", "-eval-lens", evalLens, "-batch", "64")
		var e strings.Builder
		c.Stderr = &e
		err := c.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		oneLineError(t, "bench -eval-lens "+evalLens+" -batch 64 under ulimit -v 2000000", e.String(), code,
			"train: bench: -eval-lens: "+evalLens+" with -batch 64", "more than the", "that the address-space limit (ulimit -v 2000000) of 2.05 GB leaves", "lower it or -batch")
	}
	c := underUlimit("2000000", "bench", "-layers", "1", "-d-model", "8", "-heads", "2", "-d-ff", "16", "-batch", "2", "-len", "4",
		"-steps", "2", "-warmup", "1", "-chunks", "2", "-eval-iters", "2", "-schemes", "cope", "-eval-lens", "8", "-peak", "0")
	if out, err := c.Output(); err != nil || !strings.Contains(string(out), "BENCH eval scheme=cope T=8 ") {
		t.Errorf("a small bench under ulimit -v 2000000: %v\n%s", err, out)
	}
}
