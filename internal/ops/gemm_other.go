//go:build (!amd64 && !arm64) || purego

package ops

// No assembly kernels on this architecture: gemm uses the BLAS variable (gonum's pure-Go code).
// The portable Go kernels below exist so that the blocked driver is still tested everywhere.

var (
	kernel32 = microKernel[float32]{mr: 4, nr: 4, fn: goKernel[float32](4, 4)}
	kernel64 = microKernel[float64]{mr: 4, nr: 4, fn: goKernel[float64](4, 4)}
)

const haveKernels = false

// The kernels the tests name on amd64: here, the portable one.
var (
	kernel32avx2   = kernel32
	kernel32avx512 = kernel32
	kernel32wide   = kernel32
	haveWide       = false
	haveAVX512     = false
)

const kernelName = "posformer go"

// The vector kernels of the amd64 build are never called here (useKernels is false); these
// stubs only satisfy the compiler.
func expShiftSum8(x []float32, m float32) float32  { return 0 }
func expShiftSum16(x []float32, m float32) float32 { return 0 }

func geluFwd8(x, y []float32)     {}
func geluBwd8(x, g, y []float32)  {}
func geluFwd16(x, y []float32)    {}
func geluBwd16(x, g, y []float32) {}

const haveAVX512DQ = false

func max8(x []float32) float32      { return x[0] }
func scale8(x []float32, s float32) {}

func sum8(x []float32) float32              { return 0 }
func sqdev8(x []float32, m float32) float32 { return 0 }

func addv8(y, a, b []float32) {}

func lnFwd8(y, x, gamma, beta []float32, mean, rstd float32)          {}
func lnGradX8(dx, g, x, gamma []float32, mean, rstd, sg, sgx float32) {}

func subMul8(row, p []float32, d float32) {}

func colSum8(y, x []float32, rows, ld int)             {}
func lnGammaCols8(o, g, x, st []float32, rows, ld int) {}

func expFast8(y []float64) {}
func expFast4(y []float64) {}

func adamStep8(w, g []float32, m, v []float64, c *AdamCoef) {}
func adamStep4(w, g []float32, m, v []float64, c *AdamCoef) {}

func copyRows16(dst, src []float32, ldb, kc int) {}
func copyRows32(dst, src []float32, ldb, kc int) {}

func copyRowsSum16(dst, src []float32, ldb, kc int, sum []float32) {}
func copyRowsSum32(dst, src []float32, ldb, kc int, sum []float32) {}
