package ops

import (
	"fmt"
	"math"

	"github.com/chewxy/hm"
	"github.com/posformer/posformer/internal/pmath"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// AttentionConfig describes a batch of multi-head attention.
type AttentionConfig struct {
	Batch, Len, Heads int  // B, T, H; q, k, v are [B·T, D] with D = H·Dh
	Causal            bool // query i attends only to keys j ≤ i
	// Unscaled leaves out the 1/√Dh scale of Q·Kᵀ (T5's convention, Mesh TensorFlow, which folds
	// it into the initialisation of W_q instead).
	Unscaled bool
	// Capture, when not nil, receives the op's attention weights after every run (see
	// AttentionCapture); only inspection graphs set it, so training and evaluation graphs are
	// unchanged.
	Capture *AttentionCapture
	// Rel, when its nodes are set, adds a position term that depends on the query (see
	// RelativeKeys).
	Rel RelativeKeys
	// Rows, when its Theta is set, is a bias evaluated row block by row block (see RowBias); the
	// bias argument must then be nil.
	Rows RowBias
}

// RowBias is a per-head bias given as a PairFunc of its parameters Theta (a 1-D node) rather
// than as a tensor: Attention evaluates F for the pairs of one block of query rows at a time
// (every head at once, shared by the batch), and adds entry [h, i, j] to the logit of query i
// and key j, with the values and rounding of PairBias's tensor (so the same bits). Nothing
// [H, T, T] is formed, so an evaluation's memory stays linear in T, for a bias that depends on
// the query's position as well as on the distance (FIRE's). It has no gradient: a training graph
// takes PairBias's tensor, whose gradient is summed per pair once for all the layers sharing it.
type RowBias struct {
	Theta *G.Node
	F     PairFunc
}

// RelativeKeys is a term of the logits that depends on the query as well as on the distance
// (Transformer-XL's relative encoding, Dai et al. 2019): for sequence b, head h, query i and key
// j, logit(i, j) += scale·Query[b, i, h]·Keys[i − j + T − 1, h] (the head's dh values of each
// row), scaled like Q·Kᵀ. Query is [B·T, D]; Keys is [2T−1, D], one key per signed distance
// i − j ∈ [−(T−1), T−1] for the whole batch, or [B·(2T−1), D], one table per sequence. The op
// computes the term row block by row block, as the logits, so an evaluation's memory stays
// linear in T.
type RelativeKeys struct {
	Query, Keys *G.Node
}

// Bias forms Attention takes: a bias per pair [H, T, T], or a table by distance [H, 2T−1]
// (or [B·H, 2T−1], one per sequence) whose entry i − j + T − 1 is added to the logit of query i
// and key j, so that a bias that depends on i − j only costs O(H·T) memory.
const (
	biasNone = iota
	biasPairs
	biasDist    // [H, 2T−1]
	biasDistSeq // [B·H, 2T−1]
	biasRows    // a PairFunc's parameters θ (RowBias)
)

// Attention computes, for every sequence b and head h, softmax(Q·Kᵀ/√Dh + bias[h] + mask)·V, with
// the heads merged back into rows: q, k, v are [B·T, D] and so is the result. bias is nil, an
// [H, T, T] tensor, or a table by distance [H, 2T−1] or [B·H, 2T−1] (entry i − j + T − 1 for
// query i and key j; the second, one table per sequence), added to the logits after the 1/√Dh
// scale (and not scaled); or, with bias nil, cfg.Rows, a bias the op evaluates itself one block
// of query rows at a time (RowBias; no gradient); cfg.Rel adds a query-dependent position term; cfg.Unscaled
// leaves the scale out (softmax(Q·Kᵀ + bias[h] + mask)·V). The causal mask
// gives exactly zero weight to keys j > i, so a query's output does not depend on later tokens
// to the last bit. Each row's softmax subtracts its own maximum.
//
// The heads are read in place with strided matrix products (row stride D), so nothing is
// reshaped; the training path goes head by head, tile by tile, on operands packed once per head
// (attn_tiles.go). The forward pass of a training graph keeps the attention weights P
// [B, H, T, T] for the backward pass; an evaluation graph keeps only one block of rows
// (AttentionEvalRows × T) per worker, so its memory grows linearly with T.
func Attention(q, k, v, bias *G.Node, cfg AttentionConfig) (*G.Node, error) {
	s := q.Shape()
	if len(s) != 2 || cfg.Heads < 1 || s[1]%cfg.Heads != 0 || s[0] != cfg.Batch*cfg.Len {
		return nil, fmt.Errorf("ops: Attention: q %v does not fit batch %d × length %d with %d heads", s, cfg.Batch, cfg.Len, cfg.Heads)
	}
	if !k.Shape().Eq(s) || !v.Shape().Eq(s) {
		return nil, fmt.Errorf("ops: Attention: q %v, k %v, v %v must have one shape", s, k.Shape(), v.Shape())
	}
	op := &attentionOp{base: newBase("Attention", 3), cfg: cfg}
	cfg.Capture.attach(op)
	in := []*G.Node{q, k, v}
	if bias != nil {
		H, T, nr := cfg.Heads, cfg.Len, 2*cfg.Len-1
		switch bs := bias.Shape(); {
		case bs.Eq(tensor.Shape{H, T, T}):
			op.bias = biasPairs
		case bs.Eq(tensor.Shape{H, nr}):
			op.bias = biasDist
		case bs.Eq(tensor.Shape{cfg.Batch * H, nr}):
			op.bias = biasDistSeq
		default:
			return nil, fmt.Errorf("ops: Attention: bias is %v, want [%d %d %d] or a table by distance [%d %d] or [%d %d]", bs, H, T, T, H, nr, cfg.Batch*H, nr)
		}
		in = append(in, bias)
	}
	if r := cfg.Rows; r.Theta != nil || r.F != nil {
		if bias != nil || r.Theta == nil || r.F == nil || len(r.Theta.Shape()) != 1 || r.F.Heads() != cfg.Heads {
			return nil, fmt.Errorf("ops: Attention: a bias by rows needs a 1-D θ and a function of %d heads, and no other bias", cfg.Heads)
		}
		op.bias, op.rows = biasRows, r.F
		in = append(in, r.Theta)
	}
	if r := cfg.Rel; r.Query != nil || r.Keys != nil {
		if r.Query == nil || r.Keys == nil || !r.Query.Shape().Eq(s) {
			return nil, fmt.Errorf("ops: Attention: relative keys need a query %v and keys", s)
		}
		nr := 2*cfg.Len - 1
		switch ks := r.Keys.Shape(); {
		case ks.Eq(tensor.Shape{nr, s[1]}):
		case ks.Eq(tensor.Shape{cfg.Batch * nr, s[1]}):
			op.relSeq = true
		default:
			return nil, fmt.Errorf("ops: Attention: relative keys are %v, want [%d %d] or [%d %d]", ks, nr, s[1], cfg.Batch*nr, s[1])
		}
		op.rel = true
		in = append(in, r.Query, r.Keys)
	}
	op.cfg.Rel, op.cfg.Rows = RelativeKeys{}, RowBias{} // the op keeps no nodes
	op.arity = len(in)
	return apply(op, in...)
}

// biasIn is the index of the bias among the op's inputs, relIn that of the relative query (its
// keys follow).
func (op *attentionOp) biasIn() int { return 3 }
func (op *attentionOp) relIn() int {
	if op.bias != biasNone {
		return 4
	}
	return 3
}

// scale is the factor of Q·Kᵀ for heads of dh values: 1/√dh, or 1 when Unscaled.
func (c AttentionConfig) scale(dh int) float64 {
	if c.Unscaled {
		return 1
	}
	return 1 / math.Sqrt(float64(dh))
}

type attentionOp struct {
	base
	cfg   AttentionConfig
	keepP bool // set when the gradient is built: keep P for the backward pass
	// whole is set when an AttentionCapture reads P: then every row's masked keys are zeroed
	// up to T (in P and in dS), else only up to the end of its row block, the last key any
	// product reads.
	whole bool
	bias  int      // biasNone, biasPairs, biasDist, biasDistSeq or biasRows
	rows  PairFunc // the bias by rows' function (biasRows)
	rel   bool     // relative keys (cfg.Rel) follow the bias
	// relSeq: the relative keys are one table per sequence
	relSeq bool
	out    buffer
	p32    scratch[float32]
	p64    scratch[float64]
	m32    scratch[float32] // the relative term of a row block, [blk, blk + T − 1] per worker
	m64    scratch[float64]
	r32    scratch[float32] // a bias by rows' block, [H, blk, T] per worker
	r64    scratch[float64]
	kt32   []bPacker[float32] // one per worker: the head's Kᵀ, packed once for its row blocks
	kt64   []bPacker[float64]
	// one per worker: the per-head tiles' scratch (attn_tiles.go), of the forward and backward
	t32, bt32 []headTiles[float32]
	t64, bt64 []headTiles[float64]
}

// packers returns w packers of Bᵀ kept in *ps across runs.
func packers[F Float](ps *[]bPacker[F], w int) []bPacker[F] {
	if len(*ps) < w {
		*ps = append(*ps, make([]bPacker[F], w-len(*ps))...)
	}
	return (*ps)[:w]
}

// inDims are the numbers of dimensions of the op's inputs.
func (op *attentionOp) inDims() []int {
	dims := []int{2, 2, 2}
	switch op.bias {
	case biasPairs:
		dims = append(dims, 3)
	case biasDist, biasDistSeq:
		dims = append(dims, 2)
	case biasRows:
		dims = append(dims, 1)
	}
	if op.rel {
		dims = append(dims, 2, 2)
	}
	return dims
}

func (op *attentionOp) Type() hm.Type { return fnType(append(op.inDims(), 2)...) }

func (op *attentionOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapeOf(in, 0)
	if err != nil {
		return nil, err
	}
	return s.Clone(), nil
}

func (op *attentionOp) Do(vs ...G.Value) (G.Value, error) {
	dt, err := dtypeOf(vs...)
	if err != nil {
		return nil, err
	}
	out := op.out.get(dt, vs[0].Shape()...)
	if dt == tensor.Float32 {
		attnFwd(op, &op.p32, &op.m32, &op.r32, &op.kt32, vs, sl[float32](out))
	} else {
		attnFwd(op, &op.p64, &op.m64, &op.r64, &op.kt64, vs, sl[float64](out))
	}
	return out, nil
}

// relBlock is the part of the relative keys a row block [i0, i1) reads with nk keys: the
// distances i − j from dlo = i0 − (nk − 1) to i1 − 1, nd of them, starting at row r0 of the
// sequence's table; the term of query i and key j is column (i − j) − dlo of the block's row.
func relBlock(T, i0, i1, nk int) (dlo, nd, r0 int) {
	dlo = i0 - (nk - 1)
	return dlo, (i1 - i0) + nk - 1, dlo + T - 1
}

// relOffset is the offset of sequence b's table of relative keys (or biases by distance) of nr
// rows of width d: 0 when one table serves the batch.
func relOffset(perSeq bool, b, nr, d int) int {
	if perSeq {
		return b * nr * d
	}
	return 0
}

func attnFwd[F Float](op *attentionOp, pbuf, mbuf, rbuf *scratch[F], kts *[]bPacker[F], vs []G.Value, y []F) {
	c := op.cfg
	B, T, H := c.Batch, c.Len, c.Heads
	D := vs[0].Shape()[1]
	dh := D / H
	q, k, v := sl[F](vs[0]), sl[F](vs[1]), sl[F](vs[2])
	var bias, qr, rk []F
	if op.bias != biasNone && op.bias != biasRows {
		bias = sl[F](vs[op.biasIn()])
	}
	if op.rel {
		qr, rk = sl[F](vs[op.relIn()]), sl[F](vs[op.relIn()+1])
	}
	nr := 2*T - 1
	scale := F(c.scale(dh))
	blk := attnBlock(T, c.Causal)
	if !op.keepP {
		blk = AttentionEvalRows(T, c.Causal)
	}
	// w workers: over the heads of the batch, or with a bias by rows over the blocks of rows
	w := min(workers(), B*H)
	if op.bias == biasRows {
		w = min(workers(), (T+blk-1)/blk)
	}
	var p, m []F
	if op.keepP {
		p = pbuf.get(B * H * T * T)
	} else {
		p = pbuf.get(w * blk * T) // [w, blk, T]: memory linear in T
	}
	mlen := blk * (blk + T - 1)
	if op.rel {
		m = mbuf.get(w * mlen) // [w, blk, blk + T − 1]
	}
	// rowsOf returns where the block [i0, i1) of head bh keeps its rows of P, [i1−i0, T]: a
	// slice of the whole [T, T] head when P is kept, else one block of rows per worker, reused.
	rowsOf := func(worker, bh, i0, i1 int) []F {
		if op.keepP {
			return p[bh*T*T+i0*T : bh*T*T+i1*T]
		}
		return p[worker*blk*T : worker*blk*T+(i1-i0)*T]
	}
	// block computes the rows [i0, i1) of head h of sequence b: P's rows into pb, the output's
	// into y, with the head's Kᵀ packed in kt; rb is a bias by rows' block [H, i1−i0, T].
	block := func(worker int, kt *bPacker[F], b, h, i0, i1 int, pb, rb []F) {
		off := b*T*D + h*dh
		nk := T // the keys the block's rows see
		if c.Causal {
			nk = i1
		}
		kt.mul(false, i1-i0, nk, scale, q[off+i0*D:], D, k[off:], D, pb, T)
		var mb []F
		var dlo, nd int
		if op.rel { // the block's query-dependent term by distance: scale·Qr·Keys[dlo..]ᵀ [i1−i0, nd]
			var r0 int
			dlo, nd, r0 = relBlock(T, i0, i1, nk)
			mb = m[worker*mlen : worker*mlen+(i1-i0)*nd]
			gemm1(false, true, i1-i0, nd, dh, scale, qr[off+i0*D:], D, rk[relOffset(op.relSeq, b, nr, D)+r0*D+h*dh:], D, 0, mb, nd)
		}
		for i := i0; i < i1; i++ {
			n := T
			if c.Causal {
				n = i + 1
			}
			r := (i - i0) * T
			row := pb[r : r+n]
			if op.rel {
				mr := mb[(i-i0)*nd : (i-i0+1)*nd]
				for j := range row {
					row[j] += mr[i-j-dlo]
				}
			}
			if op.bias == biasRows {
				addInto(row, row, rb[(h*(i1-i0)+i-i0)*T:]) // [n]: the bias of query i, head h
			} else {
				addBias(op, row, bias, b, h, i)
			}
			softmaxRow(row)
			if op.whole {
				clear(pb[r+n : r+T])
			} else { // the products read keys below i1 only (P·V here, Pᵀ·dY in the backward)
				clear(pb[r+n : r+max(n, nk)])
			}
		}
		gemm1(false, false, i1-i0, dh, nk, 1, pb, T, v[off:], D, 0, y[off+i0*D:], D)
	}
	if attnTiles(op, T, dh) {
		ts := tilesOf(tilesFor[F](&op.t32, &op.t64), w)
		parallelW(w, B*H, 1<<20, func(worker, lo, hi int) {
			for bh := lo; bh < hi; bh++ {
				headFwd(op, &ts[worker], q, k, v, bias, y, p[bh*T*T:(bh+1)*T*T], bh/H, bh%H, D, scale)
			}
		})
		return
	}
	if op.bias != biasRows {
		kt := packers(kts, w)
		parallelW(w, B*H, 1<<20, func(worker, lo, hi int) {
			for bh := lo; bh < hi; bh++ {
				kt[worker].pack(k[bh/H*T*D+bh%H*dh:], D, T, dh) // Kᵀ of the head [dh, T], for every row block
				for i0 := 0; i0 < T; i0 += blk {                // causal: row block [i0, i1) needs keys [0, i1) only
					i1 := min(i0+blk, T)
					block(worker, &kt[worker], bh/H, bh%H, i0, i1, rowsOf(worker, bh, i0, i1), nil)
				}
			}
		})
		return
	}
	// A bias by rows: the blocks of rows go outermost, each block's bias computed once for every
	// head and sequence, [H, blk, T] per worker; every head's Kᵀ is packed first ([B·H] packers,
	// the size of K). Worker wk takes the blocks wk, wk + w, ..., so that the causal blocks, which
	// grow with i, are shared out evenly.
	theta := float64s(vs[op.biasIn()])
	kt := packers(kts, B*H)
	parallel(B*H, T*dh, func(_, lo, hi int) {
		for bh := lo; bh < hi; bh++ {
			kt[bh].pack(k[bh/H*T*D+bh%H*dh:], D, T, dh) // Kᵀ of the head [dh, T]
		}
	})
	rb := rbuf.get(w * H * blk * T)
	nblk := (T + blk - 1) / blk
	parallelW(w, w, 1<<20, func(_, lo, hi int) {
		row := make([]float64, H*T) // one query's biases in float64, [H, T]
		for wk := lo; wk < hi; wk++ {
			rbw := rb[wk*H*blk*T : (wk+1)*H*blk*T]
			for bi := wk; bi < nblk; bi += w {
				i0, i1 := bi*blk, min(bi*blk+blk, T)
				rowBias(op.rows, theta, i0, i1, T, c.Causal, rbw, row)
				for bh := 0; bh < B*H; bh++ {
					block(wk, &kt[bh], bh/H, bh%H, i0, i1, rowsOf(wk, bh, i0, i1), rbw)
				}
			}
		}
	})
}

// addBias adds to row (query i of head h of sequence b, its first len(row) keys) the op's bias:
// entry [h, i, j] of a bias per pair, or entry i − j + T − 1 of head h's table by distance.
func addBias[F Float](op *attentionOp, row, bias []F, b, h, i int) {
	T, H, nr := op.cfg.Len, op.cfg.Heads, 2*op.cfg.Len-1
	switch op.bias {
	case biasPairs:
		for j, x := range bias[h*T*T+i*T : h*T*T+i*T+len(row)] {
			row[j] += x
		}
	case biasDist, biasDistSeq:
		tab := bias[relOffset(op.bias == biasDistSeq, b, H, nr)+h*nr:]
		for j := range row {
			row[j] += tab[i-j+T-1]
		}
	}
}

// rowBias writes f's bias of the rows [i0, i1) into rb, [H, i1−i0, T] (row stride T): entry
// (h, i − i0, j) = f.Bias(θ, i, j)[h] rounded to F, for the keys j ≤ i when causal, else j < T,
// as PairBias computes them; row is scratch of H·T values.
func rowBias[F Float](f PairFunc, theta []float64, i0, i1, T int, causal bool, rb []F, row []float64) {
	H, rows := f.Heads(), i1-i0
	b := make([]float64, H)
	for i := i0; i < i1; i++ {
		n := T
		if causal {
			n = i + 1
		}
		biasRow(f, theta, i, n, row, T, b) // [H, n], row stride T
		for h := 0; h < H; h++ {
			dst := rb[(h*rows+i-i0)*T : (h*rows+i-i0)*T+n]
			for j, x := range row[h*T : h*T+n] {
				dst[j] = F(x)
			}
		}
	}
}

// rowDots writes to dots[r] the dot product of rows r of y and dy (row stride D, dh values each),
// summed in order as a single loop would; four rows go through the loop at once, their sums
// independent, so that the additions overlap.
func rowDots[F Float](dots []F, y, dy []F, D, dh int) {
	r := 0
	for ; r+4 <= len(dots); r += 4 {
		y0, y1, y2, y3 := y[r*D:r*D+dh], y[(r+1)*D:(r+1)*D+dh], y[(r+2)*D:(r+2)*D+dh], y[(r+3)*D:(r+3)*D+dh]
		d0, d1, d2, d3 := dy[r*D:r*D+dh], dy[(r+1)*D:(r+1)*D+dh], dy[(r+2)*D:(r+2)*D+dh], dy[(r+3)*D:(r+3)*D+dh]
		var s0, s1, s2, s3 F
		for j := range y0 {
			s0 += F(y0[j] * d0[j]) // F(): not fused on arm64, as on amd64
			s1 += F(y1[j] * d1[j])
			s2 += F(y2[j] * d2[j])
			s3 += F(y3[j] * d3[j])
		}
		dots[r], dots[r+1], dots[r+2], dots[r+3] = s0, s1, s2, s3
	}
	for ; r < len(dots); r++ {
		yr, dr := y[r*D:r*D+dh], dy[r*D:r*D+dh]
		var s F
		for j := range yr {
			s += F(yr[j] * dr[j])
		}
		dots[r] = s
	}
}

// headDots writes to dots[r·H + h] the dot product of head h's dh = D/H values of rows r of y and
// dy (row stride D), for rows r < rows: rowDots over the heads of each row, so each sum has the
// bits of the per-head loop, while the rows are read whole and in order.
func headDots[F Float](dots []F, y, dy []F, rows, D, H int) {
	dh := D / H
	for r := 0; r < rows; r++ {
		rowDots(dots[r*H:(r+1)*H], y[r*D:(r+1)*D], dy[r*D:(r+1)*D], dh, dh)
	}
}

// attnBlockRows, when positive, overrides the row-block size of causal attention (tests use it
// to exercise the blocking on short sequences).
var attnBlockRows = 0

// attnBlock is the number of query rows attention processes at once. Causal attention goes by
// blocks so that the products skip the keys after the block's last row (about half the work on
// long sequences); the block is a multiple of every kernel's tile height.
func attnBlock(T int, causal bool) int {
	switch {
	case !causal:
		return T
	case attnBlockRows > 0:
		return attnBlockRows
	case T <= 192:
		return 24
	}
	return 48
}

// AttentionEvalRows is the number of query rows whose attention weights an evaluation (a
// graph without gradient or capture) holds at once per worker: it keeps a [rows, T] block per
// worker instead of a head's [T, T] weights, so its memory grows linearly with T. Non-causal
// attention goes by blocks of 48 rows here too (each row still sees every key); every element of
// P and of the output is computed by the same operations as with one block, so the results are
// the same bits.
func AttentionEvalRows(T int, causal bool) int {
	if causal {
		return attnBlock(T, true)
	}
	if attnBlockRows > 0 {
		return min(T, attnBlockRows)
	}
	return min(T, 48)
}

// softmaxRow replaces row by its softmax, subtracting the row's own maximum. float32 rows of 8
// values or more go through the AVX2 kernels (exp_amd64.s) eight values at a time.
func softmaxRow[F Float](row []F) {
	if r32, ok := any(row).([]float32); ok && useKernels && len(row) >= 8 {
		softmaxRow32(r32)
		return
	}
	mx := row[0]
	for _, x := range row[1:] {
		mx = max(mx, x)
	}
	var z F
	for j, x := range row {
		e := F(pmath.Exp(float64(x - mx))) // amd64's bits on every CPU
		row[j] = e
		z += e
	}
	inv := 1 / z
	for j := range row {
		row[j] *= inv
	}
}

func softmaxRow32(row []float32) {
	v := len(row) &^ 7
	mx := max8(row)
	for _, x := range row[v:] {
		mx = max(mx, x)
	}
	var z float32
	if haveAVX512 {
		z = expShiftSum16(row, mx)
	} else {
		z = expShiftSum8(row, mx)
	}
	for j := v; j < len(row); j++ {
		e := float32(expFast(float64(row[j] - mx)))
		row[j] = e
		z += e
	}
	inv := 1 / z
	scale8(row, inv)
	for j := v; j < len(row); j++ {
		row[j] *= inv
	}
}

func (op *attentionOp) DiffWRT(n int) []bool {
	d := make([]bool, n)
	for i := range d {
		d[i] = true
	}
	return d
}

// SymDiff builds one backward op that writes the gradients of every input (dq, dk, dv, then
// dbias, dQuery and dKeys when present) into one flat tensor, and views that pick each piece
// out of it.
func (op *attentionOp) SymDiff(in G.Nodes, out, grad *G.Node) (G.Nodes, error) {
	if op.bias == biasRows {
		return nil, fmt.Errorf("ops: Attention: a bias by rows (RowBias) is for evaluation and has no gradient; give a training graph PairBias's tensor")
	}
	op.keepP = true
	bwd := &attentionGradOp{base: newBase("AttentionGrad", len(in)+2), fwd: op}
	packed, err := apply(bwd, append(append(G.Nodes{}, in...), out, grad)...)
	if err != nil {
		return nil, err
	}
	return unpack("AttentionGrad", packed, in)
}

// unpack cuts a backward op's packed output into one view per input, shaped as that input, in
// order (the views are named NAME.pick0, NAME.pick1, ...).
func unpack(name string, packed *G.Node, in G.Nodes) (G.Nodes, error) {
	grads := make(G.Nodes, len(in))
	offset := 0
	for i := range grads {
		shape := in[i].Shape()
		pk := &pickOp{base: newBase(fmt.Sprintf("%s.pick%d", name, i), 1), offset: offset, shape: shape.Clone()}
		var err error
		if grads[i], err = apply(pk, packed); err != nil {
			return nil, err
		}
		offset += shape.TotalSize()
	}
	return grads, nil
}

// attentionGradOp reads the forward op's inputs, y and dy, and the forward op's kept P, and
// writes the gradient of every input, [dq | dk | dv | dbias | dQuery | dKeys], into one flat
// vector.
type attentionGradOp struct {
	base
	fwd  *attentionOp
	out  buffer
	d32  scratch[float32]
	d64  scratch[float64]
	g32  scratch[float32] // dYᵢ·Yᵢ of every row and head (headDots)
	g64  scratch[float64]
	vt32 []bPacker[float32] // one per worker: the head's Vᵀ, packed once for its row blocks
	vt64 []bPacker[float64]
	r32  scratch[float32] // the relative term's gradient: per worker a block by distance, per sequence dKeys
	r64  scratch[float64]
}

func (op *attentionGradOp) Type() hm.Type { return fnType(append(op.fwd.inDims(), 2, 2, 1)...) }

func (op *attentionGradOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	return packedShape(in, op.fwd.arity)
}

func (op *attentionGradOp) Do(vs ...G.Value) (G.Value, error) {
	dt, err := dtypeOf(vs...)
	if err != nil {
		return nil, err
	}
	size := 0
	for _, v := range vs[:op.fwd.arity] {
		size += v.Shape().TotalSize()
	}
	out := op.out.get(dt, size)
	if dt == tensor.Float32 {
		attnBwd(op.fwd, op.fwd.p32.s, &op.d32, &op.g32, &op.r32, &op.vt32, vs, sl[float32](out))
	} else {
		attnBwd(op.fwd, op.fwd.p64.s, &op.d64, &op.g64, &op.r64, &op.vt64, vs, sl[float64](out))
	}
	return out, nil
}

func attnBwd[F Float](fwd *attentionOp, p []F, dbuf, gbuf, rbuf *scratch[F], vts *[]bPacker[F], vs []G.Value, out []F) {
	c := fwd.cfg
	B, T, H := c.Batch, c.Len, c.Heads
	D := vs[0].Shape()[1]
	dh, n, nr := D/H, B*T*D, 2*T-1
	na := fwd.arity
	q, k, v, y, dy := sl[F](vs[0]), sl[F](vs[1]), sl[F](vs[2]), sl[F](vs[na]), sl[F](vs[na+1])
	dq, dk, dv := out[:n], out[n:2*n], out[2*n:3*n]
	rest := out[3*n:] // dbias, dQuery, dKeys
	var db, qr, rk, dqr, drk []F
	if fwd.bias != biasNone {
		nb := vs[fwd.biasIn()].Shape().TotalSize()
		db, rest = rest[:nb], rest[nb:]
	}
	// The relative term: per worker a block by distance [blk, blk + T − 1] (dS sheared onto the
	// distances), and dKeys per sequence [B, 2T−1, D] (summed over the batch at the end when one
	// table serves it).
	// workers() changes when another run of the grid starts or ends: read it once, so that
	// there is a packer (and a block of the relative term) for every chunk.
	w := workers()
	mlen := attnBlock(T, c.Causal) * (attnBlock(T, c.Causal) + T - 1)
	var gb, dkeys []F
	if fwd.rel {
		qr, rk = sl[F](vs[fwd.relIn()]), sl[F](vs[fwd.relIn()+1])
		dqr, drk = rest[:n], rest[n:]
		r := rbuf.get(w*mlen + B*nr*D)
		gb, dkeys = r[:w*mlen], r[w*mlen:]
		clear(dkeys)
	}
	scale := F(c.scale(dh))
	// dS of every head [B, H, T, T], which the bias's gradient sums; without a bias the tiles
	// keep one head's [T, T] per worker (in cache, not streamed through memory)
	tiles := attnTiles(fwd, T, dh)
	var ds []F
	if tiles && fwd.bias == biasNone {
		ds = dbuf.get(w * T * T)
	} else {
		ds = dbuf.get(B * H * T * T)
	}
	// dYᵢ·Yᵢ for every row i and head, [B·T, H]: in one pass over whole rows (contiguous), not
	// head by head (rows of dh values D apart, a cache miss or two each).
	dots := gbuf.get(B * T * H)
	parallel(B*T, 2*D, func(_, lo, hi int) { headDots(dots[lo*H:hi*H], y[lo*D:], dy[lo*D:], hi-lo, D, H) })
	if tiles {
		ts := tilesOf(tilesFor[F](&fwd.bt32, &fwd.bt64), w)
		parallelW(w, B*H, 1<<20, func(worker, lo, hi int) {
			for bh := lo; bh < hi; bh++ {
				b, h := bh/H, bh%H
				dsb := ds[worker*T*T : (worker+1)*T*T]
				if fwd.bias != biasNone {
					dsb = ds[bh*T*T : (bh+1)*T*T]
				}
				headBwd(fwd, &ts[worker], q, k, v, dy, dots[b*T*H+h:], dq, dk, dv, p[bh*T*T:(bh+1)*T*T], dsb, b, h, D, scale)
			}
		})
	} else {
		vt := packers(vts, w)
		parallelW(w, B*H, 1<<20, func(worker, lo, hi int) {
			for bh := lo; bh < hi; bh++ {
				b, h := bh/H, bh%H
				off := b*T*D + h*dh
				vt[worker].pack(v[off:], D, T, dh) // Vᵀ of the head [dh, T], for every row block
				pb, dsb := p[bh*T*T:(bh+1)*T*T], ds[bh*T*T:(bh+1)*T*T]
				blk := attnBlock(T, c.Causal)
				for i0 := 0; i0 < T; i0 += blk { // row blocks: dP, dS and dQ need keys [0, i1) only
					i1 := min(i0+blk, T)
					// dP = dY·Vᵀ
					vt[worker].mul(false, i1-i0, i1, 1, dy[off+i0*D:], D, v[off:], D, dsb[i0*T:], T)
					// dS = P∘(dP − Σⱼ Pᵢⱼ·dPᵢⱼ); Σⱼ Pᵢⱼ·dPᵢⱼ = dYᵢ·Yᵢ (row i of this head); 0 after key n
					for i := i0; i < i1; i++ {
						dot := dots[(b*T+i)*H+h]
						n := T
						if c.Causal {
							n = i + 1
						}
						row, pr := dsb[i*T:i*T+n], pb[i*T:i*T+n]
						j := 0
						if r32, ok := any(row).([]float32); ok && useKernels {
							subMul8(r32, any(pr).([]float32), float32(dot))
							j = n &^ 7
						}
						for ; j < n; j++ {
							row[j] = pr[j] * (row[j] - dot)
						}
						if fwd.bias == biasPairs || fwd.whole { // the bias gradient sums all of dS
							clear(dsb[i*T+n : (i+1)*T])
						} else { // dS·K and dSᵀ·Q read keys below i1 only
							clear(dsb[i*T+n : i*T+max(n, i1)])
						}
					}
					// dQ = scale·dS·K
					gemm1(false, false, i1-i0, dh, i1, scale, dsb[i0*T:], T, k[off:], D, 0, dq[off+i0*D:], D)
					if fwd.rel {
						nk := T
						if c.Causal {
							nk = i1
						}
						dlo, nd, r0 := relBlock(T, i0, i1, nk)
						g := gb[worker*mlen : worker*mlen+(i1-i0)*nd]
						clear(g)
						for i := i0; i < i1; i++ { // G[i, (i − j) − dlo] = dS[i, j]
							gr, nj := g[(i-i0)*nd:(i-i0+1)*nd], nk
							if c.Causal {
								nj = i + 1
							}
							for j, x := range dsb[i*T : i*T+nj] {
								gr[i-j-dlo] = x
							}
						}
						ko := relOffset(fwd.relSeq, b, nr, D) + r0*D + h*dh
						// dQuery = scale·G·Keys[dlo..] ; dKeys[dlo..] += scale·Gᵀ·Query
						gemm1(false, false, i1-i0, dh, nd, scale, g, nd, rk[ko:], D, 0, dqr[off+i0*D:], D)
						gemm1(true, false, nd, dh, i1-i0, scale, g, nd, qr[off+i0*D:], D, 1, dkeys[b*nr*D+r0*D+h*dh:], D)
					}
				}
				for j0 := 0; j0 < T; j0 += blk { // key blocks: dV, dK need queries [j0, T) only (causal)
					j1 := min(j0+blk, T)
					i0 := 0
					if c.Causal {
						i0 = j0
					}
					// dV = Pᵀ·dY ; dK = scale·dSᵀ·Q
					gemm1(true, false, j1-j0, dh, T-i0, 1, pb[i0*T+j0:], T, dy[off+i0*D:], D, 0, dv[off+j0*D:], D)
					gemm1(true, false, j1-j0, dh, T-i0, scale, dsb[i0*T+j0:], T, q[off+i0*D:], D, 0, dk[off+j0*D:], D)
				}
			}
		})
	}
	switch fwd.bias {
	case biasPairs: // dbias[h] = Σ_b dS[b, h], summed in a fixed order
		clear(db)
		for b := 0; b < B; b++ {
			for h := 0; h < H; h++ {
				src, dst := ds[(b*H+h)*T*T:(b*H+h+1)*T*T], db[h*T*T:(h+1)*T*T]
				for j, x := range src {
					dst[j] += x
				}
			}
		}
	case biasDist, biasDistSeq: // dtable[h, i − j + T − 1] = Σ dS[b, h, i, j], in a fixed order
		clear(db)
		for b := 0; b < B; b++ {
			for h := 0; h < H; h++ {
				dst := db[relOffset(fwd.bias == biasDistSeq, b, H, nr)+h*nr:]
				for i := 0; i < T; i++ {
					n := T
					if c.Causal {
						n = i + 1
					}
					for j, x := range ds[(b*H+h)*T*T+i*T : (b*H+h)*T*T+i*T+n] {
						dst[i-j+T-1] += x
					}
				}
			}
		}
	}
	if fwd.rel { // dKeys: the sequences' tables, or their sum in order when one table serves the batch
		if fwd.relSeq {
			copy(drk, dkeys)
		} else {
			copy(drk, dkeys[:nr*D])
			for b := 1; b < B; b++ {
				addInto(drk, drk, dkeys[b*nr*D:(b+1)*nr*D])
			}
		}
	}
}

func (op *attentionGradOp) DiffWRT(n int) []bool { return make([]bool, n) }
func (op *attentionGradOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("ops: AttentionGrad has no gradient of its own")
}

// pickOp returns a view of shape `shape` on a flat tensor, starting at `offset`. The view shares
// memory with its input; the pieces picked from one packed gradient never overlap.
type pickOp struct {
	base
	offset int
	shape  tensor.Shape
}

func (op *pickOp) Type() hm.Type { return hm.NewFnType(tt(1), tt(len(op.shape))) }
func (op *pickOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return op.shape.Clone(), nil
}

func (op *pickOp) Do(vs ...G.Value) (G.Value, error) {
	d, err := dense(vs[0])
	if err != nil {
		return nil, err
	}
	n := op.shape.TotalSize()
	var backing any
	switch s := d.Data().(type) {
	case []float32:
		backing = s[op.offset : op.offset+n]
	case []float64:
		backing = s[op.offset : op.offset+n]
	default:
		return nil, fmt.Errorf("ops: pick: unsupported data %T", s)
	}
	return tensor.New(tensor.WithShape(op.shape...), tensor.WithBacking(backing)), nil
}

func (op *pickOp) DiffWRT(int) []bool { return []bool{false} }
func (op *pickOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("ops: pick has no gradient of its own")
}
