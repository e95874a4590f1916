package ops

import (
	"math"
	"slices"
	"sync"

	"github.com/posformer/posformer/internal/pmath"
	"gorgonia.org/tensor"
)

// FIREEps is ε of FIRE's normaliser ψ(max(L, i)) + ε (the reference implementation's eps=1e-6,
// added to log(|c·max(L, i)| + 1) before the division), which keeps the division defined.
const FIREEps = 1e-6

// FIRELayout is where FIRE's parameter vector θ holds its parameters, in order: W1 [Width],
// b1 [Width], W2 [Width, Heads], b2 [Heads], c, m.
type FIRELayout struct{ Heads, Width int }

func (l FIRELayout) W1() int   { return 0 }
func (l FIRELayout) B1() int   { return l.Width }
func (l FIRELayout) W2() int   { return 2 * l.Width }
func (l FIRELayout) B2() int   { return 2*l.Width + l.Width*l.Heads }
func (l FIRELayout) C() int    { return l.B2() + l.Heads }
func (l FIRELayout) M() int    { return l.C() + 1 }
func (l FIRELayout) Size() int { return l.M() + 1 }

// FIRE is FIRE's bias (Li et al. 2024, §3.2) as a function of its parameters θ (FIRELayout):
// for query i and key j,
//
//	b_h(i, j) = f(x)_h,  x = ψ(i − j) / (ψ(max(L, i)) + ε),  ψ(d) = log(|c|·d + 1),  L = |m|·L0,
//	f(x)_h = b2[h] + Σ_k W2[k, h]·max(W1[k]·x + b1[k], 0)   (the sum in the order of k),
//
// computed in the graph's dtype: ψ(i − j) and ψ(max(L, i)) + ε in float64 (pmath.Log1p) and
// rounded to it, then the division and the MLP in it, every product and sum rounded, sixteen keys
// at a time by the vector kernels (fire_amd64.s) in a float32 graph, or their lanes in Go
// (fire_lanes.go: the same bits). FIREBias builds it as a tensor [H, T, T] with its gradient
// (training); as an ops.RowFunc it gives Attention's RowBias a row at a time (evaluation), with
// FIREBias's values to the bit. ψ of every distance is computed once per θ, as a table.
//
// A FIRE holds what it prepared from the last θ it saw (the MLP's weights in the dtype, the table
// of ψ), guarded by a lock, so that the rows of one evaluation prepare it once; it is safe for
// concurrent use.
type FIRE struct {
	FIRELayout
	L0  float64 // the threshold's scale, init_l
	f32 bool    // computed in float32 (else float64)

	mu  sync.Mutex
	p32 *fireParams[float32]
	p64 *fireParams[float64]
}

// NewFIRE returns FIRE's bias for heads, an MLP of width hidden units, the threshold's scale L0,
// computed in dtype dt (float32 or float64).
func NewFIRE(heads, width int, L0 float64, dt tensor.Dtype) *FIRE {
	return &FIRE{FIRELayout: FIRELayout{Heads: heads, Width: width}, L0: L0, f32: dt == tensor.Float32}
}

var _ RowFunc = (*FIRE)(nil)

// fireGroup is the number of heads the kernels compute at once; θ's W2 and b2 are padded with
// zeros to a multiple of it.
const fireGroup = 4

// fireLanes is the number of keys the kernels compute at once; the ψ table is padded by as many.
const fireLanes = 16

// fireParams is what FIRE prepares from θ for the dtype F.
type fireParams[F Float] struct {
	theta  []float64 // the θ it was made from
	w1, b1 []F       // [Width]
	w2     []F       // [groups, Width, fireGroup]: head g·fireGroup + h at [g, k, h]
	b2     []F       // [groups, fireGroup]
	w2kh   []F       // W2 as θ holds it, [Width, Heads] (the gradient's)
	c, ac  float64   // c and |c|
	m      float64
	l      float64 // the threshold |m|·L0
	// tcap: the table covers the distances d from −(tcap + fireLanes) to tcap − 1, rev[t] =
	// F(ψ(tcap − 1 − t)) (from the longest distance down), so that the keys j = 0, 1, ... of
	// query i < tcap read rev[tcap − 1 − i + j] in order; dA likewise holds ∂ψ(d)/∂c.
	tcap    int
	rev, dA []F
}

// params returns what f prepared for θ, for queries below T (and their keys), preparing it when
// θ or the length changed.
func params[F Float](f *FIRE, pp **fireParams[F], theta []float64, T int) *fireParams[F] {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := *pp
	if p == nil || !slices.Equal(p.theta, theta) {
		p = prepare[F](f, theta, T)
	} else if T > p.tcap {
		q := *p
		q.table(T)
		p = &q
	} else {
		return p
	}
	*pp = p
	return p
}

// prepare converts θ's MLP to F (W2 and b2 in groups of fireGroup heads) and tables ψ up to T.
func prepare[F Float](f *FIRE, theta []float64, T int) *fireParams[F] {
	l := f.FIRELayout
	H, W := l.Heads, l.Width
	ng := (H + fireGroup - 1) / fireGroup
	p := &fireParams[F]{theta: slices.Clone(theta), w1: make([]F, W), b1: make([]F, W),
		w2: make([]F, ng*W*fireGroup), b2: make([]F, ng*fireGroup), w2kh: make([]F, W*H)}
	for k := 0; k < W; k++ {
		p.w1[k], p.b1[k] = F(theta[l.W1()+k]), F(theta[l.B1()+k])
		for h := 0; h < H; h++ {
			p.w2kh[k*H+h] = F(theta[l.W2()+k*H+h])
			p.w2[(h/fireGroup*W+k)*fireGroup+h%fireGroup] = p.w2kh[k*H+h]
		}
	}
	for h := 0; h < H; h++ {
		p.b2[h] = F(theta[l.B2()+h])
	}
	p.c, p.m = float64(F(theta[l.C()])), float64(F(theta[l.M()])) // θ as the graph holds it
	p.ac, p.l = math.Abs(p.c), math.Abs(p.m)*f.L0
	p.table(T)
	return p
}

// table tables ψ and ∂ψ/∂c for the queries below T: tcap is the least power of two ≥ T.
func (p *fireParams[F]) table(T int) {
	p.tcap = 1
	for p.tcap < T {
		p.tcap *= 2
	}
	n := 2*p.tcap + fireLanes
	p.rev, p.dA = make([]F, n), make([]F, n)
	sc := math.Copysign(1, p.c)
	for t := range p.rev {
		d := float64(p.tcap - 1 - t)
		p.rev[t] = F(pmath.Log1p(p.ac * d))
		p.dA[t] = F(sc * d / (float64(p.ac*d) + 1))
	}
}

// psi is F(ψ(i − j)), from the table (i < tcap, j − i ≤ tcap + fireLanes).
func (p *fireParams[F]) psi(i, j int) F { return p.rev[p.tcap-1-i+j] }

// norm is query i's normaliser F(ψ(n) + ε), n = max(i, L), with n.
func (p *fireParams[F]) norm(i int) (F, float64) {
	n := max(float64(i), p.l)
	return F(pmath.Log1p(p.ac*n) + FIREEps), n
}

// Heads is the number of biases per pair.
func (f *FIRE) Heads() int { return f.FIRELayout.Heads }

// Bias writes the bias of every head for query i and key j into out, FIREBias's values.
func (f *FIRE) Bias(theta []float64, i, j int, out []float64) {
	T := max(i, j) + 1
	if f.f32 {
		fireBiasPair(params(f, &f.p32, theta, T), f.Heads(), f.Width, i, j, out)
	} else {
		fireBiasPair(params(f, &f.p64, theta, T), f.Heads(), f.Width, i, j, out)
	}
}

func fireBiasPair[F Float](p *fireParams[F], H, W, i, j int, out []float64) {
	bn, _ := p.norm(i)
	for h := 0; h < H; h++ {
		out[h] = float64(fireLane(p, W, h, p.psi(i, j)/bn))
	}
}

// BiasRow writes Bias(θ, i, j)[h] to out[h·stride + j] for the keys j < n, sixteen at a time.
func (f *FIRE) BiasRow(theta []float64, i, n int, out []float64, stride int) {
	T := max(i+1, n)
	if f.f32 {
		p := params(f, &f.p32, theta, T)
		fireRow(p, f.Heads(), f.Width, i, n, out, stride)
	} else {
		fireRow(params(f, &f.p64, theta, T), f.Heads(), f.Width, i, n, out, stride)
	}
}

// fireRow writes the biases of query i and keys j < n to out[h·stride + j]: the whole chunks of
// sixteen keys in place, the last few through a chunk of scratch.
func fireRow[F Float, O Float](p *fireParams[F], H, W, i, n int, out []O, stride int) {
	bn, _ := p.norm(i)
	ar := p.rev[p.tcap-1-i:] // key j's ψ(i − j) at ar[j]
	nc := n / fireLanes
	var tail [fireGroup * fireLanes]O
	for g := 0; g*fireGroup < H; g++ {
		nh := min(fireGroup, H-g*fireGroup)
		w2, b2 := p.w2[g*W*fireGroup:(g+1)*W*fireGroup], p.b2[g*fireGroup:(g+1)*fireGroup]
		o := out[g*fireGroup*stride:]
		if nc > 0 {
			fireChunks(o, stride, ar, bn, p.w1, p.b1, w2, b2, nc, nh)
		}
		if r := n - nc*fireLanes; r > 0 {
			fireChunks(tail[:], fireLanes, ar[nc*fireLanes:], bn, p.w1, p.b1, w2, b2, 1, nh)
			for h := 0; h < nh; h++ {
				copy(o[h*stride+nc*fireLanes:h*stride+n], tail[h*fireLanes:h*fireLanes+r])
			}
		}
	}
}
