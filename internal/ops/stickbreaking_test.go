package ops

import (
	"math"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestGradStickBreakingAttention: the gradient of q, k and v against central finite differences
// in float64, for each of the four forms (the query's own key or not, the remainder or not),
// scaled and unscaled.
func TestGradStickBreakingAttention(t *testing.T) {
	const B, T, H, dh = 2, 5, 2, 3
	rng := rand.New(rand.NewPCG(5, 13))
	for _, c := range []StickBreakingConfig{
		{}, {AttendCurrent: true}, {Remainder: true}, {AttendCurrent: true, Remainder: true, Unscaled: true},
	} {
		c.Batch, c.Len, c.Heads = B, T, H
		checkOp(t, "StickBreakingAttention", []input{
			{[]int{B * T, H * dh}, randn(rng, B*T*H*dh, 1.2), true},
			{[]int{B * T, H * dh}, randn(rng, B*T*H*dh, 1.2), true},
			{[]int{B * T, H * dh}, randn(rng, B*T*H*dh, 1), true},
		}, func(in []*G.Node) (*G.Node, error) {
			return StickBreakingAttention(in[0], in[1], in[2], c)
		})
	}
}

// sbReference is the forward pass of shawntan/stickbreaking-attention's reference (at
// 3147a3841b025a31d271fc8f873120ff6fa0461b, stickbreaking_attention/sb_ref.py, stickbreaking(),
// with the mask and cum_weight of tests/test_attn.py, ref_fwd, which adds o + rem·v), written
// out here with whole matrices in float64 (flash-linear-attention's
// fla/ops/stickbreaking_attn/naive.py, sb_attn_naive at db7411ad698d8c5efc72d4412b6a393dbd948f3f,
// is the same formula):
//
//	logits = q @ kᵀ / √dh
//	mask = triu(ones, 1) if attend_current else triu(ones, 0)          (True: masked)
//	log_z = logsigmoid(logits).masked_fill(mask, −1e5)
//	log_beta = logsigmoid(−logits).masked_fill(mask, 0)
//	re_cum_log_beta = log_beta @ tril(ones, −1)     (entry [i, k]: Σ_{j>k} log_beta[i, j])
//	att = exp(log_z + re_cum_log_beta); o = att @ v; rem = 1 − Σ att;  o + rem·v (remainder)
//
// Layout: q, k, v [B, T, H, dh] flattened. It returns y and the effective weights [B, H, T, T]
// (att, plus rem on the diagonal with the remainder).
func sbReference(q, k, v []float64, B, T, H, dh int, attendCurrent, remainder bool) (y, p []float64) {
	y, p = make([]float64, B*T*H*dh), make([]float64, B*H*T*T)
	at := func(x []float64, b, i, h int) []float64 { return x[((b*T+i)*H+h)*dh:][:dh] }
	logsigmoid := func(x float64) float64 { return -math.Log1p(math.Exp(-x)) } // |x| is small here
	for b := range B {
		for h := range H {
			logZ, logBeta := make([][]float64, T), make([][]float64, T)
			for i := range T {
				logZ[i], logBeta[i] = make([]float64, T), make([]float64, T)
				for j := range T {
					s := 0.0
					for x := range dh {
						s += at(q, b, i, h)[x] * at(k, b, j, h)[x]
					}
					s /= math.Sqrt(float64(dh))
					masked := j >= i
					if attendCurrent {
						masked = j > i
					}
					logZ[i][j], logBeta[i][j] = logsigmoid(s), logsigmoid(-s)
					if masked {
						logZ[i][j], logBeta[i][j] = -1e5, 0
					}
				}
			}
			for i := range T {
				sum := 0.0
				att := make([]float64, T)
				for kk := range T {
					re := 0.0 // (log_beta @ tril(ones, −1))[i, kk] = Σ_j log_beta[i, j]·[j > kk]
					for j := range T {
						if j > kk {
							re += logBeta[i][j]
						}
					}
					att[kk] = math.Exp(logZ[i][kk] + re)
					sum += att[kk]
				}
				if remainder {
					att[i] += 1 - sum // o + rem·v: the remainder weighs the query's own value
				}
				for j, w := range att {
					p[((b*H+h)*T+i)*T+j] = w
					for x := range dh {
						at(y, b, i, h)[x] += w * at(v, b, j, h)[x]
					}
				}
			}
		}
	}
	return y, p
}

// TestStickBreakingAttentionReference: the op against sbReference on a small case (float64 to
// 1e-12, float32 to 1e-5), in each of its forms, in evaluation graphs (rows in blocks: T = 30
// spans two blocks) and with the weights captured.
func TestStickBreakingAttentionReference(t *testing.T) {
	const B, T, H, dh = 2, 30, 2, 4
	rng := rand.New(rand.NewPCG(8, 13))
	q, k, v := randn(rng, B*T*H*dh, 1.5), randn(rng, B*T*H*dh, 1.5), randn(rng, B*T*H*dh, 1)
	shapes := [][2]int{{B * T, H * dh}, {B * T, H * dh}, {B * T, H * dh}}
	for _, form := range []struct{ current, remainder bool }{{false, true}, {false, false}, {true, true}, {true, false}} {
		wantY, wantP := sbReference(q, k, v, B, T, H, dh, form.current, form.remainder)
		for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
			tol := 1e-12
			if dt == tensor.Float32 {
				tol = 1e-5
			}
			for _, capture := range []*AttentionCapture{nil, {}} {
				y, p := runAttnOp(t, dt, [][]float64{q, k, v}, shapes, capture, func(in []*G.Node) (*G.Node, error) {
					return StickBreakingAttention(in[0], in[1], in[2], StickBreakingConfig{Batch: B, Len: T, Heads: H,
						AttendCurrent: form.current, Remainder: form.remainder, Capture: capture})
				})
				worst := maxDiff(y, wantY)
				if capture != nil {
					worst = max(worst, maxDiff(p, wantP))
				}
				t.Logf("%+v %v capture=%v: max |difference| from the reference %.3g", form, dt, capture != nil, worst)
				if !(worst <= tol) {
					t.Errorf("%+v %v capture=%v: max |difference| from the reference %.3g > %g", form, dt, capture != nil, worst, tol)
				}
			}
		}
	}
}

// TestStickBreakingFloat32Long: at 8× a training length of 64 tokens (T = 512), float32 weights
// have no NaN, no row of a query with keys is all zeros, every weight float64 puts above 1e-30
// is within 1e-4 (relative) of it, and each row's sum is within 1e-5 of float64's. The logits
// are about 18 in one head: there 1 − σ(z) rounds to 0 in float32, so stick-breaking's product
// of (1 − β) taken in float32 would give every key but the nearest weight 0 (and e^(−18·m) is
// representable down to m = 5); the other head has logits near 0, where the sticks of 500 keys
// multiply down to ~2^(−500), far below float32's range.
func TestStickBreakingFloat32Long(t *testing.T) {
	const B, T, H, dh = 1, 512, 2, 4
	rng := rand.New(rand.NewPCG(9, 13))
	q, k, v := make([]float64, B*T*H*dh), make([]float64, B*T*H*dh), randn(rng, B*T*H*dh, 1)
	for r := range B * T {
		for x := range dh {
			q[(r*H+0)*dh+x] = 6 + 0.05*rng.NormFloat64() // head 0: z = q·k/2 ≈ 18
			k[(r*H+0)*dh+x] = 1.5
			q[(r*H+1)*dh+x] = 0.5 * rng.NormFloat64() // head 1: z near 0
			k[(r*H+1)*dh+x] = 0.5 * rng.NormFloat64()
		}
	}
	shapes := [][2]int{{B * T, H * dh}, {B * T, H * dh}, {B * T, H * dh}}
	var ps [2][]float64
	for n, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
		capture := &AttentionCapture{}
		_, ps[n] = runAttnOp(t, dt, [][]float64{q, k, v}, shapes, capture, func(in []*G.Node) (*G.Node, error) {
			return StickBreakingAttention(in[0], in[1], in[2], StickBreakingConfig{Batch: B, Len: T, Heads: H, Capture: capture})
		})
	}
	small := 0 // weights below float32's normal range that float64 still has
	for r := range B * H * T {
		i := r % T
		row64, row32 := ps[0][r*T:(r+1)*T], ps[1][r*T:(r+1)*T]
		s64, s32, any32 := 0.0, 0.0, false
		for j := range row32 {
			if row32[j] != row32[j] {
				t.Fatalf("row %d key %d: NaN in float32", r, j)
			}
			s64 += row64[j]
			s32 += row32[j]
			any32 = any32 || row32[j] != 0
			if row64[j] > 1e-30 && math.Abs(row32[j]-row64[j]) > 1e-4*row64[j] {
				t.Fatalf("row %d (query %d) key %d: float32 weight %g, float64 %g", r, i, j, row32[j], row64[j])
			}
			if row64[j] > 0 && row64[j] < 1e-38 {
				small++
			}
		}
		if i > 0 && !any32 {
			t.Fatalf("row %d (query %d): every float32 weight is 0", r, i)
		}
		if math.Abs(s32-s64) > 1e-5 {
			t.Fatalf("row %d: float32 weights sum to %.9g, float64 to %.9g", r, s32, s64)
		}
	}
	t.Logf("T=%d: rows agree; %d float64 weights below 1e-38 (float32 keeps them as subnormals or 0)", T, small)
}
