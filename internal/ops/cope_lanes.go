package ops

import "math"

// CoPE's vector kernels (cope_amd64.s) written out lane by lane: each performs the AVX2 kernel's
// operations in its order, so that it gives the kernel's bits on any CPU. They serve the rows'
// last few values (fewer than eight), the builds without the assembly (arm64, purego) and the
// amd64 build without its kernels (POSFORMER_GEMM=blas), so that CoPE's float32 results are the
// same bits on every path; TestCoPEKernelsMatchLanes checks them against the assembly.

// copeGates8Lanes is copeGates8: g_j = 1/(1 + exp(−z_j)) for the first len(z)&^7 values, the
// exponential the softmax's (expShiftSum8Lanes) on −z clamped to its range.
func copeGates8Lanes(g, z []float32) {
	for j := range len(z) &^ 7 {
		g[j] = copeGateLane(z[j])
	}
}

func copeGateLane(z float32) float32 {
	lo, hi := math.Float32frombits(0xc2aeac4f), math.Float32frombits(0x42b0c0a5)
	v := minps(maxps(-z, lo), hi)
	e := expLane(v, v, 0, false)
	return 1 / (1 + e)
}

// copeScanLanes is the kernels' suffix sums of eight gates: three steps, each adding to lane j
// lane j + k (k = 1, 2, 4; 0 past lane 7), then the carry, the sum of the gates after the eight.
func copeScanLanes(g []float32, carry float32) (s [8]float32) {
	copy(s[:], g[:8])
	for _, k := range []int{1, 2, 4} {
		prev := s
		for j := range 8 - k {
			s[j] = prev[j] + prev[j+k]
		}
	}
	for j := range s {
		s[j] += carry
	}
	return s
}

// copeSuffix8Lanes is copeSuffix8: the chunks of eight of g (len(g) a multiple of eight) from the
// last, raw_j = Σ_{t ≥ j} g_t + carry summed as copeScanLanes does; it returns the new carry.
func copeSuffix8Lanes(raw, g []float32, carry float32) float32 {
	for i := len(g)&^7 - 8; i >= 0; i -= 8 {
		s := copeScanLanes(g[i:], carry)
		copy(raw[i:i+8], s[:])
		carry = s[0]
	}
	return carry
}

// copeScan8Lanes is copeScan8: for the chunks of eight of row (len(row) a multiple of eight)
// from the last, the positions p = min(s, top) of the suffix sums s of the gates g (and carry),
// and row_j += l[⌈p⌉]·w + l[⌊p⌋]·(1 − w), w = p − ⌊p⌋; it returns the new carry.
func copeScan8Lanes(row, g, l []float32, top, carry float32) float32 {
	for i := len(row)&^7 - 8; i >= 0; i -= 8 {
		s := copeScanLanes(g[i:], carry)
		for j := range 8 {
			row[i+j] = copeInterpLane(row[i+j], s[j], l, top)
		}
		carry = s[0]
	}
	return carry
}

// copeInterpLane is one lane of copeScan8's interpolation: z + l[⌈p⌉]·w + l[⌊p⌋]·(1 − w), each
// product and sum rounded, with p = MINPS(s, top), ⌊p⌋ by truncation (CVTTPS2DQ; p ≥ 0).
func copeInterpLane(z, s float32, l []float32, top float32) float32 {
	p := minps(s, top)
	f := int32(p)
	w := p - float32(f)
	c := f
	if w > 0 {
		c++
	}
	return float32(z+float32(l[c]*w)) + float32(l[f]*float32(1-w))
}

// copeLogits32 is copeLogits for float32 rows: the gates eight at a time (copeGates8), and the
// suffix sums and interpolation eight keys at a time from the query down (copeScan8); the last
// len(row) mod 8 gates and the first len(row) mod 8 keys' sums as one chunk padded with zeros
// (exact: a zero gate adds nothing).
func copeLogits32(row, g, l []float32, top float32) {
	n := len(row)
	v := n &^ 7
	copeGates8(g[:v], row[:v])
	var zb, gb [8]float32
	if v < n {
		copy(zb[:], row[v:])
		copeGates8(gb[:], zb[:])
		copy(g[v:n], gb[:])
	}
	r := n - v // the first r keys: a partial chunk
	carry := copeScan8(row[r:], g[r:n], l, top, 0)
	if r > 0 {
		zb, gb = [8]float32{}, [8]float32{}
		copy(zb[:], row[:r])
		copy(gb[:], g[:r])
		copeScan8(zb[:], gb[:], l, top, carry)
		copy(row[:r], zb[:r])
	}
}

// copeRaw32 writes the gates of the row's logits z into g (in place: g holds z) and their suffix
// sums into raw, as copeLogits32 computes them.
func copeRaw32(raw, g []float32) {
	n := len(g)
	v := n &^ 7
	copeGates8(g[:v], g[:v])
	var gb, sb [8]float32
	if v < n {
		copy(gb[:], g[v:])
		copeGates8(gb[:], gb[:])
		copy(g[v:n], gb[:])
	}
	r := n - v
	carry := copeSuffix8(raw[r:n], g[r:n], 0)
	if r > 0 {
		gb = [8]float32{}
		copy(gb[:], g[:r])
		copeSuffix8(sb[:], gb[:], carry)
		copy(raw[:r], sb[:r])
	}
}

// copeRowGrad32 is copeRowGrad for float32 rows: the gates and suffix sums as the forward pass
// computes them (copeRaw32), the per-key gradient eight keys at a time (copeGrad8; the last
// len(p) mod 8 keys as one chunk padded with zero weights, whose gradients are zero), then dl from
// the per-key gradients of l[⌊p⌋] and l[⌈p⌉] (cf, cc), the keys in order, summed in registers
// while ⌊p⌋ stays the same (the positions fall as j grows) and added to dl when it changes.
// cf, cc, fi and ci are scratch of len(p) values.
func copeRowGrad32(dz, g, p, l, dl, raw []float32, top, dot float32, cf, cc []float32, fi, ci []int32) {
	copeRaw32(raw, g)
	n := len(p)
	v := n &^ 7
	carry := copeGrad8(dz[:v], g[:v], p[:v], raw[:v], l, cf, cc, fi, ci, top, dot, 0)
	if v < n {
		var db, gb, pb, rb, fb, cb [8]float32
		var ib, jb [8]int32
		copy(db[:], dz[v:n])
		copy(gb[:], g[v:n])
		copy(pb[:], p[v:n])
		copy(rb[:], raw[v:n])
		copeGrad8(db[:], gb[:], pb[:], rb[:], l, fb[:], cb[:], ib[:], jb[:], top, dot, carry)
		copy(dz[v:n], db[:])
		copy(cf[v:n], fb[:])
		copy(cc[v:n], cb[:])
		copy(fi[v:n], ib[:])
		copy(ci[v:n], jb[:])
	}
	clear(dl)
	cur := fi[0]
	var a0, a1 float32 // the gradients of l[cur] and l[cur + 1] since cur changed
	for j := range n {
		if f := fi[j]; f != cur {
			dl[cur] += a0
			if a1 != 0 {
				dl[cur+1] += a1
			}
			cur, a0, a1 = f, 0, 0
		}
		a0 += cf[j]
		if ci[j] != cur {
			a1 += cc[j]
		}
	}
	dl[cur] += a0
	if a1 != 0 {
		dl[cur+1] += a1
	}
}

// copeGrad8Lanes is copeGrad8, the backward pass of a row's chunks of eight keys (len(dz) a
// multiple of eight) from the first: with dP in dz, the weights p, the gates g and the suffix
// sums raw, per key da = p·(dP − dot), pos = MINPS(raw, top), f = trunc(pos), w = pos − f,
// c = f + (w > 0); fi, ci = f, c; cf = da·(1 − w), cc = da·w (the gradient of l[f] and l[c]);
// dp = da·(l[c] − l[f]); dg = the prefix sums of dp (lane j += lane j − k, k = 1, 2, 4, then the
// carry, the sum of the chunks before), and dz = da + (dg·g)·(1 − g). It returns the new carry.
func copeGrad8Lanes(dz, g, p, raw, l, cf, cc []float32, fi, ci []int32, top, dot, carry float32) float32 {
	for i := 0; i+8 <= len(dz); i += 8 {
		var da, dp [8]float32
		for j := range 8 {
			da[j] = p[i+j] * (dz[i+j] - dot)
			pos := minps(raw[i+j], top)
			f := int32(pos)
			w := pos - float32(f)
			c := f
			if w > 0 {
				c++
			}
			fi[i+j], ci[i+j] = f, c
			dp[j] = da[j] * (l[c] - l[f])
			cc[i+j] = da[j] * w
			cf[i+j] = da[j] * (1 - w)
		}
		for _, k := range []int{1, 2, 4} {
			prev := dp
			for j := k; j < 8; j++ {
				dp[j] = prev[j] + prev[j-k]
			}
		}
		for j := range dp {
			dp[j] += carry
		}
		carry = dp[7]
		for j := range 8 {
			dz[i+j] = da[j] + float32(float32(dp[j]*g[i+j])*(1-g[i+j]))
		}
	}
	return carry
}
