//go:build arm64 && !purego

package ops

// The arm64 kernels: the products through NEON micro-kernels (gemm_arm64.s: 6×16 float32, 6×8
// float64), GELU, the softmax's exponential and the row sums and maximum in NEON (vec_arm64.s),
// and the other vector kernels in Go, lane by lane (lanes.go). Each computes what the AVX2
// kernel of the same name computes on amd64, in its order, so that arm64 gives the amd64 builds'
// bits (TestKernelBitsGolden).

// sgemmKernel6x16 and sgemmKernel6x16Bias are the AVX2 kernels' NEON counterparts (gemm_arm64.s);
// see microKernel for their contract.
//
//go:noescape
func sgemmKernel6x16(k int, a *float32, rs, cs int, b *float32, bs int, c *float32, ldc int, alpha float32, add bool)

//go:noescape
func sgemmKernel6x16Bias(k int, a *float32, rs, cs int, b *float32, bs int, c *float32, ldc int, alpha float32, bias *float32)

// dgemmKernel6x8 is the float64 kernel (gemm_arm64.s): dgemmKernel6x8's computation on amd64.
//
//go:noescape
func dgemmKernel6x8(k int, a *float64, rs, cs int, b *float64, bs int, c *float64, ldc int, alpha float64, add bool)

var (
	kernel32 = microKernel[float32]{mr: 6, nr: 16, fn: sgemmKernel6x16, fnBias: sgemmKernel6x16Bias}
	kernel64 = microKernel[float64]{mr: 6, nr: 8, fn: dgemmKernel6x8}

	// The tests' names for the amd64 kernels: here the NEON one.
	kernel32avx2   = kernel32
	kernel32avx512 = kernel32
	kernel32wide   = kernel32
	haveWide       = false
	haveAVX512     = false
)

const (
	haveKernels  = true
	haveAVX512DQ = false
	kernelName   = "posformer neon (6x16 f32, 6x8 f64)"
)

// The softmax's and the layer norm's row kernels in NEON (vec_arm64.s): the AVX2 kernels'
// operations on eight lanes in two registers, sums reduced in AVX2's order.

//go:noescape
func expShiftSum8(x []float32, m float32) float32

//go:noescape
func max8(x []float32) float32

//go:noescape
func sum8(x []float32) float32

//go:noescape
func sqdev8(x []float32, m float32) float32

// geluFwd8 and geluBwd8 are gelu_amd64.s's GELU and its gradient in NEON (vec_arm64.s), four
// lanes at a time over len(x)&^7 values.
//
//go:noescape
func geluFwd8(x, y []float32)

//go:noescape
func geluBwd8(x, g, y []float32)

// The other vector kernels: lanes.go's Go code, the AVX2 kernels' operations lane by lane.

func scale8(x []float32, s float32)                         { scale8Lanes(x, s) }
func addv8(y, a, b []float32)                               { addv8Lanes(y, a, b) }
func subMul8(row, p []float32, d float32)                   { subMul8Lanes(row, p, d) }
func colSum8(y, x []float32, rows, ld int)                  { colSum8Lanes(y, x, rows, ld) }
func lnGammaCols8(o, g, x, st []float32, rows, ld int)      { lnGammaCols8Lanes(o, g, x, st, rows, ld) }
func expFast4(y []float64)                                  { expFast4Lanes(y) }
func adamStep4(w, g []float32, m, v []float64, c *AdamCoef) { adamStep4Lanes(w, g, m, v, c) }
func copyRows16(dst, src []float32, ldb, kc int)            { copyRows16Lanes(dst, src, ldb, kc) }
func copyRowsSum16(dst, src []float32, ldb, kc int, s []float32) {
	copyRowsSum16Lanes(dst, src, ldb, kc, s)
}

func lnFwd8(y, x, gamma, beta []float32, mean, rstd float32) {
	lnFwd8Lanes(y, x, gamma, beta, mean, rstd)
}

func lnGradX8(dx, g, x, gamma []float32, mean, rstd, sg, sgx float32) {
	lnGradX8Lanes(dx, g, x, gamma, mean, rstd, sg, sgx)
}

// The AVX-512 kernels have no counterpart here: haveAVX512 and haveAVX512DQ are false, so they
// are never called.

func expShiftSum16(x []float32, m float32) float32                 { panic(noAVX512) }
func geluFwd16(x, y []float32)                                     { panic(noAVX512) }
func geluBwd16(x, g, y []float32)                                  { panic(noAVX512) }
func expFast8(y []float64)                                         { panic(noAVX512) }
func adamStep8(w, g []float32, m, v []float64, c *AdamCoef)        { panic(noAVX512) }
func copyRows32(dst, src []float32, ldb, kc int)                   { panic(noAVX512) }
func copyRowsSum32(dst, src []float32, ldb, kc int, sum []float32) { panic(noAVX512) }

const noAVX512 = "ops: an AVX-512 kernel called on arm64"

// geluFwd8x2 and geluBwd8x2 are geluFwd8 and geluBwd8 over len(x)&^15 values (on amd64 two
// blocks of eight interleaved; each value gets the same operations either way).
func geluFwd8x2(x, y []float32)    { n := len(x) &^ 15; geluFwd8(x[:n], y[:n]) }
func geluBwd8x2(x, g, y []float32) { n := len(x) &^ 15; geluBwd8(x[:n], g[:n], y[:n]) }

// transposeRows writes dst[r·ldd + p] = src[p·lds + r] for r < rows, p < cols (in Go: a copy,
// no arithmetic) and reports that it did.
func transposeRows(dst []float32, ldd int, src []float32, lds, rows, cols int) bool {
	if rows <= 0 || cols <= 0 {
		return false
	}
	for r := 0; r < rows; r++ {
		d := dst[r*ldd : r*ldd+cols]
		for p := range d {
			d[p] = src[p*lds+r]
		}
	}
	return true
}
