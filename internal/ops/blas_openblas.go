//go:build openblas

package ops

// Built with -tags openblas, every matrix multiply goes to OpenBLAS through gonum's netlib
// wrapper (cgo, linked with -lopenblas; Debian: apt-get install libopenblas-dev). The default
// build stays pure Go.
//
// OpenBLAS runs single-threaded: a large product is cut into a fixed number of OpenBLAS calls
// spread over the workers (blasParts), so OpenBLAS's own threads never spin against posformer's
// goroutines (attention already runs its many small products on every worker). The environment
// variable POSFORMER_BLAS_MIN=N sends only products with m·n·k ≥ N to OpenBLAS and the rest to
// posformer's kernels (default 0: everything to OpenBLAS).

import (
	"os"
	"strconv"

	"github.com/posformer/posformer/internal/ops/openblaslink"
	"gonum.org/v1/netlib/blas/netlib"
)

func init() {
	BLAS = netlib.Implementation{}
	blasName = "OpenBLAS (cgo, gonum.org/v1/netlib)"
	blasMinFlops = blasMinFlopsFromEnv(0)
	blasSplit = true
	openblaslink.SetThreads(1)
	if ct := os.Getenv("OPENBLAS_CORETYPE"); ct != "" {
		blasWarning = "OPENBLAS_CORETYPE=" + ct + " is set: OpenBLAS uses that core's kernels instead of this CPU's own " +
			"(Haswell on an AVX-512 CPU runs its products at about half speed); unset it before starting the program"
	}
}

// blasMinFlopsFromEnv reads POSFORMER_BLAS_MIN (the smallest m·n·k sent to OpenBLAS).
func blasMinFlopsFromEnv(def int) int {
	if v, err := strconv.Atoi(os.Getenv("POSFORMER_BLAS_MIN")); err == nil && v >= 0 {
		return v
	}
	return def
}
