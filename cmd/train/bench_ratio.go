package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// benchResult is one BENCH line and what it measured: scheme name's training step (T = 0) or
// its evaluation at length T.
type benchResult struct {
	line string
	name string
	T    int
}

// field returns the value of key=value in a BENCH line.
func field(line, key string) (float64, bool) {
	for _, f := range strings.Fields(line) {
		if v, ok := strings.CutPrefix(f, key+"="); ok {
			x, err := strconv.ParseFloat(v, 64)
			return x, err == nil
		}
	}
	return 0, false
}

// ratioLines are the RATIO lines of a bench run that measured none (NoPE): for every
// measurement, its time over none's at the same length (training step: ms/step; evaluation: the
// inverse ratio of tokens per second; none measured more than once: the median of its
// measurements), so that a scheme's cost relative to attention without positions shows in one
// run:
//
//	RATIO train scheme=cope ms/step=N to_none=N alloc_MB/step=N
//	RATIO eval scheme=cope T=1024 tok/s=N to_none=N
//
// None when none was not measured.
func ratioLines(rs []benchResult) []string {
	nones := map[int][]float64{} // T (0: training) → none's ms/step, or its tok/s
	for _, r := range rs {
		if r.name != "none" {
			continue
		}
		key := "tok/s"
		if r.T == 0 {
			key = "ms/step"
		}
		if x, ok := field(r.line, key); ok && x > 0 {
			nones[r.T] = append(nones[r.T], x)
		}
	}
	base := map[int]float64{}
	for T, xs := range nones {
		slices.Sort(xs)
		base[T] = (xs[(len(xs)-1)/2] + xs[len(xs)/2]) / 2 // the median
	}
	var out []string
	for _, r := range rs {
		b, ok := base[r.T]
		if !ok {
			continue
		}
		if r.T == 0 {
			ms, _ := field(r.line, "ms/step")
			mb, _ := field(r.line, "alloc_MB/step")
			out = append(out, fmt.Sprintf("RATIO train scheme=%s ms/step=%.2f to_none=%.2f alloc_MB/step=%.2f", r.name, ms, ms/b, mb))
		} else if tps, _ := field(r.line, "tok/s"); tps > 0 {
			out = append(out, fmt.Sprintf("RATIO eval scheme=%s T=%d tok/s=%.0f to_none=%.2f", r.name, r.T, tps, b/tps))
		}
	}
	return out
}
