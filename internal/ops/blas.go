package ops

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// BLAS is the matrix-multiply backend used when posformer's own kernels are off: gonum's pure-Go
// implementation by default; the openblas build tag swaps in OpenBLAS (see blas_openblas.go).
var BLAS interface {
	blas.Float32Level3
	blas.Float64Level3
} = gonum.Implementation{}

// blasName names the BLAS variable's implementation.
var blasName = "gonum (pure Go)"

// blasWarning, when set, says why the BLAS variable may run below its best speed.
var blasWarning string

// BLASWarning returns a note on a setting that slows the matrix-multiply backend down (the
// openblas build under OPENBLAS_CORETYPE), or "".
func BLASWarning() string { return blasWarning }

// useKernels turns on the assembly kernels: gemm through gemmBlocked (gemm_amd64.s) and the
// vectorised GELU, exp and softmax. It is on when the CPU has them (AVX2 and FMA on amd64),
// unless the environment sets POSFORMER_GEMM=blas (to compare with the BLAS variable). The
// openblas build keeps it on and sends the large products to OpenBLAS (blasMinFlops).
var useKernels = haveKernels && os.Getenv("POSFORMER_GEMM") != "blas"

// blasMinFlops sends products with m·n·k of at least this size to the BLAS variable even when the
// kernels are on: the openblas build lowers it, so that OpenBLAS does the large products and the
// kernels the many small ones (attention), where OpenBLAS's per-call overhead dominates.
var blasMinFlops = math.MaxInt

// blasSplit cuts large products into blasPieces calls of the BLAS variable (which then runs
// single-threaded) spread over the workers: set by the openblas build, so that OpenBLAS's own
// threads never spin against posformer's goroutines.
var blasSplit = false

func tr(t bool) blas.Transpose {
	if t {
		return blas.Trans
	}
	return blas.NoTrans
}

// gemm computes C = alpha·op(A)·op(B) + beta·C on row-major matrices, op(A) being m×k and op(B) k×n,
// splitting a large product over the workers.
func gemm[F Float](tA, tB bool, m, n, k int, alpha F, a []F, lda int, b []F, ldb int, beta F, c []F, ldc int) {
	gemmSplit(true, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// gemm1 is gemm on the calling goroutine only, for callers that already run on every worker.
func gemm1[F Float](tA, tB bool, m, n, k int, alpha F, a []F, lda int, b []F, ldb int, beta F, c []F, ldc int) {
	gemmSplit(false, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// usesBLAS reports whether gemm sends an m×n×k product to the BLAS variable rather than to
// posformer's kernels.
func usesBLAS(m, n, k int) bool { return !useKernels || m*n*k >= blasMinFlops }

func gemmSplit[F Float](split, tA, tB bool, m, n, k int, alpha F, a []F, lda int, b []F, ldb int, beta F, c []F, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if !usesBLAS(m, n, k) {
		switch a := any(a).(type) {
		case []float32:
			kern := kernel32
			if useWide(tA, m, n, k, float64(alpha)) {
				kern = kernel32wide
			}
			gemmBlocked(kern, split, tA, tB, m, n, k, float32(alpha), a, lda, any(b).([]float32), ldb, float32(beta), any(c).([]float32), ldc)
		case []float64:
			gemmBlocked(kernel64, split, tA, tB, m, n, k, float64(alpha), a, lda, any(b).([]float64), ldb, float64(beta), any(c).([]float64), ldc)
		}
		return
	}
	if k == 0 { // no product: C = beta·C (the BLAS refuses a leading dimension of 0)
		for i := range m {
			row := c[i*ldc : i*ldc+n]
			if beta == 0 {
				clear(row)
				continue
			}
			for j := range row {
				row[j] *= beta
			}
		}
		return
	}
	if !split || !blasSplit || m*n*k < gemmParallelFlops {
		blasGemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	blasParts(m, n, func(i0, i1, j0, j1 int) {
		aOff, bOff := i0*lda, j0
		if tA {
			aOff = i0
		}
		if tB {
			bOff = j0 * ldb
		}
		blasGemm(tA, tB, i1-i0, j1-j0, k, alpha, a[aOff:], lda, b[bOff:], ldb, beta, c[i0*ldc+j0:], ldc)
	})
}

// useWide reports whether a float32 product goes to the 12×32 AVX-512 kernel rather than the
// 12×16 one: products at least 64 columns wide (the dense layers; attention's per-head products
// keep the 12×16 tile) whose alpha is 1 or whose n is a multiple of 32. Both kernels compute
// every element by the same operations, and C's columns fall into whole tiles with both (n a
// multiple of 32) or alpha is 1 (a partial tile's alpha·acc + C then rounds as the fused one),
// so the choice never changes a bit.
func useWide(tA bool, m, n, k int, alpha float64) bool {
	return haveWide && n >= 64 && (alpha == 1 || n%32 == 0)
}

// blasPieces is the number of parts blasParts cuts a large product into, whatever the number of
// workers: how OpenBLAS sums an element can depend on the shape of the call, so the calls must
// not change with GOMAXPROCS for a run to give the same bits on any number of cores.
const blasPieces = 4

// blasParts runs part over blasPieces blocks of C (the larger of m and n cut at multiples of
// 16), the blocks grouped in order over the workers: on 2 workers, two blocks each.
func blasParts(m, n int, part func(i0, i1, j0, j1 int)) {
	cut, other := m, n
	if m < n {
		cut, other = n, m
	}
	chunk := ((cut+blasPieces-1)/blasPieces + 15) / 16 * 16
	pieces := (cut + chunk - 1) / chunk
	run := func(p int) {
		lo, hi := p*chunk, min((p+1)*chunk, cut)
		if m >= n {
			part(lo, hi, 0, other)
		} else {
			part(0, other, lo, hi)
		}
	}
	groups := min(workers(), pieces)
	fanout(groups, func(g int) {
		for p := g * pieces / groups; p < (g+1)*pieces/groups; p++ {
			run(p)
		}
	})
}

// blasGemm is one call of the BLAS variable.
func blasGemm[F Float](tA, tB bool, m, n, k int, alpha F, a []F, lda int, b []F, ldb int, beta F, c []F, ldc int) {
	switch a := any(a).(type) {
	case []float32:
		BLAS.Sgemm(tr(tA), tr(tB), m, n, k, float32(alpha), a, lda, any(b).([]float32), ldb, float32(beta), any(c).([]float32), ldc)
	case []float64:
		BLAS.Dgemm(tr(tA), tr(tB), m, n, k, float64(alpha), a, lda, any(b).([]float64), ldb, float64(beta), any(c).([]float64), ldc)
	}
}

// Backend names the matrix-multiply implementation in use, for benchmark reports.
func Backend() string {
	switch {
	case !useKernels || blasMinFlops == 0:
		return blasName
	case blasMinFlops < math.MaxInt:
		return fmt.Sprintf("%s for m·n·k ≥ %d, else %s", blasName, blasMinFlops, kernelName)
	}
	return kernelName
}

// Kernels names the code each op family runs on this CPU, as key=value words for benchmark
// reports: avx-512, avx2 (with FMA) or generic (Go loops; the products in the BLAS variable); on
// arm64, neon for the float32 products and Go for the rest (with the AVX2 kernels' bits).
// POSFORMER_AVX512=0 selects the AVX2 kernels on an AVX-512 CPU, POSFORMER_GEMM=blas the generic
// code everywhere.
func Kernels() string {
	if useKernels && runtime.GOARCH == "arm64" { // NEON (gemm_arm64.s, vec_arm64.s), the rest Go lanes (lanes.go)
		return "gemm_f32=neon gemm_f64=neon attention_softmax=neon gelu=neon cross_entropy=go adam=go layernorm_add_colsum=go-lanes"
	}
	pick := func(avx512 bool) string {
		switch {
		case !useKernels:
			return "generic"
		case avx512:
			return "avx-512"
		}
		return "avx2"
	}
	return fmt.Sprintf("gemm_f32=%s gemm_f64=%s attention_softmax=%s gelu=%s cross_entropy=%s adam=%s layernorm_add_colsum=%s",
		pick(haveAVX512), pick(false), pick(haveAVX512), pick(haveAVX512DQ), pick(haveAVX512DQ), pick(haveAVX512), pick(false))
}

// SgemmPeak measures the float32 matrix product's rate on this machine: the best of reps
// n×n×n products through gemm (posformer's kernels split over the workers, or the BLAS variable),
// in GFLOP/s (2n³ per product), after one untimed product.
func SgemmPeak(n, reps int) float64 {
	a, b, c := make([]float32, n*n), make([]float32, n*n), make([]float32, n*n)
	for i := range a {
		a[i], b[i] = float32(i%7)-3, float32(i%5)-2
	}
	best := time.Duration(math.MaxInt64)
	for r := -1; r < reps; r++ {
		t0 := time.Now()
		gemm(false, false, n, n, n, 1, a, n, b, n, 0, c, n)
		if d := time.Since(t0); r >= 0 {
			best = min(best, d)
		}
	}
	return 2 * float64(n) * float64(n) * float64(n) / best.Seconds() / 1e9
}
