package ops

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/posformer/posformer/internal/pmath"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestGradLogScale: the gradient to q and s against central finite differences in float64,
// causal and bidirectional.
func TestGradLogScale(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 13))
	for _, causal := range []bool{true, false} {
		checkOp(t, "LogScale", []input{
			{[]int{2 * 5, 6}, randn(rng, 60, 1), true},
			{[]int{3}, randn(rng, 3, 1), true},
		}, func(in []*G.Node) (*G.Node, error) {
			return LogScale(in[0], in[1], LogScaleConfig{Batch: 2, Len: 5, Heads: 3, Causal: causal})
		})
	}
}

// TestLogScaleValues: row r of head h is multiplied by s_h·ln n, n = (r mod T) + 1 causal and T
// bidirectional: the first query of a causal sequence sees one key and is scaled by 0.
func TestLogScaleValues(t *testing.T) {
	const B, T, H, dh = 2, 4, 2, 3
	rng := rand.New(rand.NewPCG(9, 13))
	q, s := randn(rng, B*T*H*dh, 1), []float64{0.5, -1.5}
	for _, causal := range []bool{true, false} {
		g := G.NewGraph()
		qn := G.NewTensor(g, tensor.Float64, 2, G.WithShape(B*T, H*dh), G.WithValue(tensor.New(tensor.WithShape(B*T, H*dh), tensor.WithBacking(append([]float64(nil), q...)))))
		sn := G.NewVector(g, tensor.Float64, G.WithShape(H), G.WithValue(tensor.New(tensor.WithShape(H), tensor.WithBacking(append([]float64(nil), s...)))))
		out, err := LogScale(qn, sn, LogScaleConfig{Batch: B, Len: T, Heads: H, Causal: causal})
		if err != nil {
			t.Fatal(err)
		}
		y := runOut(t, g, out)
		for r := range B * T {
			n := float64(T)
			if causal {
				n = float64(r%T + 1)
			}
			for h := range H {
				for x := range dh {
					at := r*H*dh + h*dh + x
					if want := q[at] * s[h] * math.Log(n); math.Abs(y[at]-want) > 1e-15 {
						t.Fatalf("causal %v row %d head %d: %v, want %v", causal, r, h, y[at], want)
					}
				}
			}
		}
	}
}

// TestLogScaleSameBits: the scaling and its gradient with ln n taken from a table by position give
// the bits of ln n computed row by row, causal or not, in float32 and float64.
func TestLogScaleSameBits(t *testing.T) {
	const B, T, H, dh = 3, 7, 2, 5
	rng := rand.New(rand.NewPCG(10, 13))
	q64, dy64, s64 := randn(rng, B*T*H*dh, 1), randn(rng, B*T*H*dh, 1), []float64{0.5, -1.5}
	for _, causal := range []bool{true, false} {
		cfg := LogScaleConfig{Batch: B, Len: T, Heads: H, Causal: causal}
		logN := func(r int) float64 { // the code the table replaced
			if causal {
				return pmath.Log(float64(r%T + 1))
			}
			return pmath.Log(float64(T))
		}
		check := func(what string, got, want []float64) {
			for i := range want {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("causal %v %s: element %d is %v, want %v (same bits)", causal, what, i, got[i], want[i])
				}
			}
		}
		{
			y, ds := make([]float64, len(q64)), make([]float64, H)
			logScaleRows(q64, s64, y, H*dh, cfg.logs())
			logScaleGrad(q64, dy64, ds, H*dh, cfg.logs())
			wy, wds := make([]float64, len(q64)), make([]float64, H)
			for r := range B * T {
				for h := range H {
					var acc float64
					for x := h * dh; x < (h+1)*dh; x++ {
						wy[r*H*dh+x] = q64[r*H*dh+x] * (s64[h] * logN(r))
						acc += float64(q64[r*H*dh+x] * dy64[r*H*dh+x]) // float64(): not fused on arm64
					}
					wds[h] += float64(logN(r) * acc)
				}
			}
			check("float64 forward", y, wy)
			check("float64 gradient of s", ds, wds)
		}
		q, dy, s := narrow(q64), narrow(dy64), narrow(s64)
		y, ds := make([]float32, len(q)), make([]float32, H)
		logScaleRows(q, s, y, H*dh, cfg.logs())
		logScaleGrad(q, dy, ds, H*dh, cfg.logs())
		wy, wds := make([]float32, len(q)), make([]float32, H)
		for r := range B * T {
			ln := float32(logN(r))
			for h := range H {
				var acc float32
				for x := h * dh; x < (h+1)*dh; x++ {
					wy[r*H*dh+x] = q[r*H*dh+x] * (s[h] * ln)
					acc += float32(q[r*H*dh+x] * dy[r*H*dh+x])
				}
				wds[h] += float32(ln * acc)
			}
		}
		check("float32 forward", widen(y), widen(wy))
		check("float32 gradient of s", widen(ds), widen(wds))
	}
}

func narrow(x []float64) []float32 {
	y := make([]float32, len(x))
	for i, v := range x {
		y[i] = float32(v)
	}
	return y
}
