package ops

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

func randSlice[F Float](rng *rand.Rand, n int) []F {
	x := make([]F, n)
	for i := range x {
		x[i] = F(rng.NormFloat64())
	}
	return x
}

func sameBits[F Float](t *testing.T, what string, got, want []F) {
	t.Helper()
	for i := range want {
		if math.Float64bits(float64(got[i])) != math.Float64bits(float64(want[i])) {
			t.Fatalf("%s: element %d is %v, want %v (same bits)", what, i, got[i], want[i])
		}
	}
}

// TestBPackerSameBits: products through a Bᵀ packed once (attention's Kᵀ and Vᵀ) give the bits
// of gemm1 with B transposed, for every prefix of the packed columns (a causal row block uses
// the first keys only), with A row-major or transposed, in float32 and float64.
func TestBPackerSameBits(t *testing.T) {
	testBPacker[float32](t)
	testBPacker[float64](t)
}

func testBPacker[F Float](t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	// B [n, k] with row stride ldb; n not a multiple of any nr, the second beyond one gemmNC block
	for _, s := range [][3]int{{101, 40, 53}, {gemmNC + 77, 16, 16}} {
		n, k, ldb := s[0], s[1], s[2]
		b := randSlice[F](rng, n*ldb)
		var p bPacker[F]
		p.pack(b, ldb, n, k)
		if useKernels && !usesBLAS(1, n, k) && !p.ok {
			t.Fatalf("%T: the packer is off for n=%d, k=%d", F(0), n, k)
		}
		for _, tA := range []bool{false, true} {
			for _, mn := range [][2]int{{1, 1}, {7, 17}, {24, 48}, {30, 101}, {13, 64}, {5, n}, {48, n - 3}} {
				m, nn := mn[0], mn[1]
				lda := k + 3
				if tA {
					lda = m + 5
				}
				a := randSlice[F](rng, max(m, k)*lda)
				got, want := randSlice[F](rng, m*nn), randSlice[F](rng, m*nn)
				p.mul(tA, m, nn, 0.75, a, lda, b, ldb, got, nn)
				gemm1(tA, true, m, nn, k, 0.75, a, lda, b, ldb, 0, want, nn)
				sameBits(t, fmt.Sprintf("packed Bᵀ, n=%d of %d", nn, n), got, want)
			}
		}
	}
}

// TestGemmCopyASameBits: a product large enough for gemmSerial to copy blocks of A (n above
// gemmCopyAMinN; a row-major A with rows a multiple of 2 KiB apart, copied into padded rows, or a
// transposed A, transposed into them) gives the bits of the same product computed in narrow
// column slices, where A is read in place; k leaves a last block that is not a multiple of 8.
func TestGemmCopyASameBits(t *testing.T) {
	const m, n, k = 131, 96, 1003
	if usesBLAS(m, 1, k) {
		t.Skip("the products go to the BLAS variable")
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for _, tA := range []bool{false, true} {
		lda := 1024 // op(A) [m, k]: A [m, lda], or transposed A [k, lda]
		if tA {
			lda = 512
		}
		a, b := randSlice[float32](rng, max(m, k)*lda), randSlice[float32](rng, k*n)
		got, want := make([]float32, m*n), make([]float32, m*n)
		gemm1(tA, false, m, n, k, 1, a, lda, b, n, 0, got, n)
		for j := 0; j < n; j += gemmCopyAMinN / 3 { // n ≤ gemmCopyAMinN: A read in place
			w := min(gemmCopyAMinN/3, n-j)
			gemm1(tA, false, m, w, k, 1, a, lda, b[j:], n, 0, want[j:], n)
		}
		sameBits(t, fmt.Sprintf("A copied (transposed %v)", tA), got, want)
	}
}

// TestTransposeRows: transposeRows writes dst[r·ldd + p] = src[p·lds + r] for every size around
// its 8×8 blocks, and touches nothing else of dst.
func TestTransposeRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, s := range [][2]int{{8, 8}, {120, 256}, {7, 9}, {17, 5}, {1, 1}, {24, 33}} {
		rows, cols := s[0], s[1]
		lds, ldd := rows+5, cols+3
		src, dst := randSlice[float32](rng, cols*lds), randSlice[float32](rng, rows*ldd)
		was := append([]float32(nil), dst...)
		if !transposeRows(dst, ldd, src, lds, rows, cols) {
			t.Skip("no vector transpose on this CPU")
		}
		for r := 0; r < rows; r++ {
			for p := 0; p < ldd; p++ {
				want := was[r*ldd+p]
				if p < cols {
					want = src[p*lds+r]
				}
				if got := dst[r*ldd+p]; got != want {
					t.Fatalf("%d×%d: dst[%d, %d] = %v, want %v", rows, cols, r, p, got, want)
				}
			}
		}
	}
}

// TestWideKernelSameBits: every product useWide sends to the 12×32 kernel gives the 12×16
// kernel's bits: transposed A or not, an inner dimension over several blocks (C accumulated),
// beta 0 and 1, alpha 1 with partial column tiles, alpha ≠ 1 with n a multiple of 32 (with alpha
// 0.3, a transposed A [513, 50] and n = 80, 300 of the 4000 elements differ: useWide refuses that).
func TestWideKernelSameBits(t *testing.T) {
	if !haveWide {
		t.Skip("no AVX-512: the 12×32 kernel is not used")
	}
	rng := rand.New(rand.NewPCG(13, 14))
	for _, c := range []struct {
		tA, tB  bool
		m, n, k int
		alpha   float64
		beta    float32
	}{
		{false, false, 130, 80, 600, 1, 0}, {true, false, 61, 100, 700, 1, 1}, {false, true, 37, 72, 256, 1, 1},
		{true, false, 50, 96, 513, 0.3, 0}, {false, false, 29, 64, 300, -0.5, 1}, {true, true, 140, 200, 100, 1, 0},
	} {
		if !useWide(c.tA, c.m, c.n, c.k, c.alpha) {
			t.Fatalf("%+v: useWide is false; the case tests nothing", c)
		}
		a, b := randSlice[float32](rng, c.m*c.k), randSlice[float32](rng, c.n*c.k)
		lda, ldb := c.k, c.n
		if c.tA {
			lda = c.m
		}
		if c.tB {
			ldb = c.k
		}
		c0 := randSlice[float32](rng, c.m*c.n)
		got, want := append([]float32(nil), c0...), append([]float32(nil), c0...)
		gemmBlocked(kernel32wide, false, c.tA, c.tB, c.m, c.n, c.k, float32(c.alpha), a, lda, b, ldb, c.beta, got, c.n)
		gemmBlocked(kernel32avx512, false, c.tA, c.tB, c.m, c.n, c.k, float32(c.alpha), a, lda, b, ldb, c.beta, want, c.n)
		sameBits(t, fmt.Sprintf("%+v", c), got, want)
	}
	if useWide(false, 100, 80, 100, 0.5) || useWide(false, 100, 32, 100, 1) {
		t.Error("useWide accepts a product whose bits could differ (alpha ≠ 1, n not a multiple of 32) or a narrow one")
	}
}

// TestExpShiftSum16Bits: the sixteen-lane exponential gives expShiftSum8's values and sum bit for
// bit, on rows of 8 to 200 values (an odd number of eight-blocks included) over [−100, 100] with
// the row's maximum subtracted, as the softmax calls it.
func TestExpShiftSum16Bits(t *testing.T) {
	if !useKernels || !haveAVX512 {
		t.Skip("no AVX-512 exponential on this CPU")
	}
	rng := rand.New(rand.NewPCG(15, 16))
	for n := 8; n <= 200; n += 8 {
		x := make([]float32, n)
		mx := float32(-1e30)
		for i := range x {
			x[i] = float32(rng.Float64()*200 - 100)
			mx = max(mx, x[i])
		}
		a, b := append([]float32(nil), x...), append([]float32(nil), x...)
		sa, sb := expShiftSum16(a, mx), expShiftSum8(b, mx)
		sameBits(t, fmt.Sprintf("exp over %d values", n), a, b)
		if math.Float32bits(sa) != math.Float32bits(sb) {
			t.Fatalf("%d values: sum %v, want %v (same bits)", n, sa, sb)
		}
	}
}

// TestGemmBiasSameBits: C = A·B + bias with the bias added as each tile is stored (gemmSerial's
// bias, the kernels' fnBias) gives the bits of filling C with bias rows and adding A·B to it,
// for every kernel, over shapes with partial tiles, several blocks of k and of n, and rows of A
// a multiple of 2 KiB apart (copied blocks); and linearFwd gives those bits too.
func TestGemmBiasSameBits(t *testing.T) {
	var k32 []microKernel[float32]
	var k64 []microKernel[float64]
	if haveKernels {
		k32 = append(k32, kernel32avx2)
		k64 = append(k64, kernel64)
		if kernel32avx2.fnBias == nil {
			t.Error("the 6×16 kernel has no bias store")
		}
		if haveAVX512 {
			k32 = append(k32, kernel32avx512, kernel32wide)
			if kernel32wide.fnBias == nil {
				t.Error("the 12×32 kernel has no bias store")
			}
		}
	}
	k32 = append(k32, microKernel[float32]{mr: 3, nr: 5, fn: goKernel[float32](3, 5)})
	k64 = append(k64, microKernel[float64]{mr: 4, nr: 4, fn: goKernel[float64](4, 4)})
	for _, kern := range k32 {
		testGemmBias(t, kern)
	}
	for _, kern := range k64 {
		testGemmBias(t, kern)
	}
	testLinearFwdBits[float32](t)
	testLinearFwdBits[float64](t)
}

func testGemmBias[F Float](t *testing.T, kern microKernel[F]) {
	rng := rand.New(rand.NewPCG(9, 10))
	// m, n, k, lda
	for _, s := range [][4]int{{1, 1, 1, 1}, {12, 32, 7, 7}, {37, 70, 300, 301}, {131, gemmNC + 40, 50, 50}, {125, 96, 600, 1024}, {24, 64, 256, 256}} {
		m, n, k, lda := s[0], s[1], s[2], s[3]
		a, b, bias := randSlice[F](rng, m*lda), randSlice[F](rng, k*n), randSlice[F](rng, n)
		got, want := randSlice[F](rng, m*n), make([]F, m*n)
		for r := 0; r < m; r++ {
			copy(want[r*n:(r+1)*n], bias)
		}
		gemmSerial(kern, false, false, m, n, k, 1, a, lda, b, n, want, n, true, nil, nil, nil)
		gemmSerial(kern, false, false, m, n, k, 1, a, lda, b, n, got, n, false, nil, bias, nil)
		sameBits(t, fmt.Sprintf("%d×%d kernel, A·B + bias, %d×%d×%d", kern.mr, kern.nr, m, n, k), got, want)
	}
}

func testLinearFwdBits[F Float](t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, s := range [][3]int{{4096, 256, 64}, {300, 70, 1030}, {5, 3, 0}, {5, 0, 3}, {50, 16, 64}} { // {5, 0, 3}: no inputs, y is the bias rows
		n, in, o := s[0], s[1], s[2]
		x, w, b := randSlice[F](rng, n*in), randSlice[F](rng, in*o), randSlice[F](rng, o)
		got, want := randSlice[F](rng, n*o), make([]F, n*o)
		for r := 0; r < n; r++ {
			copy(want[r*o:(r+1)*o], b)
		}
		gemm(false, false, n, o, in, 1, x, in, w, o, 1, want, o)
		linearFwd(x, w, b, got, n, in, o)
		sameBits(t, fmt.Sprintf("linearFwd %T [%d,%d]·[%d,%d]", F(0), n, in, in, o), got, want)
	}
}

// TestGemmRowsOuterSameBits: products with several blocks of k and of rows, computed with the
// blocks of rows outermost over a B packed whole (gemmSerial's rowsOuter), give the bits of the
// blocks of k outermost, for every kernel, with A and B transposed or not, alpha, beta, a bias,
// rows of A a multiple of 2 KiB apart (copied blocks) and partial tiles.
func TestGemmRowsOuterSameBits(t *testing.T) {
	if haveKernels {
		testRowsOuter(t, kernel32avx2)
		testRowsOuter(t, kernel64)
		if haveAVX512 {
			testRowsOuter(t, kernel32avx512)
			testRowsOuter(t, kernel32wide)
		}
	}
	testRowsOuter(t, microKernel[float32]{mr: 3, nr: 5, fn: goKernel[float32](3, 5)})
}

func testRowsOuter[F Float](t *testing.T, kern microKernel[F]) {
	defer func(b, c int) { gemmRowsOuterB, gemmRowsOuterC = b, c }(gemmRowsOuterB, gemmRowsOuterC)
	gemmRowsOuterC = 0
	rng := rand.New(rand.NewPCG(13, 14))
	// tA, tB, m, n, k, lda (of A as stored), alpha, add, bias
	type cs struct {
		tA, tB    bool
		m, n, k   int
		lda       int
		alpha     float64
		add, bias bool
	}
	for _, c := range []cs{{false, false, 250, 96, 600, 1024, 1, false, true}, {false, true, 131, 70, 513, 520, 1, true, false},
		{true, false, 245, 64, 700, 245, 0.5, true, false}, {false, false, 241, 33, 300, 300, 1, false, false}, {true, true, 130, 100, 260, 140, -1, false, false}} {
		ar := c.m
		if c.tA {
			ar = c.k
		}
		br, ldb := c.k, c.n
		if c.tB {
			br, ldb = c.n, c.k
		}
		a, b := randSlice[F](rng, ar*c.lda), randSlice[F](rng, br*ldb)
		var bias []F
		if c.bias {
			bias = randSlice[F](rng, c.n)
		}
		c0 := randSlice[F](rng, c.m*c.n)
		got, want := append([]F(nil), c0...), append([]F(nil), c0...)
		gemmRowsOuterB = 0
		gemmSerial(kern, c.tA, c.tB, c.m, c.n, c.k, F(c.alpha), a, c.lda, b, ldb, want, c.n, c.add, nil, bias, nil)
		gemmRowsOuterB = 1 << 30
		gemmSerial(kern, c.tA, c.tB, c.m, c.n, c.k, F(c.alpha), a, c.lda, b, ldb, got, c.n, c.add, nil, bias, nil)
		sameBits(t, fmt.Sprintf("%d×%d kernel, rows outermost, %+v", kern.mr, kern.nr, c), got, want)
	}
}

// TestPackB: packB's panels (the fixed-size copies for rows of 8, 16 and 32 values, the
// transposed blocks of 16 and 32 columns, and the general loops) hold op(B)'s values where the
// kernels read them, with zeros past the last column, for B transposed or not.
func TestPackB(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for _, tB := range []bool{false, true} {
		for _, nr := range []int{5, 8, 16, 32} {
			for _, s := range [][4]int{{0, 0, 19, 70}, {3, 5, 256, 100}, {1, 32, 9, 64}} { // pc, jc, kc, nc
				pc, jc, kc, nc := s[0], s[1], s[2], s[3]
				rows, cols := pc+kc+2, jc+nc+3 // op(B) is rows × cols
				ldb := cols + 1
				if tB {
					ldb = rows + 1
				}
				b := randSlice[float32](rng, max(rows, cols)*ldb)
				at := func(p, j int) float32 {
					if tB {
						return b[j*ldb+p]
					}
					return b[p*ldb+j]
				}
				np := (nc + nr - 1) / nr * nr
				bp := randSlice[float32](rng, kc*np)
				packB(tB, b, ldb, pc, jc, kc, nc, nr, bp, nil)
				for q := 0; q < np/nr; q++ {
					for p := 0; p < kc; p++ {
						for j := 0; j < nr; j++ {
							want := float32(0)
							if q*nr+j < nc {
								want = at(pc+p, jc+q*nr+j)
							}
							if got := bp[q*nr*kc+p*nr+j]; got != want {
								t.Fatalf("tB=%v nr=%d %v: panel %d, p=%d, column %d holds %v, want %v", tB, nr, s, q, p, j, got, want)
							}
						}
					}
				}
			}
		}
	}
}

// TestPackA: packA's panel holds op(A)'s last rows where the kernels read them (for each p, the
// mr values of that column), with zeros past the last row, for A transposed or not.
func TestPackA(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	for _, tA := range []bool{false, true} {
		for _, s := range [][5]int{{0, 0, 4, 256, 12}, {24, 3, 8, 19, 12}, {5, 7, 3, 33, 6}} { // ic, pc, mc, kc, mr
			ic, pc, mc, kc, mr := s[0], s[1], s[2], s[3], s[4]
			rows, cols := ic+mc+1, pc+kc+2 // op(A) is rows × cols
			lda := cols + 3
			if tA {
				lda = rows + 3
			}
			a := randSlice[float32](rng, max(rows, cols)*lda)
			ap := randSlice[float32](rng, mr*kc)
			packA(tA, a, lda, ic, pc, mc, kc, mr, ap)
			for p := 0; p < kc; p++ {
				for r := 0; r < mr; r++ {
					want := float32(0)
					if r < mc {
						if tA {
							want = a[(pc+p)*lda+ic+r]
						} else {
							want = a[(ic+r)*lda+pc+p]
						}
					}
					if got := ap[p*mr+r]; got != want {
						t.Fatalf("tA=%v %v: p=%d, row %d holds %v, want %v", tA, s, p, r, got, want)
					}
				}
			}
		}
	}
}

// TestGemmTNSumsBits: the weight gradient with the bias gradient taken while packing (gemmTNSums)
// gives the bits of the product and of the column sums taken row by row, on 1 and 2 workers, in float32 and float64, for
// splits by rows and by columns, B read in place (few rows), partial panels, several blocks of k
// and rows outermost.
func TestGemmTNSumsBits(t *testing.T) {
	for _, procs := range []int{1, 2} {
		func() {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			testTNSums[float32](t)
			testTNSums[float64](t)
		}()
	}
}

func testTNSums[F Float](t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	for _, s := range [][3]int{{256, 256, 700}, {64, 300, 517}, {40, 33, 50}, {600, 300, 300}, {13, 1000, 96}, {1, 1, 1}} { // m, n, k
		m, n, k := s[0], s[1], s[2]
		a, b := randSlice[F](rng, k*m), randSlice[F](rng, k*n)
		if m == 13 {
			b[0] = F(math.Copysign(0, -1)) // a column starting with −0
		}
		c, sums := randSlice[F](rng, m*n), randSlice[F](rng, n)
		wantC, wantS := make([]F, m*n), make([]F, n)
		gemm(true, false, m, n, k, 1, a, m, b, n, 0, wantC, n)
		for p := range k { // the column sums, rows in order
			for j := range wantS {
				wantS[j] += b[p*n+j]
			}
		}
		gemmTNSums(m, n, k, a, m, b, n, c, n, sums)
		what := fmt.Sprintf("%T %d×%d×%d on %d workers", F(0), m, n, k, workers())
		sameBits(t, what+": Aᵀ·B", c, wantC)
		sameBits(t, what+": column sums", sums, wantS)
	}
}

// TestGemmEdgeRowsSameBits: a partial row of tiles computed in place by the kernel's rows
// (the 4-, 2- and 1-row edge kernels, and the 6-row one for the 12-row kernels' edges) gives the
// bits of the tile computed aside from a padded copy of A's last rows (the kernel without rows),
// for every kernel that has them: m not a multiple of mr (1 to 2·mr+5 rows), n with and without
// a partial panel, one and several blocks of k, A and B transposed or not, alpha 1, 0.3, −0.7 and 0.17,
// C added to or not, a bias, rows of A a multiple of 2 KiB apart (copied blocks), B packed once
// (bpre) and the blocks of rows outermost.
func TestGemmEdgeRowsSameBits(t *testing.T) {
	var kerns []microKernel[float32]
	for _, k := range []microKernel[float32]{kernel32avx2, kernel32avx512, kernel32wide} {
		if k.rows != nil && haveKernels && (k.mr == 6 || haveAVX512) {
			kerns = append(kerns, k)
		}
	}
	if len(kerns) == 0 {
		t.Skip("no kernel with edge rows on this CPU")
	}
	defer func(c int) { gemmRowsOuterC = c }(gemmRowsOuterC)
	rng := rand.New(rand.NewPCG(17, 18))
	type cs struct {
		tA, tB    bool
		n, k, lda int // lda of A as stored: 0 for its width
		alpha     float64
		add, bias bool
		pre       bool // B packed once (bPacker's panels; tB, k ≤ gemmKC)
		outer     bool // blocks of rows outermost
	}
	cases := []cs{
		{n: 64, k: 128, alpha: 1, bias: true}, {n: 64, k: 300, alpha: 1, bias: true}, {n: 70, k: 7, alpha: 1, bias: true},
		{n: 128, k: 128, lda: 512, alpha: 1, bias: true}, {n: 128, k: 512, lda: 512, alpha: 1, bias: true},
		{tB: true, n: 64, k: 128, alpha: 1}, {tB: true, n: 64, k: 300, alpha: 1, add: true}, {tB: true, n: 40, k: 32, alpha: 0.3},
		{tA: true, n: 64, k: 416, alpha: 1}, {tA: true, n: 96, k: 300, lda: 512, alpha: 1}, {tA: true, tB: true, n: 48, k: 70, alpha: -0.7, add: true},
		{n: 64, k: 300, alpha: 0.3, add: true}, {n: 64, k: 300, alpha: 0.3}, {n: 80, k: 260, alpha: -0.7, add: true, outer: true},
		{n: 64, k: 600, alpha: 1, bias: true, outer: true},
		{tB: true, n: 13, k: 32, alpha: 0.17, pre: true}, {tB: true, n: 48, k: 32, alpha: 1, pre: true}, {tA: true, tB: true, n: 32, k: 16, alpha: 1, pre: true},
	}
	for _, kern := range kerns {
		aside := kern
		aside.rows = nil
		for m := 1; m <= 2*kern.mr+5; m++ {
			if m%kern.mr == 0 {
				continue
			}
			for _, c := range cases {
				ar, ac := m, c.k // A as stored
				if c.tA {
					ar, ac = c.k, m
				}
				lda := max(c.lda, ac)
				br, ldb := c.k, c.n
				if c.tB {
					br, ldb = c.n, c.k
				}
				a, b := randSlice[float32](rng, ar*lda), randSlice[float32](rng, br*ldb)
				var bias []float32
				if c.bias {
					bias = randSlice[float32](rng, c.n)
				}
				var pre []float32
				if c.pre {
					pre = make([]float32, (c.n+kern.nr-1)/kern.nr*kern.nr*c.k)
					packB(true, b, ldb, 0, 0, c.k, c.n, kern.nr, pre, nil)
				}
				gemmRowsOuterC = 1 << 17
				if c.outer {
					gemmRowsOuterC = 0
				}
				c0 := randSlice[float32](rng, m*c.n)
				got, want := append([]float32(nil), c0...), append([]float32(nil), c0...)
				gemmSerial(aside, c.tA, c.tB, m, c.n, c.k, float32(c.alpha), a, lda, b, ldb, want, c.n, c.add, pre, bias, nil)
				gemmSerial(kern, c.tA, c.tB, m, c.n, c.k, float32(c.alpha), a, lda, b, ldb, got, c.n, c.add, pre, bias, nil)
				sameBits(t, fmt.Sprintf("%d×%d kernel, edge rows, m=%d %+v", kern.mr, kern.nr, m, c), got, want)
			}
		}
	}
}
