package ops

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// BLAS is the matrix-multiply backend: gonum's pure-Go implementation by default. A build tag
// may swap in another implementation (see blas_openblas.go).
var BLAS interface {
	blas.Float32Level3
	blas.Float64Level3
} = gonum.Implementation{}

func tr(t bool) blas.Transpose {
	if t {
		return blas.Trans
	}
	return blas.NoTrans
}

// gemm computes C = alpha·op(A)·op(B) + beta·C on row-major matrices, op(A) being m×k and op(B) k×n.
func gemm[F Float](tA, tB bool, m, n, k int, alpha F, a []F, lda int, b []F, ldb int, beta F, c []F, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	switch a := any(a).(type) {
	case []float32:
		BLAS.Sgemm(tr(tA), tr(tB), m, n, k, float32(alpha), a, lda, any(b).([]float32), ldb, float32(beta), any(c).([]float32), ldc)
	case []float64:
		BLAS.Dgemm(tr(tA), tr(tB), m, n, k, float64(alpha), a, lda, any(b).([]float64), ldb, float64(beta), any(c).([]float64), ldc)
	}
}
