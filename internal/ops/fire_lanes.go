package ops

// FIRE's vector kernel (fire_amd64.s) written out lane by lane: it performs the kernel's
// operations in its order, so that it gives the kernel's bits on any CPU. It serves the rows'
// last few keys' chunks on the builds without the assembly (arm64, purego), the amd64 build
// without its kernels (POSFORMER_GEMM=blas) and float64 graphs; TestFIREKernelsMatchLanes checks
// it against the assembly.

// fireChunksLanes writes, for the chunks c < nc of fireLanes keys, the lanes l and the heads
// h < nh of one group: out[h·stride + fireLanes·c + l] = the MLP of x = ar[fireLanes·c + l] / bn,
//
//	acc_h = b2[h];  for k: z = max(F(w1[k]·x) + b1[k], 0) (MAXPS: 0 when z is NaN);  acc_h += F(w2[k·fireGroup + h]·z)
//
// every product and sum rounded to F, then converted to O.
func fireChunksLanes[F, O Float](out []O, stride int, ar []F, bn F, w1, b1, w2, b2 []F, nc, nh int) {
	for c := 0; c < nc; c++ {
		for l := 0; l < fireLanes; l++ {
			x := ar[c*fireLanes+l] / bn
			for h := 0; h < nh; h++ {
				out[h*stride+c*fireLanes+l] = O(fireMLP(x, w1, b1, w2, b2, h))
			}
		}
	}
}

// fireMLP is one lane of the kernel: head h (of its group, whose W2 is w2 and b2 is b2) at x.
func fireMLP[F Float](x F, w1, b1, w2, b2 []F, h int) F {
	acc := b2[h]
	for k, w := range w1 {
		z := maxF(F(w*x)+b1[k], 0) // F(): not fused on arm64, as on amd64
		acc += F(w2[k*fireGroup+h] * z)
	}
	return acc
}

// fireLane is head h's bias at x, the kernel's bits.
func fireLane[F Float](p *fireParams[F], W, h int, x F) F {
	g := h / fireGroup
	return fireMLP(x, p.w1, p.b1, p.w2[g*W*fireGroup:(g+1)*W*fireGroup], p.b2[g*fireGroup:(g+1)*fireGroup], h%fireGroup)
}

// maxF is MAXPS's (and MAXPD's) max(a, b): a if a > b, else b (so b when either is NaN).
func maxF[F Float](a, b F) F {
	if a > b {
		return a
	}
	return b
}

// fireGradChunksLanes adds to acc ([Size, fireLanes] in the kernel's order, fireGradSlot: slot t's
// lane l at t·fireLanes + l) the gradient of the chunks c < nc of fireLanes keys of one query
// row, key fireLanes·c + l in lane l, with the incoming gradients g[h·gs + key]: for each lane,
// x = a/bn and dx = 0, then for every hidden unit k (w2 as θ holds it, [W, H]):
//
//	z = F(w1[k]·x) + b1[k],  r = max(z, 0),  dz = F(g_0·w2[k, 0]) + F(g_1·w2[k, 1]) + … (in order),
//	dW2[k, h] += F(g_h·r) for every h,  dz = 0 unless z > 0,  dW1[k] += F(dz·x),  db1[k] += dz,  dx += F(dz·w1[k]),
//
// then db2[h] += g_h, u = dx/bn, dc += F(u·(dA − F(x·dBdc))), dm += F(F(u·x)·kfac).
func fireGradChunksLanes[F Float](acc, g []F, gs int, a, dA []F, bn, dBdc, kfac F, w1, b1, w2 []F, H, nc int) {
	W := len(w1)
	at := func(t, lane int) *F { return &acc[t*fireLanes+lane] }
	for c := 0; c < nc; c++ {
		for lane := 0; lane < fireLanes; lane++ {
			j := c*fireLanes + lane
			x := a[j] / bn
			var dx F
			for k, w := range w1 {
				u := k * (H + 2) // unit k's slots
				z := F(w*x) + b1[k]
				r := maxF(z, 0)
				dz := F(g[j] * w2[k*H])
				*at(u, lane) += F(g[j] * r)
				for h := 1; h < H; h++ {
					dz += F(g[h*gs+j] * w2[k*H+h])
					*at(u+h, lane) += F(g[h*gs+j] * r)
				}
				if !(z > 0) {
					dz = 0
				}
				*at(u+H, lane) += F(dz * x)
				*at(u+H+1, lane) += dz
				dx += F(dz * w)
			}
			e := W * (H + 2)
			for h := 0; h < H; h++ {
				*at(e+h, lane) += g[h*gs+j]
			}
			u := dx / bn
			*at(e+H, lane) += F(u * (dA[j] - F(x*dBdc)))
			*at(e+H+1, lane) += F(F(u*x) * kfac)
		}
	}
}
