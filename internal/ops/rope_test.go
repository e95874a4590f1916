package ops

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/posformer/posformer/internal/pmath"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// rotateRef is the rotation as RoPE and xPos computed it before their tables were kept by
// position: a cos/sin row per row of x from angle(row's position, pair), then each pair rotated.
func rotateRef[F Float](x []F, pos []float64, d int, cfg RopeConfig, angle func(p float64, i int) (s, c float64)) []F {
	y := append([]F(nil), x...)
	dh, half := d/cfg.Heads, cfg.Rot/2
	for r, p := range pos {
		for i := 0; i < half; i++ {
			s64, c64 := angle(p, i)
			ci, si := F(c64), F(s64)
			for h := 0; h < cfg.Heads; h++ {
				off := r*d + h*dh
				x0, x1 := x[off+2*i], x[off+2*i+1]
				y[off+2*i] = F(x0*ci) - F(x1*si)
				y[off+2*i+1] = F(x0*si) + F(x1*ci)
			}
		}
	}
	return y
}

// ropeAngleRef is the old ropeOp.angles' entry for position p and pair i.
func ropeAngleRef(cfg RopeConfig, inverse bool) func(p float64, i int) (float64, float64) {
	th := cfg.theta()
	return func(p float64, i int) (float64, float64) {
		s, c := pmath.Sincos(p * cfg.Scale * th[i])
		if m := cfg.Mscale; m != 0 && m != 1 {
			s, c = m*s, m*c
		}
		if inverse {
			s = -s
		}
		return s, c
	}
}

// xposAngleRef is the old xposOp.tables' entry for position p and pair i.
func xposAngleRef(cfg XPosConfig, inverse bool) func(p float64, i int) (float64, float64) {
	return func(p float64, i int) (float64, float64) {
		e := (p - cfg.Center) / cfg.ScaleBase
		if cfg.Key {
			e = -e
		}
		m := pmath.Pow(cfg.Zeta[i], e)
		s, c := pmath.Sincos(p * cfg.Theta[i])
		s, c = m*s, m*c
		if inverse {
			s = -s
		}
		return s, c
	}
}

// positionRuns is a sequence of position vectors of n rows as the ops meet them: a batch of
// sequences 0..T−1 (twice: the kept tables), randomized increasing positions, fractional,
// negative, ±0 and large ones, and fresh positions run after run, past the tables' bound.
func positionRuns(rng *rand.Rand, n int) [][]float64 {
	var runs [][]float64
	add := func(f func(r int) float64) {
		p := make([]float64, n)
		for r := range p {
			p[r] = f(r)
		}
		runs = append(runs, p)
	}
	add(func(r int) float64 { return float64(r % 5) })
	add(func(r int) float64 { return float64(r % 5) })
	add(func(r int) float64 { return float64(r%5*7 + rng.IntN(7)) })
	add(func(r int) float64 { return float64(r%5) + 0.25*float64(r%3) })
	add(func(r int) float64 { return []float64{0, math.Copysign(0, -1), -3, 1e6, 0.5}[r%5] })
	add(func(r int) float64 { return float64(r % 5) })
	for k := range 3*4096/n + 3 {
		add(func(r int) float64 { return float64(10000 + k*n + r) })
	}
	add(func(r int) float64 { return float64(r % 5) })
	return runs
}

// checkRotation runs op (a ropeOp or xposOp) on x [n, d] at every position run, in float64 and
// float32 (with positions in the same type), against rotateRef's bits.
func checkRotation(t *testing.T, name string, mk func() doer, n, d int, cfg RopeConfig, angle func(p float64, i int) (float64, float64)) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, uint64(n)))
	x64 := randn(rng, n*d, 1)
	for i, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0, 1e-40, math.MaxFloat32, math.Float64frombits(0x7ff8_0000_dead_0000)} {
		x64[(i*131+7)%len(x64)] = v // special values, some paired with each other
		x64[(i*131+8)%len(x64)] = -v
	}
	x32 := make([]float32, len(x64))
	for i, v := range x64 {
		x32[i] = float32(v)
	}
	op64, op32p := mk(), mk()
	for k, pos := range positionRuns(rng, n) {
		pos32 := make([]float32, n)
		for i, p := range pos {
			pos32[i] = float32(p)
		}
		p32 := make([]float64, n) // the positions as a float32 vector gives them
		for i, p := range pos32 {
			p32[i] = float64(p)
		}
		xv64 := tensor.New(tensor.WithShape(n, d), tensor.WithBacking(x64))
		xv32 := tensor.New(tensor.WithShape(n, d), tensor.WithBacking(x32))
		pv64 := tensor.New(tensor.WithShape(n), tensor.WithBacking(pos))
		pv32 := tensor.New(tensor.WithShape(n), tensor.WithBacking(pos32))
		for _, c := range []struct {
			op    doer
			x, p  *tensor.Dense
			want  func() []float64
			float bool
		}{
			{op64, xv64, pv64, func() []float64 { return rotateRef(x64, pos, d, cfg, angle) }, false},
			{op32p, xv32, pv32, func() []float64 { return widen(rotateRef(x32, p32, d, cfg, angle)) }, true},
		} {
			out, err := c.op.Do(c.x, c.p)
			if err != nil {
				t.Fatal(err)
			}
			got := out.Data()
			var g []float64
			if c.float {
				g = widen(got.([]float32))
			} else {
				g = got.([]float64)
			}
			want := c.want()
			for i := range want {
				if math.Float64bits(g[i]) != math.Float64bits(want[i]) {
					t.Fatalf("%s, run %d (positions %v…), float32 %v: element %d is %v, want %v (same bits)", name, k, pos[:min(n, 5)], c.float, i, g[i], want[i])
				}
			}
		}
	}
}

// doer is the part of an op checkRotation calls.
type doer interface {
	Do(...G.Value) (G.Value, error)
}

func widen(x []float32) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = float64(v)
	}
	return y
}

// TestRopeSameBits: RoPE's rotation with its tables kept by position, and in float32 eight values
// at a time (rotPairs8, when the CPU has it), gives the bits of the rotation with a table row per
// row in Go, forward and gradient (the inverse rotation), for plain rope at head sizes 8, 16 and
// 32, a rotary fraction (past Rot: copied; Rot not a multiple of 8: the Go tail), a position
// scale, and per-pair frequencies with a cos/sin factor, over position runs that repeat, change
// and outgrow the tables, special values of x included, at 1 and 2 workers.
func TestRopeSameBits(t *testing.T) {
	for _, c := range []struct {
		cfg RopeConfig
		d   int
	}{
		{RopeConfig{Heads: 2, Rot: 8, Base: 10000, Scale: 1}, 16},
		{RopeConfig{Heads: 4, Rot: 16, Base: 10000, Scale: 1}, 64},
		{RopeConfig{Heads: 3, Rot: 32, Base: 10000, Scale: 1}, 96},
		{RopeConfig{Heads: 3, Rot: 4, Base: 100, Scale: 1}, 24},
		{RopeConfig{Heads: 2, Rot: 12, Base: 10000, Scale: 1}, 40},
		{RopeConfig{Heads: 2, Rot: 8, Base: 10000, Scale: 0.37}, 24},
		{RopeConfig{Heads: 2, Rot: 6, Base: 10000, Scale: 1, Freqs: []float64{1, 0.3, 0}, Mscale: 1.07}, 24},
		{RopeConfig{Heads: 1, Rot: 16, Base: 10000, Scale: 1, Freqs: []float64{1, 0.3, 0.1, 0.03, 0.01, 0.003, 0, 0}, Mscale: 1.07}, 16},
	} {
		for _, inv := range []bool{false, true} {
			for _, vec := range []bool{false, true} {
				if vec && !rotVector {
					continue
				}
				for _, w := range []int{1, 2} {
					withRotVector(vec, func() {
						withWorkers(t, w, func() {
							cfg := c.cfg
							mk := func() doer { return &ropeOp{base: newBase("Rope", 2), cfg: cfg, theta: cfg.theta(), inverse: inv} }
							checkRotation(t, "rope", mk, 700, c.d, cfg, ropeAngleRef(cfg, inv))
						})
					})
				}
			}
		}
	}
}

// withRotVector runs f with rotVector set to on.
func withRotVector(on bool, f func()) {
	defer func(v bool) { rotVector = v }(rotVector)
	rotVector = on
	f()
}

// TestXPosSameBits: xPos's rotation and scale with its tables kept by position give the bits of a
// table row per row, queries and keys, forward and gradient, at head size 7 (Go) and 16 (eight
// values at a time where the CPU has it).
func TestXPosSameBits(t *testing.T) {
	for _, key := range []bool{false, true} {
		for _, inv := range []bool{false, true} {
			cfg := xposConfig(key)
			mk := func() doer { return &xposOp{base: newBase("XPos", 2), cfg: cfg, inverse: inv} }
			checkRotation(t, "xpos", mk, 700, 14, RopeConfig{Heads: cfg.Heads, Rot: cfg.Rot}, xposAngleRef(cfg, inv))
			cfg.Heads, cfg.Rot, cfg.Theta, cfg.Zeta = 4, 16, Theta(100, 16), []float64{0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95}
			checkRotation(t, "xpos", mk, 700, 64, RopeConfig{Heads: cfg.Heads, Rot: cfg.Rot}, xposAngleRef(cfg, inv))
		}
	}
}

// BenchmarkRope is RoPE's forward on q at the research model's shape (B·T = 32·128 rows of 8
// heads of 32) and the reference model's (32·64 rows of 4 heads of 16), float32, positions 0..T−1,
// with the rotation in Go ("go") and eight values at a time ("vector", where the CPU has it).
func BenchmarkRope(b *testing.B) {
	for _, s := range []struct {
		name       string
		B, T, H, D int
	}{{"research", 32, 128, 8, 256}, {"reference", 32, 64, 4, 64}} {
		rng := rand.New(rand.NewPCG(1, 1))
		n := s.B * s.T
		x := tensor.New(tensor.WithShape(n, s.D), tensor.WithBacking(narrow(randn(rng, n*s.D, 1))))
		pos := make([]float32, n)
		for i := range pos {
			pos[i] = float32(i % s.T)
		}
		pv := tensor.New(tensor.WithShape(n), tensor.WithBacking(pos))
		cfg := RopeConfig{Heads: s.H, Rot: s.D / s.H, Base: 10000, Scale: 1}
		op := &ropeOp{base: newBase("Rope", 2), cfg: cfg, theta: cfg.theta()}
		for _, vec := range []bool{false, true} {
			if vec && !rotVector {
				continue
			}
			name := map[bool]string{false: "go", true: "vector"}[vec]
			b.Run(s.name+"/"+name, func(b *testing.B) {
				withRotVector(vec, func() {
					if _, err := op.Do(x, pv); err != nil {
						b.Fatal(err)
					}
					cpu0 := cpuTime()
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						if _, err := op.Do(x, pv); err != nil {
							b.Fatal(err)
						}
					}
					if cpu := cpuTime() - cpu0; cpu > 0 {
						b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
					}
				})
			})
		}
	}
}
