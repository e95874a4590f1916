package ops

import (
	"fmt"
	"math"
	"slices"

	"github.com/chewxy/hm"
	"github.com/posformer/posformer/internal/pmath"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// RopeConfig says how Rope rotates each head of a [N, H·Dh] tensor.
type RopeConfig struct {
	Heads int     // H: the row is H heads of Dh = D/H values
	Rot   int     // rotated values per head (even, ≤ Dh): pairs (2i, 2i+1) for i < Rot/2; the rest pass through
	Base  float64 // θᵢ = Base^(−2i/Rot)
	Scale float64 // positions are multiplied by Scale before the rotation (1 = plain RoPE)
	// Freqs, when not nil, are the Rot/2 frequencies θᵢ in place of Base's (YaRN's blend).
	Freqs []float64
	// Mscale, when not 0, multiplies cos and sin (YaRN's attention temperature; 0 or 1: none), so
	// the output is Mscale·R(p)·x and the logits q·k scale by Mscale².
	Mscale float64
}

// theta is the frequencies the config rotates by: Freqs, or Theta(Base, Rot).
func (c RopeConfig) theta() []float64 {
	if c.Freqs != nil {
		return c.Freqs
	}
	return Theta(c.Base, c.Rot)
}

// Theta returns the rotation frequencies θᵢ = base^(−2i/rot), i < rot/2, in float64.
func Theta(base float64, rot int) []float64 {
	th := make([]float64, rot/2)
	for i := range th {
		th[i] = pmath.Pow(base, -2*float64(i)/float64(rot))
	}
	return th
}

// Rope rotates each head's pairs (2i, 2i+1) of x [N, D] by the angle pos[n]·Scale·θᵢ, where pos [N]
// holds each row's position. Angles are computed in float64. Its gradient is the inverse rotation.
func Rope(x, pos *G.Node, cfg RopeConfig) (*G.Node, error) {
	s := x.Shape()
	if len(s) != 2 || cfg.Heads < 1 || s[1]%cfg.Heads != 0 {
		return nil, fmt.Errorf("ops: Rope: x %v does not split into %d heads", s, cfg.Heads)
	}
	if ps := pos.Shape(); ps.TotalSize() != s[0] {
		return nil, fmt.Errorf("ops: Rope: %d positions for %d rows", ps.TotalSize(), s[0])
	}
	if dh := s[1] / cfg.Heads; cfg.Rot < 0 || cfg.Rot%2 != 0 || cfg.Rot > dh {
		return nil, fmt.Errorf("ops: Rope: rotated dimension %d must be even and at most the head dimension %d", cfg.Rot, dh)
	}
	if cfg.Freqs != nil && len(cfg.Freqs) != cfg.Rot/2 {
		return nil, fmt.Errorf("ops: Rope: %d frequencies for %d rotated pairs", len(cfg.Freqs), cfg.Rot/2)
	}
	return apply(&ropeOp{base: newBase("Rope", 2), cfg: cfg, theta: cfg.theta()}, x, pos)
}

type ropeOp struct {
	base
	cfg     RopeConfig
	theta   []float64 // cfg.theta()
	inverse bool      // rotate by −angle: the gradient
	out     buffer
	pos64   scratch[float64]
	rows    posRows
}

func (op *ropeOp) Type() hm.Type { return fnType(2, 1, 2) }

func (op *ropeOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapeOf(in, 0)
	if err != nil {
		return nil, err
	}
	return s.Clone(), nil
}

// fill writes the cos and sin of position p's angles p·Scale·θᵢ (times Mscale) into cs and sn.
func (op *ropeOp) fill(p float64, cs, sn []float64) {
	m := op.cfg.Mscale
	for i, t := range op.theta {
		a := p * op.cfg.Scale * t
		sn[i], cs[i] = pmath.Sincos(a)
		if m != 0 && m != 1 { // the gradient's too: (m·R)ᵀ = m·Rᵀ
			sn[i], cs[i] = m*sn[i], m*cs[i]
		}
		if op.inverse {
			sn[i] = -sn[i]
		}
	}
}

// posRows holds cos and sin tables [rows, half] with one row per distinct position: each row is
// computed once and reused by every later run with that position (a graph's rows repeat the
// positions 0..T−1 of each sequence, and runs repeat them).
type posRows struct {
	at     map[uint64]int32 // a position's bits → its row
	cs, sn []float64
	// cs32, sc32 [rows, 2·half] are the rows rounded to float32 as the vector rotation reads
	// them: c₀ s₀ c₁ s₁ … and s₀ c₀ s₁ c₁ …
	cs32, sc32 []float32
	last       []float64 // the positions of the last run
	idx        []int32   // [len(last)]: the row of each
}

// get returns the tables and the row of each position in them, filling the rows of positions not
// seen before with fill (half values each). The tables may move when rows are added.
func (t *posRows) get(pos []float64, half int, fill func(p float64, cs, sn []float64)) (cs, sn []float64, idx []int32) {
	if t.at != nil && equalBits(pos, t.last) {
		return t.cs, t.sn, t.idx
	}
	if t.at == nil || len(t.at) > 2*len(pos)+4096 { // bounded: start again
		t.at, t.cs, t.sn, t.cs32, t.sc32 = map[uint64]int32{}, t.cs[:0], t.sn[:0], t.cs32[:0], t.sc32[:0]
	}
	t.idx = slices.Grow(t.idx[:0], len(pos))[:len(pos)]
	for r, p := range pos {
		i, ok := t.at[math.Float64bits(p)]
		if !ok {
			i = int32(len(t.at))
			t.at[math.Float64bits(p)] = i
			t.cs, t.sn = append(t.cs, make([]float64, half)...), append(t.sn, make([]float64, half)...)
			c, sn := t.cs[int(i)*half:], t.sn[int(i)*half:]
			fill(p, c, sn)
			for j := range half {
				t.cs32 = append(t.cs32, float32(c[j]), float32(sn[j]))
				t.sc32 = append(t.sc32, float32(sn[j]), float32(c[j]))
			}
		}
		t.idx[r] = i
	}
	t.last = append(t.last[:0], pos...)
	return t.cs, t.sn, t.idx
}

// equalBits reports whether a and b hold the same float64 bits.
func equalBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// positionsOf copies a position vector, float32 or float64, into pos as float64.
func positionsOf(v G.Value, pos []float64) []float64 {
	switch p := v.Data().(type) {
	case []float32:
		for i, x := range p {
			pos[i] = float64(x)
		}
	case []float64:
		copy(pos, p)
	}
	return pos
}

func (op *ropeOp) Do(vs ...G.Value) (G.Value, error) {
	dt, err := dtypeOf(vs...)
	if err != nil {
		return nil, err
	}
	s := vs[0].Shape()
	out := op.out.get(dt, s...)
	pos := positionsOf(vs[1], op.pos64.get(s[0]))
	_, _, idx := op.rows.get(pos, op.cfg.Rot/2, op.fill)
	if dt == tensor.Float32 {
		rotate(sl[float32](vs[0]), sl[float32](out), &op.rows, idx, s[1], op.cfg)
	} else {
		rotate(sl[float64](vs[0]), sl[float64](out), &op.rows, idx, s[1], op.cfg)
	}
	return out, nil
}

// rotate rotates the rows of x [len(idx), d] into y, row r by the row idx[r] of t's tables.
func rotate[F Float](x, y []F, t *posRows, idx []int32, d int, cfg RopeConfig) {
	parallel(len(idx), 2*d, func(_, lo, hi int) { rotateRows(x, y, t, idx, lo, hi, d, cfg) })
}

// rotateRows rotates rows lo..hi: each pair (x0, x1) to (F(x0·c) − F(x1·s), F(x0·s) + F(x1·c)),
// c and s rounded to F; in float32, the first Rot&^7 values of each head eight at a time
// (rotPairs8: the same operations), when rotVector.
func rotateRows[F Float](x, y []F, t *posRows, idx []int32, lo, hi, d int, cfg RopeConfig) {
	dh, half := d/cfg.Heads, cfg.Rot/2
	if cfg.Rot < dh { // the values past Rot pass through
		copy(y[lo*d:hi*d], x[lo*d:hi*d])
	}
	x32, is32 := any(x).([]float32)
	y32, _ := any(y).([]float32)
	vec := 0
	if is32 && rotVector {
		vec = cfg.Rot &^ 7
	}
	for r := lo; r < hi; r++ {
		k := int(idx[r]) * half
		if vec > 0 {
			_, _ = x32[r*d+d-1], y32[r*d+d-1] // bounds, for the assembly
			_, _ = t.cs32[2*k+vec-1], t.sc32[2*k+vec-1]
			rotPairs8(&x32[r*d], &y32[r*d], &t.cs32[2*k], &t.sc32[2*k], cfg.Heads, dh, vec)
			if vec == cfg.Rot {
				continue
			}
		}
		c, s := t.cs[k:k+half], t.sn[k:k+half]
		for h := 0; h < cfg.Heads; h++ {
			off := r*d + h*dh
			for i := vec / 2; i < half; i++ {
				x0, x1 := x[off+2*i], x[off+2*i+1]
				ci, si := F(c[i]), F(s[i])
				y[off+2*i] = F(x0*ci) - F(x1*si) // F(): not fused on arm64, as on amd64
				y[off+2*i+1] = F(x0*si) + F(x1*ci)
			}
		}
	}
}

func (op *ropeOp) DiffWRT(int) []bool { return []bool{true, false} }

func (op *ropeOp) SymDiff(in G.Nodes, out, grad *G.Node) (G.Nodes, error) {
	inv := &ropeOp{base: newBase("RopeGrad", 2), cfg: op.cfg, theta: op.theta, inverse: !op.inverse}
	d, err := apply(inv, grad, in[1])
	if err != nil {
		return nil, err
	}
	return G.Nodes{d, nil}, nil
}
