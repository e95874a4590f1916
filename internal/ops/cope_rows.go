package ops

import "github.com/posformer/posformer/internal/pmath"

// The row-wise part of CoPEAttention (cope.go): for one query row, the gates, their suffix sums
// (the contextual positions), the clamp and the interpolation of the position logits, and their
// gradients. The products around them (Z, L, P·V and their gradients) are the matrix kernels'.

// copeWork is one worker's scratch: the forward pass uses g (one row of gates [T]) and l (a
// block's L [blk, NPos]); the backward pass g (a block's gates [blk, T]), l, dl (the block's dL
// [blk, NPos]), raw (one row's unclamped positions [T]) and dz (the head's dZ [T, T]).
type copeWork[F Float] struct {
	g, l, dl, raw, dz []F
	cf, cc            []F     // backward, float32: the keys' gradients of l[⌊p⌋] and l[⌈p⌉] [T]
	fi, ci            []int32 // and their ⌊p⌋, ⌈p⌉ [T]
}

// copeLPad is the room after a block's L [blk, NPos]: the AVX-512 kernel reads 65 values from
// the start of a row (copeScan8AVX512).
const copeLPad = 64

// copeFwdWork and copeBwdWork are the sizes of a worker's scratch.
func copeFwdWork(T, blk, npos int) int { return T + blk*npos + copeLPad }
func copeBwdWork(T, blk, npos int) int { return blk*T + 2*blk*npos + copeLPad + 3*T + T*T }

func copeFwdWorkOf[F Float](buf []F, T, blk, npos int) copeWork[F] {
	return copeWork[F]{g: buf[:T], l: buf[T : T+blk*npos]}
}

// copeBwdWorkOf cuts a worker's scratch out of buf (copeBwdWork values) and idx (2T indices).
func copeBwdWorkOf[F Float](buf []F, idx []int32, T, blk, npos int) copeWork[F] {
	w := copeWork[F]{g: buf[:blk*T]}
	buf = buf[blk*T:]
	w.l, w.dl, buf = buf[:blk*npos], buf[blk*npos+copeLPad:2*blk*npos+copeLPad], buf[2*blk*npos+copeLPad:]
	w.raw, w.cf, w.cc, w.dz = buf[:T], buf[T:2*T], buf[2*T:3*T], buf[3*T:3*T+T*T]
	w.fi, w.ci = idx[:T], idx[T:2*T]
	return w
}

// gateRow writes σ(z_j) = 1/(1 + exp(−z_j)) into g (which may be z itself), one value at a time
// in float64 (float64 runs; float32 rows go through copeLogits32 and copeRaw32).
func gateRow[F Float](g, z []F) {
	for j, x := range z {
		g[j] = F(1 / (1 + pmath.Exp(-float64(x))))
	}
}

// copePos splits a position p ≥ 0 into ⌊p⌋, ⌈p⌉ and the weight of the ceiling, p − ⌊p⌋.
func copePos[F Float](p F) (fl, c int, w F) {
	fl = int(p) // p ≥ 0: truncation is the floor
	w = p - F(fl)
	c = fl
	if w > 0 {
		c++
	}
	return fl, c, w
}

// copeLogits turns the row's logits z_ij (keys 0..i, row[:i+1]) into a_ij in place: the gates
// σ(z) into g, their sums from the query down, p_ij = min(Σ_{t=j..i} g_t, top), and
// a_ij = z_ij + w·l[⌈p⌉] + (1 − w)·l[⌊p⌋] with l the row's position logits [NPos]. float32 rows
// go through the vector kernels (copeLogits32), whose sums go eight keys at a time; float64
// rows one key at a time.
func copeLogits[F Float](row, g, l []F, top F) {
	if r32, ok := any(row).([]float32); ok {
		copeLogits32(r32, any(g).([]float32), any(l).([]float32), float32(top))
		return
	}
	gateRow(g, row)
	var sum F
	for j := len(row) - 1; j >= 0; j-- {
		sum += g[j]
		fl, c, w := copePos(min(sum, top))
		row[j] = row[j] + F(l[c]*w) + F(l[fl]*(1-w)) // F(): not fused on arm64, as on amd64
	}
}

// copeRowGrad is the backward pass of one row (keys 0..i): dz holds dP = dY_i·Vᵀ on entry and
// dZ, the gradient of the logits z = s·q·k, on return; g holds z on entry and the gates on
// return; p is the row's weights and dot = Σ_j p_j·dP_j = dY_i·Y_i; l its position logits
// [NPos]; dl receives the gradient of l (cleared first); raw is scratch for the positions. With
// da_j = p_j·(dP_j − dot), the gradient of a_ij: dl[⌊p⌋] += (1 − w)·da, dl[⌈p⌉] += w·da;
// dp_j = da_j·(l[⌈p⌉] − l[⌊p⌋]), which is 0 where the clamp holds (p = top, an integer:
// ⌊p⌋ = ⌈p⌉), as torch.clamp's; the gate g_t is in every p_j with j ≤ t, so dg_t = Σ_{j≤t} dp_j;
// and dz_j = da_j + dg_j·g_j·(1 − g_j). float32 rows go through the vector kernels
// (copeRowGrad32, with the scratch w), float64 rows one key at a time.
func copeRowGrad[F Float](dz, g, p, l, dl, raw []F, top, dot F, w *copeWork[F]) {
	if g32, ok := any(g).([]float32); ok {
		n := len(p)
		copeRowGrad32(any(dz).([]float32), g32, any(p).([]float32), any(l).([]float32), any(dl).([]float32), any(raw).([]float32),
			float32(top), float32(dot), any(w.cf[:n]).([]float32), any(w.cc[:n]).([]float32), w.fi[:n], w.ci[:n])
		return
	}
	gateRow(g, g)
	var sum F
	for j := len(g) - 1; j >= 0; j-- {
		sum += g[j]
		raw[j] = sum
	}
	clear(dl)
	var dgSum F
	for j, pj := range p {
		fl, c, w := copePos(min(raw[j], top))
		da := F(pj * (dz[j] - dot))
		dl[fl] += F(da * (1 - w))
		dl[c] += F(da * w)
		dgSum += F(da * (l[c] - l[fl]))
		dz[j] = da + F(F(dgSum*g[j])*(1-g[j]))
	}
}
