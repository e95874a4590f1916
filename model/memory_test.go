package model

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/posformer/posformer/position"
)

// liveHeap is the heap in use after two collections.
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// TestGraphBytesBoundsTheHeap builds and runs graphs of every registered scheme, training,
// evaluation and inspection (attention capture), at a few shapes, and checks that GraphBytes predicts at least the heap each graph
// holds once it has run (so a run's memory prediction is an upper bound) and at most 1.6 times
// it (so the prediction means something).
func TestGraphBytesBoundsTheHeap(t *testing.T) {
	shapes := []struct{ b, l, d, h, f int }{
		{16, 40, 32, 2, 64},
		{2, 130, 32, 4, 32},
		{64, 9, 64, 4, 256},
	}
	for _, kind := range position.Kinds() {
		for _, mode := range []string{"eval", "capture", "train"} {
			grad, capture := mode == "train", mode == "capture"
			for _, s := range shapes {
				name := fmt.Sprintf("%s/%s/B%d_T%d_D%d_H%d_F%d", kind, mode, s.b, s.l, s.d, s.h, s.f)
				cfg := Config{Vocab: 11, DModel: s.d, Heads: s.h, Layers: 2, DFF: s.f, Seed: 1, Digit0: 2}
				spec := position.Spec{Kind: kind}.WithDefaults()
				m, err := New(cfg, spec)
				if err != nil {
					t.Fatal(err)
				}
				in := Input{Tokens: make([]int, s.b*s.l), Targets: make([]int, s.b*s.l), Weights: make([]float64, s.b*s.l)}
				before := liveHeap()
				g, err := m.Build(s.b, s.l, BuildOptions{Grad: grad, Capture: capture})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := g.Run(in); err != nil {
					t.Fatal(err)
				}
				var weights []float64 // an inspection reads one layer's weights at a time
				if capture {
					if weights, err = g.Attention(0); err != nil {
						t.Fatal(err)
					}
				}
				measured := liveHeap() - before
				runtime.KeepAlive(g)
				runtime.KeepAlive(weights)
				g.Close()
				predicted := GraphBytes(cfg, Shape{Batch: s.b, Len: s.l, Grad: grad, Capture: capture, Hooks: position.HooksOf(m.Scheme)})
				ratio := float64(predicted) / float64(measured)
				t.Logf("%s: measured %.2f MB, predicted %.2f MB (x%.2f)", name, float64(measured)/1e6, float64(predicted)/1e6, ratio)
				if ratio < 1 || ratio > 1.6 {
					t.Errorf("%s: predicted %d bytes for a graph that holds %d (x%.2f); want x1..x1.6", name, predicted, measured, ratio)
				}
			}
		}
	}
}

// TestEvalMemoryLinearInT: a forward-only evaluation graph holds memory that grows linearly with
// the sequence length (its attention keeps a block of rows × T per worker, not a T×T block, and
// a bias that depends on i − j only is a table by distance, fire's, which depends on the query's
// position, is evaluated block of rows by block of rows), for a decoder and an encoder and
// every scheme: doubling T from 600 to 1200 at most about doubles the heap the graph holds (with
// T×T blocks it grew 3.4 times at these sizes), and GraphBytes predicts the same.
func TestEvalMemoryLinearInT(t *testing.T) {
	for _, kind := range position.Kinds() {
		for _, bidi := range []bool{false, true} {
			cfg := Config{Vocab: 11, DModel: 16, Heads: 2, Layers: 2, DFF: 32, Seed: 1, Bidirectional: bidi, Digit0: 2}
			spec := position.Spec{Kind: kind}
			if kind == "learned" {
				spec = spec.With("max_positions", 1200)
			}
			m, err := New(cfg, spec.WithDefaults())
			if err != nil && bidi {
				continue // causal only (fire)
			}
			if err != nil {
				t.Fatal(err)
			}
			held := func(T int) int64 {
				in := Input{Tokens: make([]int, T), Targets: make([]int, T), Weights: make([]float64, T)}
				before := liveHeap()
				g, err := m.Build(1, T, BuildOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := g.Run(in); err != nil {
					t.Fatal(err)
				}
				n := liveHeap() - before
				runtime.KeepAlive(g)
				g.Close()
				return n
			}
			a, b := held(600), held(1200)
			pa := GraphBytes(cfg, Shape{Batch: 1, Len: 600, Hooks: position.HooksOf(m.Scheme)})
			pb := GraphBytes(cfg, Shape{Batch: 1, Len: 1200, Hooks: position.HooksOf(m.Scheme)})
			t.Logf("%s bidirectional=%v: T=600 %.2f MB, T=1200 %.2f MB (x%.2f); predicted x%.2f", kind, bidi, float64(a)/1e6, float64(b)/1e6, float64(b)/float64(a), float64(pb)/float64(pa))
			if r := float64(b) / float64(a); r > 2.3 {
				t.Errorf("%s bidirectional=%v: an evaluation graph at T=1200 holds %.2f times the memory of T=600; want at most 2.3 (linear in T)", kind, bidi, r)
			}
			if r := float64(pb) / float64(pa); r > 2.3 {
				t.Errorf("%s bidirectional=%v: GraphBytes grows %.2f times from T=600 to 1200; want at most 2.3", kind, bidi, r)
			}
		}
	}
}
