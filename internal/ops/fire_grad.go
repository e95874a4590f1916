package ops

import "math"

// FIRE's gradient: for the pairs of one query row, sixteen keys at a time, every lane keeps its
// own sums of the parameters' gradients in F (fireGradChunks, per parameter and lane: [Size,
// fireLanes], fireGradSlot), over every row of the op; the lanes are then added in float64 in their order. The
// derivative of x = ψ(d)/B, B = ψ(n) + ε, n = max(i, L), L = |m|·L0:
//
//	∂x/∂c = (∂ψ(d)/∂c − x·∂B/∂c)/B,  ∂ψ(d)/∂c = sign(c)·d/(|c|·d + 1),  ∂B/∂c = sign(c)·n/(|c|·n + 1),
//	∂x/∂m = x·(−∂B/∂n·sign(m)·L0)/B  when L > i (else 0),  ∂B/∂n = |c|/(|c|·n + 1).

// fireRowFactors are query i's factors of the chain to c and m, in F: ∂B/∂c and
// −∂B/∂n·sign(m)·L0 (0 when L ≤ i).
func fireRowFactors[F Float](p *fireParams[F], L0 float64, i int) (bn, dBdc, kfac F) {
	bn, n := p.norm(i)
	dBdc = F(math.Copysign(1, p.c) * n / (float64(p.ac*n) + 1))
	if p.l > float64(i) {
		kfac = F(-p.ac / (float64(p.ac*n) + 1) * math.Copysign(1, p.m) * L0)
	}
	return bn, dBdc, kfac
}

// fireGradRow adds to acc ([Size, fireLanes]) the gradient of Σ_{h, j0 ≤ j < j1} g[h·gs + j −
// j0]·b_h(i, j): the whole chunks of sixteen keys in place, the last few through a chunk of
// scratch whose other lanes have x = 0 and g = 0 (they add zeros). pad is scratch of
// (2 + Heads)·fireLanes values.
func fireGradRow[F Float](p *fireParams[F], l FIRELayout, L0 float64, i, j0, j1 int, g []F, gs int, acc, pad []F) {
	bn, dBdc, kfac := fireRowFactors(p, L0, i)
	a := p.rev[p.tcap-1-i+j0:] // key j's ψ(i − j) at a[j − j0]
	dA := p.dA[p.tcap-1-i+j0:]
	n := j1 - j0
	nc := n / fireLanes
	if nc > 0 {
		fireGradChunks(acc, g, gs, a, dA, bn, dBdc, kfac, p.w1, p.b1, p.w2kh, l.Heads, nc)
	}
	if r := n - nc*fireLanes; r > 0 {
		c := nc * fireLanes
		pa, pd, pg := pad[:fireLanes], pad[fireLanes:2*fireLanes], pad[2*fireLanes:(2+l.Heads)*fireLanes]
		clear(pad)
		copy(pa, a[c:c+r])
		copy(pd, dA[c:c+r])
		for h := 0; h < l.Heads; h++ {
			copy(pg[h*fireLanes:h*fireLanes+r], g[h*gs+c:h*gs+c+r])
		}
		fireGradChunks(acc, pg, fireLanes, pa, pd, bn, dBdc, kfac, p.w1, p.b1, p.w2kh, l.Heads, 1)
	}
}

// fireGradSlot is where the gradient's lanes keep θ's parameter t (FIRELayout): unit k's slots
// are W2[k, 0..H−1], W1[k], b1[k] (k·(H + 2) on), then b2, c and m (W·(H + 2) on), so that the
// kernel walks them in order.
func fireGradSlot(l FIRELayout, t int) int {
	H, W, e := l.Heads, l.Width, l.Width*(l.Heads+2)
	switch {
	case t < l.B1():
		return t*(H+2) + H
	case t < l.W2():
		return (t-W)*(H+2) + H + 1
	case t < l.B2():
		k, h := (t-l.W2())/H, (t-l.W2())%H
		return k*(H+2) + h
	}
	return e + t - l.B2()
}

// fireGradSum adds to dtheta the lanes of acc ([Size, fireLanes], fireGradSlot), in float64, in
// lane order.
func fireGradSum[F Float](l FIRELayout, acc []F, dtheta []float64) {
	for t := range dtheta {
		s := 0.0
		o := fireGradSlot(l, t) * fireLanes
		for _, x := range acc[o : o+fireLanes] {
			s += float64(x)
		}
		dtheta[t] += s
	}
}

// BiasGrad adds to dtheta the gradient of Σ_h g[h]·Bias(θ, i, j)[h]: FIREBias's gradient of the
// one pair.
func (f *FIRE) BiasGrad(theta []float64, i, j int, g, dtheta []float64) {
	T := max(i, j) + 1
	if f.f32 {
		fireBiasGradPair(f, params(f, &f.p32, theta, T), i, j, g, dtheta)
	} else {
		fireBiasGradPair(f, params(f, &f.p64, theta, T), i, j, g, dtheta)
	}
}

func fireBiasGradPair[F Float](f *FIRE, p *fireParams[F], i, j int, g, dtheta []float64) {
	l := f.FIRELayout
	gf := make([]F, l.Heads)
	for h, x := range g {
		gf[h] = F(x)
	}
	acc, pad := make([]F, l.Size()*fireLanes), make([]F, (2+l.Heads)*fireLanes)
	fireGradRow(p, l, f.L0, i, j, j+1, gf, 1, acc, pad)
	fireGradSum(l, acc, dtheta)
}
