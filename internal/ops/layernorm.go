package ops

import (
	"fmt"
	"math"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// LayerNormEps is added to the variance before the square root, as in PyTorch's default.
const LayerNormEps = 1e-5

// LayerNorm normalises each row of x [N, D] to zero mean and unit variance (biased variance,
// eps = LayerNormEps), then scales by gamma [D] and shifts by beta [D].
func LayerNorm(x, gamma, beta *G.Node) (*G.Node, error) {
	return apply(&layerNormOp{base: newBase("LayerNorm", 3)}, x, gamma, beta)
}

type layerNormOp struct {
	base
	out buffer
	// The row statistics (mean, 1/std) of the last forward pass, kept for the gradient ops
	// when the op has a gradient, with the first element of the x they were computed from.
	keep       bool
	st32       scratch[float32]
	st64       scratch[float64]
	statsOf    any
	statsShape [2]int
}

func (op *layerNormOp) Type() hm.Type { return fnType(2, 1, 1, 2) }

func (op *layerNormOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	xs, err := shapeOf(in, 0)
	if err != nil {
		return nil, err
	}
	gs, err := shapeOf(in, 1)
	if err != nil {
		return nil, err
	}
	if len(xs) != 2 || gs.TotalSize() != xs[1] {
		return nil, fmt.Errorf("ops: LayerNorm shapes x %v, gamma %v do not fit (want [N,D], [D])", xs, gs)
	}
	return xs.Clone(), nil
}

func (op *layerNormOp) Do(vs ...G.Value) (G.Value, error) {
	dt, err := dtypeOf(vs...)
	if err != nil {
		return nil, err
	}
	s := vs[0].Shape()
	out := op.out.get(dt, s...)
	op.statsOf = nil
	if dt == tensor.Float32 {
		x := sl[float32](vs[0])
		var st []float32
		if op.keep {
			st = op.st32.get(2 * s[0])
		}
		layerNormFwd(x, sl[float32](vs[1]), sl[float32](vs[2]), sl[float32](out), st, s[0], s[1])
		if op.keep && len(x) > 0 {
			op.statsOf = &x[0]
		}
	} else {
		x := sl[float64](vs[0])
		var st []float64
		if op.keep {
			st = op.st64.get(2 * s[0])
		}
		layerNormFwd(x, sl[float64](vs[1]), sl[float64](vs[2]), sl[float64](out), st, s[0], s[1])
		if op.keep && len(x) > 0 {
			op.statsOf = &x[0]
		}
	}
	op.statsShape = [2]int{s[0], s[1]}
	return out, nil
}

// keptStats returns the row statistics the last forward pass computed from x (n rows of d),
// or nil if it did not keep them or ran on another x.
func keptStats[F Float](op *layerNormOp, x []F, n, d int) []F {
	if op == nil || op.statsOf == nil || op.statsShape != [2]int{n, d} || len(x) == 0 {
		return nil
	}
	if p, ok := op.statsOf.(*F); !ok || p != &x[0] {
		return nil
	}
	var z F
	if _, ok := any(z).(float32); ok {
		return any(op.st32.s[:2*n]).([]F)
	}
	return any(op.st64.s[:2*n]).([]F)
}

// rowStats returns the mean and 1/sqrt(var+eps) of one row (two passes, for accuracy; float32
// rows go eight values at a time through sum8 and sqdev8 when the CPU has the kernels).
func rowStats[F Float](row []F) (mean, rstd F) {
	var s F
	v := 0
	r32, vec := any(row).([]float32)
	vec = vec && useKernels
	if vec {
		v = len(row) &^ 7
		s = F(sum8(r32))
	}
	for _, x := range row[v:] {
		s += x
	}
	mean = s / F(len(row))
	var q F
	if vec {
		q = F(sqdev8(r32, float32(mean)))
	}
	for _, x := range row[v:] {
		d := x - mean
		q += F(d * d) // the conversion keeps arm64 and GOAMD64=v3 builds from fusing it (sqdev8 fuses only its lanes)
	}
	return mean, F(1 / math.Sqrt(float64(q/F(len(row)))+LayerNormEps))
}

// layerNormFwd normalises the rows of x into y, and stores each row's statistics in st
// (mean, 1/std for row r at 2r, 2r+1) when st is not nil.
func layerNormFwd[F Float](x, gamma, beta, y, st []F, n, d int) {
	gamma, beta = gamma[:d], beta[:d]
	parallel(n, 4*d, func(_, lo, hi int) {
		for r := lo; r < hi; r++ {
			xr, yr := x[r*d:(r+1)*d], y[r*d:(r+1)*d]
			mean, rstd := rowStats(xr)
			if st != nil {
				st[2*r], st[2*r+1] = mean, rstd
			}
			j := 0
			if y32, ok := any(yr).([]float32); ok && useKernels {
				lnFwd8(y32, any(xr).([]float32), any(gamma).([]float32), any(beta).([]float32), float32(mean), float32(rstd))
				j = d &^ 7
			}
			for ; j < d; j++ { // the conversion keeps a GOAMD64=v3 build from fusing into an FMA
				yr[j] = F((xr[j]-mean)*rstd*gamma[j]) + beta[j]
			}
		}
	})
}

func (op *layerNormOp) DiffWRT(int) []bool { return []bool{true, true, true} }

func (op *layerNormOp) SymDiff(in G.Nodes, out, grad *G.Node) (G.Nodes, error) {
	op.keep = true
	dx, err := apply(&layerNormGradOp{base: newBase("LayerNormGradX", 3), fwd: op}, in[0], in[1], grad)
	if err != nil {
		return nil, err
	}
	dgamma, err := apply(&layerNormGradOp{base: newBase("LayerNormGradGamma", 3), gamma: true, fwd: op}, in[0], in[1], grad)
	if err != nil {
		return nil, err
	}
	dbeta, err := ColSum(grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{dx, dgamma, dbeta}, nil
}

// layerNormGradOp computes, from (x, gamma, g), either dx [N, D] or (gamma = true) dgamma [D].
// It takes the row statistics from its forward op when that kept them for this x, and
// recomputes them otherwise.
type layerNormGradOp struct {
	base
	gamma bool
	fwd   *layerNormOp
	out   buffer
	st32  scratch[float32] // row statistics (dgamma)
	st64  scratch[float64]
}

func (op *layerNormGradOp) Type() hm.Type {
	if op.gamma {
		return fnType(2, 1, 2, 1)
	}
	return fnType(2, 1, 2, 2)
}

func (op *layerNormGradOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	xs, err := shapeOf(in, 0)
	if err != nil {
		return nil, err
	}
	if op.gamma {
		return tensor.Shape{xs[1]}, nil
	}
	return xs.Clone(), nil
}

func (op *layerNormGradOp) Do(vs ...G.Value) (G.Value, error) {
	dt, err := dtypeOf(vs...)
	if err != nil {
		return nil, err
	}
	s := vs[0].Shape()
	var out *tensor.Dense
	if op.gamma {
		out = op.out.get(dt, s[1])
	} else {
		out = op.out.get(dt, s...)
	}
	if dt == tensor.Float32 {
		x := sl[float32](vs[0])
		layerNormBwd(x, sl[float32](vs[1]), sl[float32](vs[2]), sl[float32](out), keptStats(op.fwd, x, s[0], s[1]), s[0], s[1], op.gamma, &op.st32)
	} else {
		x := sl[float64](vs[0])
		layerNormBwd(x, sl[float64](vs[1]), sl[float64](vs[2]), sl[float64](out), keptStats(op.fwd, x, s[0], s[1]), s[0], s[1], op.gamma, &op.st64)
	}
	return out, nil
}

// layerNormBwd writes dx (or dgamma) from x, gamma and the output gradient g; st holds the row
// statistics, or is nil to compute them here.
func layerNormBwd[F Float](x, gamma, g, out, st []F, n, d int, wantGamma bool, stats *scratch[F]) {
	gamma = gamma[:d]
	if st == nil {
		st = stats.get(2 * n)
		parallel(n, 4*d, func(_, lo, hi int) {
			for r := lo; r < hi; r++ {
				st[2*r], st[2*r+1] = rowStats(x[r*d : (r+1)*d])
			}
		})
	}
	_, vec := any(x).([]float32)
	vec = vec && useKernels
	if wantGamma {
		// The columns over the workers in blocks of eight, so that each column sums its rows in
		// order and goes through the same code (vector, or the scalar tail) on any number of them.
		parallel((d+7)/8, 24*n, func(_, blo, bhi int) {
			lo, hi := 8*blo, min(8*bhi, d)
			o := out[lo:hi]
			j0 := 0
			if vec && n > 0 {
				end := (n-1)*d + hi - lo
				lnGammaCols8(any(o).([]float32), any(g[lo:]).([]float32)[:end], any(x[lo:]).([]float32)[:end], any(st).([]float32), n, d)
				j0 = len(o) &^ 7
			}
			clear(o[j0:])
			for r := 0; r < n; r++ {
				mean, rstd := st[2*r], st[2*r+1]
				xr, gr := x[r*d+lo:r*d+hi], g[r*d+lo:r*d+hi]
				for j := j0; j < len(o); j++ {
					o[j] += F(gr[j] * (xr[j] - mean) * rstd)
				}
			}
		})
		return
	}
	parallel(n, 6*d, func(_, lo, hi int) {
		var sums [16]F // Σ g·gamma and Σ g·gamma·xhat of up to eight rows, from row base
		var tb *[]float32
		if vec && lnSumsT != nil && hi-lo >= 8 { // eight rows at a time, transposed into tb
			tb = poolOf[float32]().get(16*d + 32)
			defer poolOf[float32]().put(tb)
		}
		base, next := lo, lo
		for r := lo; r < hi; r++ {
			xr, gr, dx := x[r*d:(r+1)*d], g[r*d:(r+1)*d], out[r*d:(r+1)*d]
			mean, rstd := st[2*r], st[2*r+1]
			if r == next { // the sums of the next eight or four rows (or fewer, at the end) at once
				base = r
				if tb != nil && hi-r >= 8 {
					lnRowSums8(any(sums[:]).([]float32), any(x).([]float32), any(g).([]float32), any(gamma).([]float32), any(st).([]float32), r, d, *tb)
					next = r + 8
				} else {
					lnRowSums(sums[:], x, g, gamma, st, r, min(4, hi-r), d)
					next = r + min(4, hi-r)
				}
			}
			sg, sgx := sums[2*(r-base)], sums[2*(r-base)+1]
			sg /= F(d)
			sgx /= F(d)
			j := 0
			if vec {
				lnGradX8(any(dx).([]float32), any(gr).([]float32), any(xr).([]float32), any(gamma).([]float32), float32(mean), float32(rstd), float32(sg), float32(sgx))
				j = d &^ 7
			}
			for ; j < d; j++ {
				xhat := (xr[j] - mean) * rstd
				dx[j] = rstd * (F(gr[j]*gamma[j]) - sg - F(xhat*sgx))
			}
		}
	})
}

func (op *layerNormGradOp) DiffWRT(int) []bool { return []bool{false, false, false} }
func (op *layerNormGradOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("ops: %s is a gradient and has no gradient of its own", op.name)
}

// lnSumsT, when set (amd64 with the kernels), is lnSumsT8.
var lnSumsT func(out, gt, xt, gamma, ms []float32)

// lnRowSums8 is lnRowSums for the eight rows r0..r0+7 of float32 (lnSumsT set): g's and x's rows
// are transposed into buf (at least 16·d + 32 values; its end also takes the sums, since an
// array handed to lnSumsT, a function value, would be allocated) so that each row is a lane,
// and lnSumsT adds each row's values in column order with lnRowSums' operations: the same bits.
func lnRowSums8(sums, x, g, gamma, st []float32, r0, d int, buf []float32) {
	gt, xt, ms, out := buf[:8*d], buf[8*d:16*d], buf[16*d:16*d+16], buf[16*d+16:16*d+32]
	transposeRows(gt, 8, g[r0*d:], d, d, 8) // gt[j·8 + q] = g[(r0+q)·d + j]: [d, 8]
	transposeRows(xt, 8, x[r0*d:], d, d, 8) // [d, 8]
	for q := range 8 {
		ms[q], ms[8+q] = st[2*(r0+q)], st[2*(r0+q)+1]
	}
	lnSumsT(out, gt, xt, gamma[:d], ms)
	for q := range 8 {
		sums[2*q], sums[2*q+1] = out[q], out[8+q]
	}
}

// lnRowSums writes, for the rows r0..r0+k−1 (k ≤ 4), Σⱼ gy and Σⱼ gy·(x − mean)·rstd with
// gy = g·gamma to sums[2q] and sums[2q+1]: each row's sums in column order, as the one-row loop
// adds them, but the rows' additions interleaved so that their latencies overlap. Every product
// is converted explicitly, so that no build fuses it into an addition (GOAMD64=v3 would, and
// differently in the two loops).
func lnRowSums[F Float](sums []F, x, g, gamma, st []F, r0, k, d int) {
	if k < 4 {
		for q := 0; q < k; q++ {
			r := r0 + q
			xr, gr := x[r*d:(r+1)*d], g[r*d:(r+1)*d]
			mean, rstd := st[2*r], st[2*r+1]
			var sg, sgx F
			for j, v := range xr {
				gy := F(gr[j] * gamma[j])
				sg += gy
				sgx += F(F(gy*(v-mean)) * rstd)
			}
			sums[2*q], sums[2*q+1] = sg, sgx
		}
		return
	}
	x0, x1, x2, x3 := x[r0*d:(r0+1)*d], x[(r0+1)*d:(r0+2)*d], x[(r0+2)*d:(r0+3)*d], x[(r0+3)*d:(r0+4)*d]
	g0, g1, g2, g3 := g[r0*d:(r0+1)*d], g[(r0+1)*d:(r0+2)*d], g[(r0+2)*d:(r0+3)*d], g[(r0+3)*d:(r0+4)*d]
	m0, m1, m2, m3 := st[2*r0], st[2*r0+2], st[2*r0+4], st[2*r0+6]
	s0, s1, s2, s3 := st[2*r0+1], st[2*r0+3], st[2*r0+5], st[2*r0+7]
	gamma = gamma[:d]
	var a0, a1, a2, a3, b0, b1, b2, b3 F
	for j, gm := range gamma {
		gy0, gy1, gy2, gy3 := F(g0[j]*gm), F(g1[j]*gm), F(g2[j]*gm), F(g3[j]*gm)
		a0 += gy0
		a1 += gy1
		a2 += gy2
		a3 += gy3
		b0 += F(F(gy0*(x0[j]-m0)) * s0)
		b1 += F(F(gy1*(x1[j]-m1)) * s1)
		b2 += F(F(gy2*(x2[j]-m2)) * s2)
		b3 += F(F(gy3*(x3[j]-m3)) * s3)
	}
	sums[0], sums[1], sums[2], sums[3] = a0, b0, a1, b1
	sums[4], sums[5], sums[6], sums[7] = a2, b2, a3, b3
}
