package position_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/posformer/posformer/position"
	"gorgonia.org/tensor"
)

// The scalings of rope at evaluation that change more than the base and position scale of
// TestRopeScaling: dynamic NTK and YaRN.
func newScaled(t *testing.T, scaling string, factor float64) *position.RoPE {
	t.Helper()
	spec := position.Spec{Kind: "rope"}.With("base", 500).With("rope_scaling", scaling)
	if factor != 0 {
		spec = spec.With("rope_factor", factor)
	}
	return mustNew(t, spec, position.Dims{DModel: 32, Heads: 2, Dtype: tensor.Float64}).(*position.RoPE)
}

// At and below the training length (n ≤ L, s ≤ 1) both are plain rope, bit for bit, as their
// formulas say (dynamic NTK's seq_len is clamped at L; YaRN's s = 1 gives θ/1 and temperature 1).
func TestRopeDynamicScalingsPlainWithinTraining(t *testing.T) {
	plain := newScaled(t, "none", 0)
	rng := rand.New(rand.NewPCG(5, 6))
	for _, s := range []*position.RoPE{newScaled(t, "dynamic_ntk", 2), newScaled(t, "dynamic_ntk", 1), newScaled(t, "yarn", 0)} {
		for _, n := range []int{1, 7, 20} {
			c := s.Rotation(n, 20)
			if c.Freqs != nil || c.Mscale != 0 || c.Base != 500 || c.Scale != 1 {
				t.Errorf("%s at %d ≤ 20: %+v, want plain rope", s.Scaling, n, c)
			}
			pos := make([]float64, 2*n)
			for i := range pos {
				pos[i] = float64(i % n)
			}
			q := randn(rng, len(pos)*32)
			if got, want := ropeGraph(t, s, q, pos, 32, n, 20), ropeGraph(t, plain, q, pos, 32, n, 20); !slices.Equal(got, want) {
				t.Errorf("%s at %d ≤ 20: differs from plain rope by %.3g", s.Scaling, n, maxAbsDiff(got, want))
			}
		}
	}
}

// Beyond training, dynamic NTK's base is base·(α·s − (α − 1))^(d/(d−2)) (with α = 1 exactly
// static NTK's), growing with the length, and the graph rotates by that base.
func TestRopeDynamicNTK(t *testing.T) {
	ntk, dyn1, dyn2 := newScaled(t, "ntk", 0), newScaled(t, "dynamic_ntk", 1), newScaled(t, "dynamic_ntk", 2)
	d := float64(dyn2.Rot)
	rng := rand.New(rand.NewPCG(7, 8))
	prev := 500.0
	for _, n := range []int{21, 25, 40, 64, 200, 1000} {
		s := float64(n) / 20
		b1, sc1 := dyn1.ScaledFor(n, 20)
		bn, _ := ntk.ScaledFor(n, 20)
		if b1 != bn || sc1 != 1 {
			t.Errorf("dynamic_ntk α = 1 at %d: base %v, scale %v; ntk's base %v", n, b1, sc1, bn)
		}
		want := 500 * math.Pow(2*s-1, d/(d-2))
		b2, sc2 := dyn2.ScaledFor(n, 20)
		if math.Abs(b2-want) > 1e-12*want || sc2 != 1 || !(b2 > prev) {
			t.Errorf("dynamic_ntk α = 2 at %d: base %v (scale %v), want %v, above the previous %v", n, b2, sc2, want, prev)
		}
		prev = b2
		pos := make([]float64, n)
		for i := range pos {
			pos[i] = float64(i)
		}
		q := randn(rng, n*32)
		got := ropeGraph(t, dyn2, q, pos, 32, n, 20)
		ref := &position.RoPE{Base: want, Heads: 2, HeadDim: 16, Rot: 16}
		for p := range n {
			for h := range 2 {
				lo, hi := p*32+h*16, p*32+(h+1)*16
				if e := maxAbsDiff(got[lo:hi], ref.Rotate(q[lo:hi], float64(p))); e > 1e-12 {
					t.Fatalf("dynamic_ntk at %d, position %d: differs from rope with base %v by %.3g", n, p, want, e)
				}
			}
		}
	}
}

// YaRN beyond training: the fast pairs (more than β_fast = 32 turns over L) keep θ, the slow ones
// (fewer than β_slow = 1 turn) take θ/s, the ones between lie between; cos and sin are multiplied
// by 0.1·ln s + 1. Checked against the pairs' turns over L computed here, not the ramp's indices.
func TestRopeYaRN(t *testing.T) {
	y := newScaled(t, "yarn", 0)
	for _, c := range []struct{ n, L int }{{21, 20}, {40, 20}, {200, 20}, {4096, 256}, {1 << 14, 1024}} {
		s := float64(c.n) / float64(c.L)
		rc := y.Rotation(c.n, c.L)
		if math.Abs(rc.Mscale-(0.1*math.Log(s)+1)) > 1e-15 || rc.Base != 500 || rc.Scale != 1 {
			t.Errorf("%d/%d: %+v, want temperature %v", c.n, c.L, rc, 0.1*math.Log(s)+1)
		}
		th := y.Theta()
		if len(rc.Freqs) != len(th) {
			t.Fatalf("%d/%d: %d frequencies for %d pairs", c.n, c.L, len(rc.Freqs), len(th))
		}
		for i, w := range th {
			turns := float64(c.L) * w / (2 * math.Pi)
			f := rc.Freqs[i]
			switch {
			case turns > 32*math.Pow(500, 2.0/16) && f != w: // a whole pair index above the β_fast bound
				t.Errorf("%d/%d pair %d (%.3g turns over L): θ' = %v, want θ = %v", c.n, c.L, i, turns, f, w)
			case turns < 1/math.Pow(500, 2.0/16) && math.Abs(f-w/s) > 1e-15*w: // a pair index below β_slow's
				t.Errorf("%d/%d pair %d (%.3g turns over L): θ' = %v, want θ/s = %v", c.n, c.L, i, turns, f, w/s)
			case f < w/s*(1-1e-12) || f > w*(1+1e-12):
				t.Errorf("%d/%d pair %d: θ' = %v outside [θ/s, θ] = [%v, %v]", c.n, c.L, i, f, w/s, w)
			}
			if i > 0 && rc.Freqs[i]/th[i] > rc.Freqs[i-1]/th[i-1]+1e-15 {
				t.Errorf("%d/%d: θ'/θ grows from pair %d to %d", c.n, c.L, i-1, i)
			}
		}
	}
}

// For a fixed scaling (a fixed evaluation length), every scaling's rotated q·k depends only on
// the offset m − n: the property that makes rope relative survives dynamic NTK and YaRN.
func TestRopeScalingsRelative(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const n, L = 300, 40
	for _, scaling := range []string{"interpolate", "ntk", "dynamic_ntk", "yarn"} {
		f := 0.0
		if scaling == "dynamic_ntk" {
			f = 3
		}
		s := newScaled(t, scaling, f)
		worst := 0.0
		for range 20 {
			q, k := randn(rng, 32), randn(rng, 32)
			m, p := rng.IntN(n), rng.IntN(n)
			c := rng.IntN(n-max(m, p)) - min(m, p) // shift both by c, staying in [0, n)
			pos := []float64{float64(m), float64(p), float64(m + c), float64(p + c)}
			x := slices.Concat(q, k, q, k)
			r := ropeGraph(t, s, x, pos, 32, n, L) // one graph of length n: the scaling of n
			for h := range 2 {
				dot := func(a, b int) float64 {
					v := 0.0
					for j := h * 16; j < (h+1)*16; j++ {
						v += r[a*32+j] * r[b*32+j]
					}
					return v
				}
				worst = max(worst, math.Abs(dot(0, 1)-dot(2, 3)))
			}
		}
		if worst > 1e-9 {
			t.Errorf("%s: q·k changes by %.3g under a common shift of both positions", scaling, worst)
		}
	}
}
