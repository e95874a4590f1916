package ops

// The training path's per-head attention, tile by tile: each head's products go straight to the
// float32/float64 micro-kernel (kernelOf) one mr×nr tile at a time, on operands packed once per
// head, instead of through gemm1 one block of 24 query rows at a time. A causal head then
// computes, for a tile of mr query rows, the keys up to the tile's last row only (not up to the
// end of a 24-row block), and the per-call work of gemmSerial (buffers from the pool, the driver's
// closures) is gone: at head size 32 and 16 those were about a third of attention's CPU time.
//
// Every element is the chain gemm computes: acc = Σ_p fma(a_p, b_p, acc) from acc = +0, p in
// order, then alpha·acc. The chains of P·V and dS·K (over keys) end at the tile's last key, and
// those of Pᵀ·dY and dSᵀ·Q (over queries) start at the key tile's first query, where the
// blocked products ran on to the block's end (or started at its first row): the terms left out
// are masked weights, exact zeros, and fma(±0, x, acc) = acc for a finite x and an acc that is
// never −0 (it starts at +0, and a sum that cancels to zero rounds to +0). So the results are the
// blocked code's bits whenever V, dY, K and Q are finite (TestAttentionTilesSameBits).

// attnTiles reports whether attention of length T and head size dh goes through the per-head
// tiles: the training path (P kept, no bias by rows, no relative keys) on the kernels, heads of
// at least one value, every product within one block of the inner dimension (T, dh ≤ gemmKC)
// and none sent to the BLAS.
func attnTiles(op *attentionOp, T, dh int) bool {
	return op.keepP && !op.rel && op.bias != biasRows && !attnTilesOff && useKernels &&
		dh > 0 && T <= gemmKC && dh <= gemmKC && !usesBLAS(T, T, max(T, dh))
}

// attnTilesOff turns the per-head tiles off (the tests compare both paths).
var attnTilesOff = false

// headTiles is one worker's scratch for the per-head tiles.
type headTiles[F Float] struct {
	b1, b2 []F       // packed operands: panels of nr columns, each its whole inner dimension long
	apad   []F       // a partial tile's rows of A, zero-padded to mr: [k, mr]
	padded padKey[F] // what apad holds (the panels of a row block reuse it); reset per head
	tile   []F       // a partial tile's output [mr, nr]
}

// padKey names a partial tile's A: where it starts, its steps and strides, its rows.
type padKey[F Float] struct {
	a            *F
	k, rs, cs, m int
}

// tilesOf returns w workers' scratch kept in *ts across runs.
func tilesOf[F Float](ts *[]headTiles[F], w int) []headTiles[F] {
	if len(*ts) < w {
		*ts = append(*ts, make([]headTiles[F], w-len(*ts))...)
	}
	return (*ts)[:w]
}

// tilesFor returns the one of t32 and t64 that holds F.
func tilesFor[F Float](t32 *[]headTiles[float32], t64 *[]headTiles[float64]) *[]headTiles[F] {
	var z F
	if _, ok := any(z).(float32); ok {
		return any(t32).(*[]headTiles[F])
	}
	return any(t64).(*[]headTiles[F])
}

// grow returns s with length n, reallocated when its capacity is short.
func grow[F Float](s []F, n int) []F {
	if cap(s) < n {
		return make([]F, n)
	}
	return s[:n]
}

// packCols packs the [rows, cols] matrix b (row stride ldb) into *dst as panels of nr columns,
// panel q (columns q·nr..) at q·nr·rows, each row's nr values together (columns past cols zero).
func packCols[F Float](dst *[]F, b []F, ldb, rows, cols, nr int) []F {
	*dst = grow(*dst, (cols+nr-1)/nr*nr*rows)
	packB(false, b, ldb, 0, 0, rows, cols, nr, *dst, nil)
	return *dst
}

// packRowsT packs the transpose of the [rows, cols] matrix b (row stride ldb) into *dst as panels
// of nr of b's rows, panel q (rows q·nr..) at q·nr·cols: for each column p, nr values.
func packRowsT[F Float](dst *[]F, b []F, ldb, rows, cols, nr int) []F {
	*dst = grow(*dst, (rows+nr-1)/nr*nr*cols)
	packB(true, b, ldb, 0, 0, cols, rows, nr, *dst, nil)
	return *dst
}

// mul computes C[0:m, 0:n] = alpha·A·B over k steps with one call of the micro-kernel (m ≤ mr,
// n ≤ nr): A's element (r, p) is a[r·rs + p·cs], B's row p the nr values at b[p·nr:] (a packed
// panel), C row-major with row stride ldc. A tile of mr rows is written in place when n = nr or
// when wide is set (C's rows have nr columns to spare from the first, which may be overwritten);
// otherwise it goes through t.tile, and rows of A past m through t.apad, zero-padded, as
// gemmSerial does.
func (t *headTiles[F]) mul(kern microKernel[F], k int, a []F, rs, cs int, b []F, bs int, c []F, ldc int, alpha F, m, n int, wide bool) {
	mr, nr := kern.mr, kern.nr
	_ = b[(k-1)*bs+nr-1] // bounds, for the assembly
	ap, ars, acs := &a[0], rs, cs
	if m < mr {
		if key := (padKey[F]{&a[0], k, rs, cs, m}); key != t.padded { // [k, mr]: step p's mr values together
			t.apad = grow(t.apad, k*mr)
			clear(t.apad)
			for r := 0; r < m; r++ {
				for p := 0; p < k; p++ {
					t.apad[p*mr+r] = a[r*rs+p*cs]
				}
			}
			t.padded = key
		}
		ap, ars, acs = &t.apad[0], 1, mr
	} else {
		_ = a[(mr-1)*rs+(k-1)*cs]
	}
	if m == mr && (n == nr || wide) {
		_ = c[(mr-1)*ldc+nr-1]
		kern.fn(k, ap, ars, acs, &b[0], bs, &c[0], ldc, alpha, false)
		return
	}
	t.tile = grow(t.tile, mr*nr)
	kern.fn(k, ap, ars, acs, &b[0], bs, &t.tile[0], nr, alpha, false)
	for r := 0; r < m; r++ {
		copy(c[r*ldc:r*ldc+n], t.tile[r*nr:r*nr+n])
	}
}

// headFwd computes head h of sequence b: its weights P into pb ([T, T], row stride T) and its
// output rows into y, tile by tile (see the top of this file); the bias, softmax and masking are
// attnFwd's, row by row.
func headFwd[F Float](op *attentionOp, t *headTiles[F], q, k, v, bias, y, pb []F, b, h, D int, scale F) {
	c := op.cfg
	T, H := c.Len, c.Heads
	dh := D / H
	kern := kernelOf[F]()
	mr, nr := kern.mr, kern.nr
	off := b*T*D + h*dh
	t.padded = padKey[F]{}
	kt := packRowsT(&t.b1, k[off:], D, T, dh, nr) // Kᵀ: panels of nr keys, [dh, nr] each
	// V: read in place (row stride D) when its columns fill the panels, else packed into panels
	// of nr columns, [T, nr] each (the backward packs its operands: there it measured faster)
	vp, vs, vpanel := v[off:], D, 1
	if dh%nr != 0 {
		vp, vs, vpanel = packCols(&t.b2, v[off:], D, T, dh, nr), nr, T
	}
	blk := tileBlock(T, c.Causal, mr)
	for i0 := 0; i0 < T; i0 += blk {
		i1 := min(i0+blk, T)
		for j0 := 0; j0 < tileKeys(c.Causal, i1-1, mr, T); j0 += nr { // S = scale·Q·Kᵀ, a panel of keys at a time
			for r0 := i0; r0 < i1; r0 += mr {
				m, nk := min(mr, i1-r0), tileKeys(c.Causal, r0, mr, T)
				if j0 < nk {
					t.mul(kern, dh, q[off+r0*D:], D, 1, kt[j0*dh:], nr, pb[r0*T+j0:], T, scale, m, min(nr, nk-j0), j0+nr <= T)
				}
			}
		}
		for i := i0; i < i1; i++ {
			n := T
			if c.Causal {
				n = i + 1
			}
			row := pb[i*T : i*T+n]
			addBias(op, row, bias, b, h, i)
			softmaxRow(row)
			if op.whole {
				clear(pb[i*T+n : (i+1)*T])
			} else { // P·V here and Pᵀ·dY in the backward read keys below the tile's end only
				clear(pb[i*T+n : i*T+tileKeys(c.Causal, i, mr, T)])
			}
		}
		for c0 := 0; c0 < dh; c0 += nr { // Y = P·V, each tile over its keys
			for r0 := i0; r0 < i1; r0 += mr {
				m, nk := min(mr, i1-r0), tileKeys(c.Causal, r0, mr, T)
				t.mul(kern, nk, pb[r0*T:], T, 1, vp[c0*vpanel:], vs, y[off+r0*D+c0:], D, 1, m, min(nr, dh-c0), c0+nr <= dh)
			}
		}
	}
}

// tileBlock is the number of query rows whose products go panel by panel of keys (so that a
// panel serves every tile of the block): attnBlock's rows, a multiple of mr when causal, so that
// the tiles start at multiples of mr.
func tileBlock(T int, causal bool, mr int) int {
	blk := attnBlock(T, causal)
	if causal {
		blk = max(mr, blk/mr*mr)
	}
	return blk
}

// tileKeys is the number of keys the tile of mr query rows holding row i reads: up to the
// tile's last row when causal, else T.
func tileKeys(causal bool, i, mr, T int) int {
	if !causal {
		return T
	}
	return min(T, i/mr*mr+mr)
}

// headBwd computes head h of sequence b's gradients dq, dk, dv (rows of width D) and its dS into
// dsb ([T, T]) from its kept weights pb, tile by tile (see the top of this file); dots are dYᵢ·Yᵢ
// of the head's rows (row i at dots[i·H]).
func headBwd[F Float](fwd *attentionOp, t *headTiles[F], q, k, v, dy, dots, dq, dk, dv, pb, dsb []F, b, h, D int, scale F) {
	c := fwd.cfg
	T, H := c.Len, c.Heads
	dh := D / H
	kern := kernelOf[F]()
	mr, nr := kern.mr, kern.nr
	off := b*T*D + h*dh
	t.padded = padKey[F]{}
	vt := packRowsT(&t.b1, v[off:], D, T, dh, nr) // Vᵀ: panels of nr keys, [dh, nr] each
	kp := packCols(&t.b2, k[off:], D, T, dh, nr)  // K: panels of nr columns, [T, nr] each
	blk := tileBlock(T, c.Causal, mr)
	for i0 := 0; i0 < T; i0 += blk { // query blocks: dP, dS and dQ need keys below each tile's end only
		i1 := min(i0+blk, T)
		for j0 := 0; j0 < tileKeys(c.Causal, i1-1, mr, T); j0 += nr { // dP = dY·Vᵀ
			for r0 := i0; r0 < i1; r0 += mr {
				m, nk := min(mr, i1-r0), tileKeys(c.Causal, r0, mr, T)
				if j0 < nk {
					t.mul(kern, dh, dy[off+r0*D:], D, 1, vt[j0*dh:], nr, dsb[r0*T+j0:], T, 1, m, min(nr, nk-j0), j0+nr <= T)
				}
			}
		}
		// dS = P∘(dP − Σⱼ Pᵢⱼ·dPᵢⱼ); Σⱼ Pᵢⱼ·dPᵢⱼ = dYᵢ·Yᵢ (row i of this head); 0 after key n
		for i := i0; i < i1; i++ {
			n := T
			if c.Causal {
				n = i + 1
			}
			dsRow(dsb[i*T:i*T+n], pb[i*T:i*T+n], dots[i*H])
			if fwd.bias == biasPairs || fwd.whole { // the bias gradient sums all of dS
				clear(dsb[i*T+n : (i+1)*T])
			} else { // dS·K and dSᵀ·Q read keys below the tile's end only
				clear(dsb[i*T+n : i*T+tileKeys(c.Causal, i, mr, T)])
			}
		}
		for c0 := 0; c0 < dh; c0 += nr { // dQ = scale·dS·K
			for r0 := i0; r0 < i1; r0 += mr {
				m, nk := min(mr, i1-r0), tileKeys(c.Causal, r0, mr, T)
				t.mul(kern, nk, dsb[r0*T:], T, 1, kp[c0*T:], nr, dq[off+r0*D+c0:], D, scale, m, min(nr, dh-c0), c0+nr <= dh)
			}
		}
	}
	dyp := packCols(&t.b1, dy[off:], D, T, dh, nr) // dY and Q: panels of nr columns, [T, nr] each
	qp := packCols(&t.b2, q[off:], D, T, dh, nr)
	for j0 := 0; j0 < T; j0 += mr { // key tiles: dV, dK need queries [i0, T) only
		m := min(mr, T-j0)
		i0 := 0
		if c.Causal {
			i0 = j0
		}
		for c0 := 0; c0 < dh; c0 += nr { // dV = Pᵀ·dY ; dK = scale·dSᵀ·Q
			n, wide := min(nr, dh-c0), c0+nr <= dh
			t.mul(kern, T-i0, pb[i0*T+j0:], 1, T, dyp[c0*T+i0*nr:], nr, dv[off+j0*D+c0:], D, 1, m, n, wide)
			t.mul(kern, T-i0, dsb[i0*T+j0:], 1, T, qp[c0*T+i0*nr:], nr, dk[off+j0*D+c0:], D, scale, m, n, wide)
		}
	}
}

// dsRow writes dS = P∘(dP − dot) over row (which holds dP), p the row's weights.
func dsRow[F Float](row, p []F, dot F) {
	j := 0
	if r32, ok := any(row).([]float32); ok && useKernels {
		subMul8(r32, any(p).([]float32), float32(dot))
		j = len(row) &^ 7
	}
	for ; j < len(row); j++ {
		row[j] = p[j] * (row[j] - dot)
	}
}
