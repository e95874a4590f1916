package main

import (
	"bytes"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/posformer/posformer/position"
	"gorgonia.org/tensor"
)

// TestPEMemoryUnderUlimit: under `ulimit -v 2000000` (above the documented 1.5 GB minimum) a
// table or a scheme's parameters the process has no room for are refused in one line naming the
// flag to lower, before they are allocated (the table died with Go's "fatal error: out of
// memory" and 172 lines of stack, P1); a table that fits is printed whole there.
func TestPEMemoryUnderUlimit(t *testing.T) {
	if testing.Short() {
		t.Skip("runs pe processes of up to 300 MB")
	}
	for _, tc := range []struct {
		args  []string
		wants []string
	}{
		{[]string{"-scheme", "alibi", "-positions", "1048576", "-heads", "64", "-dim", "64"},
			[]string{"train: pe: the alibi table of 1048576 rows (-positions) × 64 columns would take about", "that the address-space limit (ulimit -v 2000000) leaves; print fewer -positions"}},
		{[]string{"-scheme", "learned", "-positions", "4", "-max-positions", "1000000", "-dim", "64"},
			[]string{"train: pe: the learned scheme's 64000000 parameters would take about 1.07 GB", "lower -dim or the scheme's options"}},
	} {
		c := underUlimit("2000000", append([]string{"pe"}, tc.args...)...)
		var e strings.Builder
		c.Stderr = &e
		err := c.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		oneLineError(t, strings.Join(tc.args, " "), e.String(), code, tc.wants...)
	}
	c := underUlimit("2000000", "pe", "-scheme", "alibi", "-positions", "200000", "-heads", "64", "-dim", "64")
	var out, e bytes.Buffer
	c.Stdout, c.Stderr = &out, &e
	if err := c.Run(); err != nil {
		t.Fatalf("a table that fits: %v\n%s", err, e.String())
	}
	if n := bytes.Count(out.Bytes(), []byte("\n")); n != 200001 {
		t.Errorf("a table that fits printed %d lines, want 200001", n)
	}
}

// TestPEMemoryPrediction: for every scheme with a table, the heap a table of n rows keeps (the
// scheme built, its table held) is within the prediction, paramBytes + tableBytes, at several
// sizes, bidirectional or not; and the table's part is not wildly above it (at most 3 times, its
// arena aside), so a table that fits is not refused.
func TestPEMemoryPrediction(t *testing.T) {
	heap := func() int64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return int64(ms.HeapAlloc)
	}
	for _, kind := range tabledKinds() {
		for _, d := range []struct {
			n, dim, heads int
			bidir         bool
		}{{3000, 64, 8, false}, {20000, 16, 4, false}, {5000, 32, 32, true}} {
			if kind == "learned" || kind == "abacus" || kind == "coupled" {
				d.n = min(d.n, 100) // within their default rows
			}
			dims := position.Dims{DModel: d.dim, Heads: d.heads, Dtype: tensor.Float64, Seed: 1, Digit0: peDigit0, Bidirectional: d.bidir}
			spec := position.Spec{Kind: kind}
			p := position.ParamCount(spec, dims)
			before := heap()
			s, err := position.New(spec, dims)
			if err != nil {
				continue // a scheme that refuses these dims (e.g. encoder-only options)
			}
			tb := s.(position.Tabler)
			cols, err := columns(tb)
			if err != nil {
				t.Fatal(err)
			}
			table, err := tb.Table(d.n)
			if err != nil {
				t.Fatalf("%s: %v", kind, err)
			}
			used := heap() - before
			predicted := paramBytes(p) + tableBytes(d.n, cols)
			if used > predicted || tableBytes(d.n, cols)-arena > 3*used {
				t.Errorf("%s %+v: the table keeps %d bytes, predicted %d", kind, d, used, predicted)
			}
			runtime.KeepAlive(table)
			runtime.KeepAlive(s)
		}
	}
}
