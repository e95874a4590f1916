package ops

import (
	"fmt"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestAttentionTilesSameBits: the training path's attention tile by tile (attn_tiles.go) gives
// the bits of the blocked products it replaces (attnTilesOff), forward (output and every row's
// weights up to its last key) and backward (dq, dk, dv and the bias's gradient), causal and
// not, without a bias and with each form of one, with the weights captured or not, at lengths
// that are and are not multiples of the tiles and head sizes 8 to 40, in float32 and float64;
// in float32 with every kernel the CPU has (AVX2's 6×16, AVX-512's 12×16 and 12×32).
func TestAttentionTilesSameBits(t *testing.T) {
	if !useKernels {
		t.Skip("no kernels: attention goes by blocks")
	}
	kerns := []microKernel[float32]{kernel32}
	if haveKernels {
		kerns = append(kerns, kernel32avx2)
		if haveAVX512 {
			kerns = append(kerns, kernel32avx512, kernel32wide)
		}
	}
	defer func(k microKernel[float32]) { kernel32 = k }(kernel32)
	for _, kern := range kerns {
		testAttnTiles[float32](t, func() { kernel32 = kern }, fmt.Sprintf("%d×%d", kern.mr, kern.nr))
	}
	testAttnTiles[float64](t, func() {}, "f64")
}

func testAttnTiles[F Float](t *testing.T, useKern func(), name string) {
	defer func(k microKernel[float32]) { kernel32 = k }(kernel32)
	rng := rand.New(rand.NewPCG(41, 42))
	const B, H = 2, 2
	defer func(r int) { attnBlockRows = r }(attnBlockRows)
	for _, T := range []int{1, 5, 13, 24, 37, 61, 64, 77} {
		attnBlockRows = 0
		if T == 61 { // blocks that are not a multiple of the tiles
			attnBlockRows = 8
		}
		for _, dh := range []int{8, 16, 24, 32, 40} {
			D := H * dh
			for _, causal := range []bool{true, false} {
				for _, form := range []int{biasNone, biasPairs, biasDist, biasDistSeq} {
					whole := form == biasDist || T == 61 // captured weights: zero up to T
					q, k, v, dy := randSlice[F](rng, B*T*D), randSlice[F](rng, B*T*D), randSlice[F](rng, B*T*D), randSlice[F](rng, B*T*D)
					var bias G.Value
					switch form {
					case biasPairs:
						bias = tensor.New(tensor.WithShape(H, T, T), tensor.WithBacking(randSlice[F](rng, H*T*T)))
					case biasDist:
						bias = tensor.New(tensor.WithShape(H, 2*T-1), tensor.WithBacking(randSlice[F](rng, H*(2*T-1))))
					case biasDistSeq:
						bias = tensor.New(tensor.WithShape(B*H, 2*T-1), tensor.WithBacking(randSlice[F](rng, B*H*(2*T-1))))
					}
					run := func(tiles bool) (y, p, out []F) {
						defer func(off bool) { attnTilesOff = off }(attnTilesOff)
						attnTilesOff = !tiles
						if tiles {
							useKern()
						}
						mat := func(x []F) G.Value { return tensor.New(tensor.WithShape(B*T, D), tensor.WithBacking(x)) }
						vs := []G.Value{mat(q), mat(k), mat(v)}
						op := &attentionOp{base: newBase("Attention", 3), cfg: AttentionConfig{Batch: B, Len: T, Heads: H, Causal: causal}, keepP: true, whole: whole, bias: form}
						nb := 0
						if bias != nil {
							vs = append(vs, bias)
							op.arity, nb = 4, bias.Shape().TotalSize()
						}
						if tiles != attnTiles(op, T, dh) {
							t.Fatalf("attnTiles = %v with attnTilesOff = %v", !tiles, !tiles)
						}
						g := &attentionGradOp{base: newBase("AttentionGrad", len(vs)+2), fwd: op}
						y = make([]F, B*T*D)
						out = make([]F, 3*B*T*D+nb)
						var ps []F
						if pf, ok := any(&y).(*[]float32); ok {
							attnFwd(op, &op.p32, &op.m32, &op.r32, &op.kt32, vs, *pf)
							attnBwd(op, op.p32.s, &g.d32, &g.g32, &g.r32, &g.vt32, append(vs, mat(y), mat(dy)), any(out).([]float32))
							ps = any(op.p32.s).([]F)
						} else {
							attnFwd(op, &op.p64, &op.m64, &op.r64, &op.kt64, vs, any(y).([]float64))
							attnBwd(op, op.p64.s, &g.d64, &g.g64, &g.r64, &g.vt64, append(vs, mat(y), mat(dy)), any(out).([]float64))
							ps = any(op.p64.s).([]F)
						}
						for bh := 0; bh < B*H; bh++ { // the weights each row has: keys up to its last (all with whole)
							for i := 0; i < T; i++ {
								n := T
								if causal && !whole {
									n = i + 1
								}
								p = append(p, ps[bh*T*T+i*T:bh*T*T+i*T+n]...)
							}
						}
						return y, p, out
					}
					y0, p0, g0 := run(false)
					y1, p1, g1 := run(true)
					what := fmt.Sprintf("%s T=%d dh=%d causal=%v bias=%d", name, T, dh, causal, form)
					sameBits(t, what+": weights", p1, p0)
					sameBits(t, what+": output", y1, y0)
					sameBits(t, what+": gradients", g1, g0)
				}
			}
		}
	}
}
