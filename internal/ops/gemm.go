package ops

import "sync"

// This file is posformer's own blocked matrix multiply (after the GotoBLAS/BLIS scheme): op(B)
// is packed into panels of nr columns (or read in place), op(A) is read in place through its
// strides (only its last rows, when m is not a multiple of mr, are copied into a zero-padded
// panel), and an assembly micro-kernel accumulates one mr×nr tile of C over a kc-long slice of
// the inner dimension. It is used on CPUs that have a kernel (see gemm_amd64.go); elsewhere gemm
// falls back to the BLAS variable.

const (
	gemmKC = 256  // inner-dimension block: one packed B panel (kc×nr) stays in L1
	gemmMC = 120  // rows of A per block; must be a multiple of every kernel's mr (3, 4, 6, 12)
	gemmNC = 1024 // columns of B packed at once

	// gemmDirectB is the largest m for which a row-major B is read in place rather than packed.
	gemmDirectB = 96

	// gemmParallelFlops is the product size (m·n·k) from which one multiply is split over the
	// workers; below it the goroutines cost more than they save.
	gemmParallelFlops = 1 << 18
)

// microKernel computes C[0:mr, 0:nr] += alpha·A·B (or, when add is false, C = alpha·A·B without
// reading C) over k steps of the inner dimension: element (r, p) of A is at a + r·rs + p·cs (so
// A is read in place, row-major, transposed or packed), row p of B is the nr values at
// b + p·bs, and C is row-major with row stride ldc (all in elements).
type microKernel[F Float] struct {
	mr, nr int
	fn     func(k int, a *F, rs, cs int, b *F, bs int, c *F, ldc int, alpha F, add bool)
}

// packPool keeps the packing buffers across calls: a sync.Pool, whose per-P caches avoid a
// lock shared by the workers (attention calls gemm from every worker at once), and whose victim
// cache keeps the buffers through a garbage collection.
type packPool[F Float] struct{ p sync.Pool }

func (p *packPool[F]) get(n int) *[]F {
	if b, ok := p.p.Get().(*[]F); ok && cap(*b) >= n {
		*b = (*b)[:n]
		return b
	}
	b := make([]F, n)
	return &b
}

func (p *packPool[F]) put(b *[]F) { p.p.Put(b) }

var (
	pool32 packPool[float32]
	pool64 packPool[float64]
)

func poolOf[F Float]() *packPool[F] {
	var z F
	if _, ok := any(z).(float32); ok {
		return any(&pool32).(*packPool[F])
	}
	return any(&pool64).(*packPool[F])
}

// gemmBlocked computes C = alpha·op(A)·op(B) + beta·C (row-major; op(A) m×k, op(B) k×n) with the
// micro-kernel kern, splitting large products over the workers if split is set.
func gemmBlocked[F Float](kern microKernel[F], split, tA, tB bool, m, n, k int, alpha F, a []F, lda int, b []F, ldb int, beta F, c []F, ldc int) {
	if m <= 0 || n <= 0 {
		return
	}
	if k <= 0 || alpha == 0 || (beta != 0 && beta != 1) {
		for i := 0; i < m; i++ { // C = beta·C here; the kernels then add to it
			row := c[i*ldc : i*ldc+n]
			if beta == 0 {
				clear(row)
			} else {
				for j := range row {
					row[j] *= beta
				}
			}
		}
		if k <= 0 || alpha == 0 {
			return
		}
		beta = 1
	}
	add := beta != 0                // otherwise the first block of the inner dimension overwrites C
	if !split || !splits(m, n, k) { // no closure: it would escape to the heap on every call
		gemmSerial(kern, tA, tB, m, n, k, alpha, a, lda, b, ldb, c, ldc, add)
		return
	}
	splitGemm(m, n, k, kern.mr, kern.nr, func(i0, i1, j0, j1 int) {
		aOff, bOff := i0*lda, j0
		if tA {
			aOff = i0
		}
		if tB {
			bOff = j0 * ldb
		}
		gemmSerial(kern, tA, tB, i1-i0, j1-j0, k, alpha, a[aOff:], lda, b[bOff:], ldb, c[i0*ldc+j0:], ldc, add)
	})
}

// splits reports whether splitGemm would split an m×n×k product over the workers.
func splits(m, n, k int) bool { return workers() >= 2 && m*n*k >= gemmParallelFlops }

// splitGemm runs part(i0, i1, j0, j1) over blocks of C that cover [0, m)×[0, n): one block when
// the product is small, else one per worker, splitting the larger of m and n at multiples of the
// tile size (mr or nr). Each block is an independent product; which goroutine computes which
// element does not change its value.
func splitGemm(m, n, k, mr, nr int, part func(i0, i1, j0, j1 int)) {
	if !splits(m, n, k) {
		part(0, m, 0, n)
		return
	}
	w := workers()
	if m >= n {
		chunk := ((m+w-1)/w + mr - 1) / mr * mr
		fanout((m+chunk-1)/chunk, func(i int) { part(i*chunk, min((i+1)*chunk, m), 0, n) })
	} else {
		chunk := ((n+w-1)/w + nr - 1) / nr * nr
		fanout((n+chunk-1)/chunk, func(i int) { part(0, m, i*chunk, min((i+1)*chunk, n)) })
	}
}

// gemmSerial computes C += alpha·op(A)·op(B) (C = alpha·op(A)·op(B) if add is false) on the
// calling goroutine. A is read in place;
// op(B) is packed into panels of nr columns unless it is row-major (B not transposed) and the
// panel is whole, in which case it is read in place too.
func gemmSerial[F Float](kern microKernel[F], tA, tB bool, m, n, k int, alpha F, a []F, lda int, b []F, ldb int, c []F, ldc int, add bool) {
	mr, nr := kern.mr, kern.nr
	kcMax := min(k, gemmKC)
	ncMax := min((n+nr-1)/nr*nr, gemmNC)
	pool := poolOf[F]()
	bufp := pool.get(kcMax*(ncMax+mr) + mr*nr)
	defer pool.put(bufp)
	buf := *bufp
	bp := buf[:kcMax*ncMax]
	apad := buf[kcMax*ncMax : kcMax*(ncMax+mr)] // the last rows of A when m is not a multiple of mr
	tile := buf[kcMax*(ncMax+mr):]
	rs, cs := lda, 1 // strides of op(A)
	if tA {
		rs, cs = 1, lda
	}
	mFull := m / mr * mr
	// B is read in place only for short products: over many row panels a packed panel (contiguous,
	// L1-friendly) pays for its copy, while a strided one maps onto few L1 sets.
	packAll := tB || m > gemmDirectB
	for jc := 0; jc < n; jc += gemmNC {
		nc := min(gemmNC, n-jc)
		for pc := 0; pc < k; pc += gemmKC {
			kc := min(gemmKC, k-pc)
			addC := add || pc > 0
			if packAll {
				packB(tB, b, ldb, pc, jc, kc, nc, nr, bp)
			} else if nc%nr != 0 { // only the last, partial panel
				jr := nc / nr * nr
				packB(tB, b, ldb, pc, jc+jr, kc, nc-jr, nr, bp[jr*kc:])
			}
			if mFull < m {
				packA(tA, a, lda, mFull, pc, m-mFull, kc, mr, apad)
			}
			for ic := 0; ic < m; ic += gemmMC {
				mc := min(gemmMC, m-ic)
				for jr := 0; jr < nc; jr += nr {
					nrr := min(nr, nc-jr)
					bPanel, bs := &bp[jr*kc], nr
					if !packAll && nrr == nr {
						bPanel, bs = &b[pc*ldb+jc+jr], ldb
					}
					for ir := 0; ir < mc; ir += mr {
						i := ic + ir
						mrr := min(mr, mc-ir)
						var aPanel *F
						ars, acs := rs, cs
						if mrr == mr {
							aPanel = &a[i*rs+pc*cs]
						} else {
							aPanel, ars, acs = &apad[0], 1, mr
						}
						ci := i*ldc + jc + jr
						if mrr == mr && nrr == nr {
							kern.fn(kc, aPanel, ars, acs, bPanel, bs, &c[ci], ldc, alpha, addC)
							continue
						}
						kern.fn(kc, aPanel, ars, acs, bPanel, bs, &tile[0], nr, alpha, false)
						for r := 0; r < mrr; r++ {
							crow := c[ci+r*ldc : ci+r*ldc+nrr]
							trow := tile[r*nr : r*nr+nrr]
							if addC {
								for j := range crow {
									crow[j] += trow[j]
								}
							} else {
								copy(crow, trow)
							}
						}
					}
				}
			}
		}
	}
}

// packA writes op(A)[ic:ic+mc, pc:pc+kc] (mc ≤ mr) as one panel of mr rows: for each p, the mr
// values of that column; rows past mc are zero.
func packA[F Float](tA bool, a []F, lda, ic, pc, mc, kc, mr int, ap []F) {
	panel := ap[:mr*kc]
	clear(panel)
	for r := 0; r < mc; r++ {
		for p := 0; p < kc; p++ {
			if tA {
				panel[p*mr+r] = a[(pc+p)*lda+ic+r]
			} else {
				panel[p*mr+r] = a[(ic+r)*lda+pc+p]
			}
		}
	}
}

// packB writes op(B)[pc:pc+kc, jc:jc+nc] as panels of nr columns: panel q holds, for each p, the
// nr values of columns jc+q·nr..; columns past nc are zero.
func packB[F Float](tB bool, b []F, ldb, pc, jc, kc, nc, nr int, bp []F) {
	for jr := 0; jr < nc; jr += nr {
		nrr := min(nr, nc-jr)
		panel := bp[jr*kc : jr*kc+nr*kc]
		if nrr < nr {
			clear(panel)
		}
		if !tB {
			for p := 0; p < kc; p++ {
				copy(panel[p*nr:p*nr+nrr], b[(pc+p)*ldb+jc+jr:(pc+p)*ldb+jc+jr+nrr])
			}
		} else {
			for j := 0; j < nrr; j++ {
				col := b[(jc+jr+j)*ldb+pc : (jc+jr+j)*ldb+pc+kc]
				for p, v := range col {
					panel[p*nr+j] = v
				}
			}
		}
	}
}
