package ops

import (
	"sync"
	"unsafe"
)

// This file is posformer's own blocked matrix multiply (after the GotoBLAS/BLIS scheme): op(B)
// is packed into panels of nr columns (or read in place, or packed once by the caller: bPacker),
// an A whose rows are a multiple of 2 KiB apart is copied block by block into padded rows of
// op(A) (transposed first when op transposes it) when enough columns reuse it (copyA), and otherwise read in place through its strides (its last rows, when
// m is not a multiple of mr, computed in place by the kernel's rows, or copied into a
// zero-padded panel for a kernel without them), and an assembly micro-kernel
// accumulates one mr×nr tile of C over a kc-long slice of the inner dimension. It is used on CPUs that have a kernel (see gemm_amd64.go); elsewhere gemm
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
	// fnBias, when not nil, computes C[0:mr, 0:nr] = alpha·A·B + bias, bias[j] added to every
	// row's column j with the rounding of fn's alpha·acc + C (one fused multiply-add): what fn
	// gives on a C filled with bias rows, without reading C.
	fnBias func(k int, a *F, rs, cs int, b *F, bs int, c *F, ldc int, alpha F, bias *F)
	// rows, when not nil, computes r < mr rows of a tile (r ≥ 1, all nr columns), each element
	// by fn's operations, storing by mode: tileSet C = alpha·acc, tileAdd C = alpha·acc + C,
	// tileBias C = alpha·acc + bias as fnBias (bias is read only then). A partial row of tiles
	// then needs neither A's rows copied into a padded panel nor a whole tile computed aside.
	rows func(r, k int, a *F, rs, cs int, b *F, bs int, c *F, ldc int, alpha F, mode int, bias *F)
}

// The stores of microKernel.rows.
const (
	tileSet = iota
	tileAdd
	tileBias
)

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
		gemmSerial(kern, tA, tB, m, n, k, alpha, a, lda, b, ldb, c, ldc, add, nil, nil, nil)
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
		gemmSerial(kern, tA, tB, i1-i0, j1-j0, k, alpha, a[aOff:], lda, b[bOff:], ldb, c[i0*ldc+j0:], ldc, add, nil, nil, nil)
	})
}

// splits reports whether splitGemm would split an m×n×k product over the workers.
func splits(m, n, k int) bool { return workers() >= 2 && m*n*k >= gemmParallelFlops }

// splitGemm runs part(i0, i1, j0, j1) over blocks of C that cover [0, m)×[0, n): one block when
// the product is small, else one per worker, splitting the larger of m and n at multiples of the
// tile size (mr or nr). Each block is an independent product; which goroutine computes which
// element does not change its value.
func splitGemm(m, n, k, mr, nr int, part func(i0, i1, j0, j1 int)) {
	splitGemmBy(m >= n, m, n, k, mr, nr, part)
}

// splitGemmBy is splitGemm splitting by rows if byRows is set, else by columns.
func splitGemmBy(byRows bool, m, n, k, mr, nr int, part func(i0, i1, j0, j1 int)) {
	if !splits(m, n, k) {
		part(0, m, 0, n)
		return
	}
	w := workers()
	if byRows {
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
// panel is whole, in which case it is read in place too. A non-nil bpre is op(B) already packed
// (by bPacker.pack; then k ≤ gemmKC, and b is not read). A non-nil bias (n values; add false,
// alpha 1) gives C = op(A)·op(B) + bias, bias[j] added to every row's column j as if C had been
// filled with bias rows and add set (the same bits), but without that pass over C: the first
// block of the inner dimension adds the bias to each tile as it stores it.
//
// A non-nil sums (n values) receives the column sums of op(B), sums[j] = Σ_p op(B)[p, j] added
// in row order (ColSum's bits), taken while B is packed (a bias gradient alongside a weight
// gradient).
func gemmSerial[F Float](kern microKernel[F], tA, tB bool, m, n, k int, alpha F, a []F, lda int, b []F, ldb int, c []F, ldc int, add bool, bpre []F, bias []F, sums []F) {
	mr, nr := kern.mr, kern.nr
	kcMax := min(k, gemmKC)
	ncMax := min((n+nr-1)/nr*nr, gemmNC)
	pool := poolOf[F]()
	// A block [mc, kc] is copied (copyA) when A's rows are a multiple of 2 KiB apart, so that
	// read in place the kernel's rows of op(A) (or, A transposed, its steps along k) would
	// compete for a few L1 sets, and enough panels of B reuse the copy.
	var z F
	copying := (!tA || canTransposeA[F]()) && n > gemmCopyAMinN && k > gemmCopyAMinN && m >= mr && lda*int(unsafe.Sizeof(z))%2048 == 0
	// B is read in place only for short products: over many row panels a packed panel (contiguous,
	// L1-friendly) pays for its copy, while a strided one maps onto few L1 sets.
	packAll := tB || m > gemmDirectB || bpre != nil
	if sums != nil {
		clear(sums[:n])
		if !packAll || bpre != nil { // B is not packed here: sum it directly, rows in order
			if !tB {
				colSumRows(b, sums[:n], k, ldb)
			}
			for p := 0; tB && p < k; p++ {
				for j := range sums[:n] {
					sums[j] += b[j*ldb+p]
				}
			}
			sums = nil
		}
	}
	// With several blocks of k, and a C too large for L2, all of op(B)'s panels for the columns
	// jc.. are packed first and the blocks of rows go outermost (rowsOuter), so that a block of C
	// stays in L2 while the blocks of k add to it, instead of the whole C streaming through memory
	// once per block of k (a C that fits in L2 is better left there, with each block of B packed
	// once and reused by every block of rows). Every element of C still adds the blocks of k in
	// order: the same bits either way.
	rowsOuter := bpre == nil && packAll && k > gemmKC && m*ncMax > gemmRowsOuterC && k*ncMax <= gemmRowsOuterB
	bSize := kcMax * ncMax
	if rowsOuter {
		bSize = k * ncMax
	}
	aSize := 0
	if copying {
		aSize = min(m/mr*mr, gemmMC) * (kcMax + gemmAPad)
	}
	bufp := pool.get(bSize + kcMax*mr + mr*nr + aSize)
	defer pool.put(bufp)
	buf := *bufp
	bAll := buf[:bSize]
	apad := buf[bSize : bSize+kcMax*mr] // the last rows of A when m is not a multiple of mr
	tile := buf[bSize+kcMax*mr : bSize+kcMax*mr+mr*nr]
	ablk := buf[bSize+kcMax*mr+mr*nr:]
	rs, cs := lda, 1 // strides of op(A)
	if tA {
		rs, cs = 1, lda
	}
	mFull := m / mr * mr
	// edge reports whether a partial row of whole-width tiles goes through kern.rows, in place:
	// it stores alpha·acc + C (or + bias) fused, which the copy of a tile computed aside gives
	// only when alpha is 1 (the tile then holds acc).
	edge := func(addC, biasC bool) bool { return kern.rows != nil && (alpha == 1 || !addC && !biasC) }
	// padA reports whether the block of k at pc needs A's last rows in the padded panel apad.
	padA := func(pc int) bool { return mFull < m && (n%nr != 0 || !edge(add || pc > 0, bias != nil && pc == 0)) }

	// packPanels returns the panels of op(B)[pc:pc+kc, jc:jc+nc] in dst (packing what is packed).
	packPanels := func(jc, nc, pc, kc int, dst []F) []F {
		switch {
		case bpre != nil: // panels of the whole k, so those of columns jc.. start at jc·k
			return bpre[jc*kc:]
		case packAll:
			packB(tB, b, ldb, pc, jc, kc, nc, nr, dst, sums)
		case nc%nr != 0: // only the last, partial panel
			jr := nc / nr * nr
			packB(tB, b, ldb, pc, jc+jr, kc, nc-jr, nr, dst[jr*kc:], nil)
		}
		return dst
	}
	// rows multiplies rows ic..ic+mc of op(A) by the panels bp of op(B)[pc:pc+kc, jc:jc+nc] into C.
	rows := func(jc, nc, pc, kc, ic, mc int, bp []F) {
		addC := add || pc > 0
		biasC := bias != nil && pc == 0 // C = A·B + bias in this block
		var ald int                     // the row stride of the copied block
		if mcFull := min(mc, mFull-ic); copying && mcFull > 0 {
			ald = copyA(tA, a, lda, ic, pc, mcFull, kc, ablk)
		}
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
				rowsEdge := mrr < mr && nrr == nr && edge(addC, biasC)
				switch {
				case mrr == mr && copying: // rows, ald apart
					aPanel, ars, acs = &ablk[ir*ald], ald, 1
				case mrr == mr || rowsEdge:
					aPanel = &a[i*rs+pc*cs]
				default:
					aPanel, ars, acs = &apad[0], 1, mr
				}
				ci := i*ldc + jc + jr
				if rowsEdge {
					mode, bp := tileSet, (*F)(nil)
					switch {
					case biasC:
						mode, bp = tileBias, &bias[jc+jr]
					case addC:
						mode = tileAdd
					}
					kern.rows(mrr, kc, aPanel, ars, acs, bPanel, bs, &c[ci], ldc, alpha, mode, bp)
					continue
				}
				if mrr == mr && nrr == nr {
					switch {
					case !biasC:
						kern.fn(kc, aPanel, ars, acs, bPanel, bs, &c[ci], ldc, alpha, addC)
						continue
					case kern.fnBias != nil:
						kern.fnBias(kc, aPanel, ars, acs, bPanel, bs, &c[ci], ldc, alpha, &bias[jc+jr])
						continue
					}
				}
				// A partial tile, or a bias without fnBias: the tile holds alpha·acc, which
				// is acc when alpha is 1, so acc + C (or acc + bias) rounds as the fused one.
				kern.fn(kc, aPanel, ars, acs, bPanel, bs, &tile[0], nr, alpha, false)
				for r := 0; r < mrr; r++ {
					crow := c[ci+r*ldc : ci+r*ldc+nrr]
					trow := tile[r*nr : r*nr+nrr]
					switch {
					case biasC:
						addInto(crow, trow, bias[jc+jr:jc+jr+nrr])
					case addC:
						for j := range crow {
							crow[j] += trow[j]
						}
					default:
						copy(crow, trow)
					}
				}
			}
		}
	}
	for jc := 0; jc < n; jc += gemmNC {
		nc := min(gemmNC, n-jc)
		if rowsOuter {
			for pc := 0; pc < k; pc += gemmKC {
				packPanels(jc, nc, pc, min(gemmKC, k-pc), bAll[pc*ncMax:])
			}
			for ic := 0; ic < m; ic += gemmMC {
				mc := min(gemmMC, m-ic)
				for pc := 0; pc < k; pc += gemmKC {
					kc := min(gemmKC, k-pc)
					if ic+mc > mFull && padA(pc) {
						packA(tA, a, lda, mFull, pc, m-mFull, kc, mr, apad)
					}
					rows(jc, nc, pc, kc, ic, mc, bAll[pc*ncMax:])
				}
			}
			continue
		}
		for pc := 0; pc < k; pc += gemmKC {
			kc := min(gemmKC, k-pc)
			bp := packPanels(jc, nc, pc, kc, bAll)
			if padA(pc) {
				packA(tA, a, lda, mFull, pc, m-mFull, kc, mr, apad)
			}
			for ic := 0; ic < m; ic += gemmMC {
				rows(jc, nc, pc, kc, ic, min(gemmMC, m-ic), bp)
			}
		}
	}
}

// gemmRowsOuterB bounds the packed op(B) (elements: 4 MiB in float32) for which gemmSerial
// packs every block of k at once and goes by blocks of rows outermost (a variable for the test
// that compares both orders).
var gemmRowsOuterB = 1 << 20

// gemmRowsOuterC is the size of C (elements, 512 KiB in float32) above which gemmSerial goes by
// blocks of rows outermost: at research scale the second MLP layer's forward product and the
// first one's input gradient ([2048, 256] a worker, k = 1024) gained 14% in CPU time, while the
// weight gradients (C [128..512, 256] a worker, k = 4096) lost 5-15%. (A variable for the test.)
var gemmRowsOuterC = 1 << 17

// gemmCopyAMinN is the smallest n (and k) from which gemmSerial copies blocks of A whose rows are
// a multiple of 2 KiB apart (below it, few panels of B reuse a copy); gemmAPad pads the rows of a
// copied block (64 bytes in float32) off those strides.
const (
	gemmCopyAMinN = 48
	gemmAPad      = 16
)

// canTransposeA reports whether copyA can copy blocks of a transposed A of F: float32, on a CPU
// with transposeRows' vector code. (Packed into panels of mr rows instead, the copy was slower
// than reading A in place: docs/performance-log.md, seventh round.)
func canTransposeA[F Float]() bool {
	var z F
	_, ok := any(z).(float32)
	return ok && haveKernels
}

// copyA copies the rows of op(A)[ic:ic+mc, pc:pc+kc] into ab, kc+gemmAPad apart, and returns
// that stride: a row-major A row by row, a transposed A (float32 with canTransposeA only) by
// transposeRows' 8×8 blocks. The kernel reads the same values in the same order from the copy,
// so the product's bits do not change.
func copyA[F Float](tA bool, a []F, lda, ic, pc, mc, kc int, ab []F) int {
	ld := kc + gemmAPad
	if tA {
		transposeRows(any(ab).([]float32), ld, any(a).([]float32)[pc*lda+ic:], lda, mc, kc)
		return ld
	}
	for r := 0; r < mc; r++ {
		copy(ab[r*ld:r*ld+kc], a[(ic+r)*lda+pc:(ic+r)*lda+pc+kc])
	}
	return ld
}

// packA writes op(A)[ic:ic+mc, pc:pc+kc] (mc ≤ mr) as one panel of mr rows: for each p, the mr
// values of that column; rows past mc are zero.
func packA[F Float](tA bool, a []F, lda, ic, pc, mc, kc, mr int, ap []F) {
	panel := ap[:mr*kc]
	clear(panel)
	if tA { // op(A)'s columns are rows of A: mc contiguous values for each p
		for p := 0; p < kc; p++ {
			copy(panel[p*mr:p*mr+mc], a[(pc+p)*lda+ic:(pc+p)*lda+ic+mc])
		}
		return
	}
	for r := 0; r < mc; r++ {
		row := a[(ic+r)*lda+pc : (ic+r)*lda+pc+kc]
		for p, v := range row {
			panel[p*mr+r] = v
		}
	}
}

// packB writes op(B)[pc:pc+kc, jc:jc+nc] as panels of nr columns: panel q holds, for each p, the
// nr values of columns jc+q·nr..; columns past nc are zero. A non-nil sums (indexed by column,
// like op(B)) gets each packed value added, sums[jc+j] += op(B)[p, jc+j] for p in order, so
// that packing the blocks of k in order leaves the column sums, rows in order.
func packB[F Float](tB bool, b []F, ldb, pc, jc, kc, nc, nr int, bp []F, sums []F) {
	jr0 := 0
	if !tB && nr == 16 && sums == nil && packRowsWide(b, ldb, pc, jc, kc, nc/nr, bp) {
		jr0 = nc / nr * nr
	}
	for jr := jr0; jr < nc; jr += nr {
		nrr := min(nr, nc-jr)
		panel := bp[jr*kc : jr*kc+nr*kc]
		if nrr < nr {
			clear(panel)
		}
		switch {
		case !tB && nr >= 16 && nrr == nr && useKernels && packRows(b, ldb, pc, jc+jr, kc, nr, panel, sums):
			// the float32 kernels' panels, rows of 16 or 32 values copied in assembly (and summed)
			continue
		case !tB && nrr == 8 && nr == 8:
			for p := 0; p < kc; p++ {
				o := (pc+p)*ldb + jc + jr
				*(*[8]F)(panel[p*8:]) = *(*[8]F)(b[o : o+8])
			}
		case !tB:
			for p := 0; p < kc; p++ {
				copy(panel[p*nr:p*nr+nrr], b[(pc+p)*ldb+jc+jr:(pc+p)*ldb+jc+jr+nrr])
			}
		case nrr == 16 && nr == 16:
			packBT16(b[(jc+jr)*ldb+pc:], ldb, kc, panel, 16)
		case nrr == 32 && nr == 32: // two blocks of 16 columns
			packBT16(b[(jc+jr)*ldb+pc:], ldb, kc, panel, 32)
			packBT16(b[(jc+jr+16)*ldb+pc:], ldb, kc, panel[16:], 32)
		case nrr < nr && transposeRowsOf(panel, nr, b[(jc+jr)*ldb+pc:], ldb, kc, nrr):
			// a partial panel of a transposed B (attention's Kᵀ of a short sequence): 8×8 blocks
		default:
			for j := 0; j < nrr; j++ {
				col := b[(jc+jr+j)*ldb+pc : (jc+jr+j)*ldb+pc+kc]
				for p, v := range col {
					panel[p*nr+j] = v
				}
			}
		}
		if sums != nil { // from the packed panel: the same values, rows in order
			s := sums[jc+jr : jc+jr+nrr]
			for p := 0; p < kc; p++ {
				for j, v := range panel[p*nr : p*nr+nrr] {
					s[j] += v
				}
			}
		}
	}
}

// transposeRowsOf is transposeRows for a float32 F (dst[r·ldd + p] = src[p·lds + r] for r < rows,
// p < cols), reporting false for float64 or where transposeRows has no vector code.
func transposeRowsOf[F Float](dst []F, ldd int, src []F, lds, rows, cols int) bool {
	d, ok := any(dst).([]float32)
	return ok && transposeRows(d, ldd, any(src).([]float32), lds, rows, cols)
}

// bPacker packs Bᵀ once for several products that share it (attention's Kᵀ and Vᵀ of a head,
// used by every block of query rows): for B [n, k] row-major with k ≤ gemmKC, it
// holds op(B) = Bᵀ in the panels gemmSerial reads, so each product skips the packing. Its
// products give the bits of gemm1 with tB set: the kernel reads the same values in the same
// order.
type bPacker[F Float] struct {
	buf  []F
	n, k int
	ok   bool // the products go through the packed panels (else through gemm1)
}

// pack packs Bᵀ for B [n, k] (row stride ldb), or records that the products must use gemm1
// (no kernel, the BLAS variable, or k beyond one block).
func (p *bPacker[F]) pack(b []F, ldb, n, k int) {
	p.n, p.k = n, k
	p.ok = useKernels && k <= gemmKC && !usesBLAS(gemmDirectB, n, k)
	if !p.ok {
		return
	}
	nr := kernelOf[F]().nr
	size := (n + nr - 1) / nr * nr * k
	if cap(p.buf) < size {
		p.buf = make([]F, size)
	}
	p.buf = p.buf[:size]
	packB(true, b, ldb, 0, 0, k, n, nr, p.buf, nil)
}

// mul computes C = alpha·op(A)·B[:n]ᵀ (C is m×n, n at most the packed n; B is what pack saw,
// passed again for the gemm1 fallback) on the calling goroutine.
func (p *bPacker[F]) mul(tA bool, m, n int, alpha F, a []F, lda int, b []F, ldb int, c []F, ldc int) {
	if !p.ok || usesBLAS(m, n, p.k) {
		gemm1(tA, true, m, n, p.k, alpha, a, lda, b, ldb, 0, c, ldc)
		return
	}
	if m <= 0 || n <= 0 {
		return
	}
	if p.k == 0 || alpha == 0 {
		for i := 0; i < m; i++ {
			clear(c[i*ldc : i*ldc+n])
		}
		return
	}
	gemmSerial(kernelOf[F](), tA, true, m, n, p.k, alpha, a, lda, b, ldb, c, ldc, false, p.buf, nil, nil)
}

// packRows copies op(B)[pc:pc+kc, j:j+nr] (B row-major, nr 16 or 32) into panel with the assembly
// row copies (a Go copy of a row, even as a fixed-size array, is a memmove call), and reports
// whether it did: only for float32 where the CPU has the instructions.
func packRows[F Float](b []F, ldb, pc, j, kc, nr int, panel []F, sums []F) bool {
	b32, ok := any(b).([]float32)
	if !ok || kc == 0 || (nr == 32 && !haveAVX512) || (nr != 16 && nr != 32) {
		return false
	}
	src := b32[pc*ldb+j : (pc+kc-1)*ldb+j+nr] // bounds checked here, for the assembly
	dst := any(panel).([]float32)[:kc*nr]
	switch {
	case sums != nil && nr == 16:
		copyRowsSum16(dst, src, ldb, kc, any(sums).([]float32)[j:j+16])
	case sums != nil:
		copyRowsSum32(dst, src, ldb, kc, any(sums).([]float32)[j:j+32])
	case nr == 16:
		copyRows16(dst, src, ldb, kc)
	default:
		copyRows32(dst, src, ldb, kc)
	}
	return true
}

// packBT16 writes the transpose of the 16 rows b[j·ldb : j·ldb+kc] (j < 16) to panel, whose rows
// are ps values apart (16, or 32 for half a 12×32 kernel's panel): panel[p·ps+j] = b[j·ldb+p].
// float32 goes through transposeRows' 8×8 blocks where the CPU has them; otherwise it goes by
// blocks of 16×8, each row's 8 values read at once, so the loads are contiguous and the stores
// fill whole lines.
func packBT16[F Float](b []F, ldb, kc int, panel []F, ps int) {
	if b32, ok := any(b).([]float32); ok && transposeRows(any(panel).([]float32), ps, b32, ldb, kc, 16) {
		return
	}
	p := 0
	if ps == 32 {
		for ; p+8 <= kc; p += 8 {
			out := (*[7*32 + 16]F)(panel[p*32 : p*32+7*32+16])
			for j := 0; j < 16; j++ {
				r := (*[8]F)(b[j*ldb+p : j*ldb+p+8])
				out[j], out[32+j], out[64+j], out[96+j] = r[0], r[1], r[2], r[3]
				out[128+j], out[160+j], out[192+j], out[224+j] = r[4], r[5], r[6], r[7]
			}
		}
	} else {
		for ; p+8 <= kc; p += 8 {
			out := (*[128]F)(panel[p*16 : p*16+128])
			for j := 0; j < 16; j++ {
				r := (*[8]F)(b[j*ldb+p : j*ldb+p+8])
				out[j], out[16+j], out[32+j], out[48+j] = r[0], r[1], r[2], r[3]
				out[64+j], out[80+j], out[96+j], out[112+j] = r[4], r[5], r[6], r[7]
			}
		}
	}
	for ; p < kc; p++ {
		for j := 0; j < 16; j++ {
			panel[p*ps+j] = b[j*ldb+p]
		}
	}
}

// kernelOf returns the micro-kernel gemm uses for F.
func kernelOf[F Float]() microKernel[F] {
	var z F
	if _, ok := any(z).(float32); ok {
		return any(kernel32).(microKernel[F])
	}
	return any(kernel64).(microKernel[F])
}
