//go:build amd64 && !purego

package ops

import (
	"os"
	"unsafe"

	"golang.org/x/sys/cpu"
)

// Micro-kernels in gemm_amd64.s (AVX2 + FMA); see microKernel for their contract.

//go:noescape
func sgemmKernel6x16(k int, a *float32, rs, cs int, b *float32, bs int, c *float32, ldc int, alpha float32, add bool)

//go:noescape
func dgemmKernel6x8(k int, a *float64, rs, cs int, b *float64, bs int, c *float64, ldc int, alpha float64, add bool)

// sgemmKernel6x16Bias is sgemmKernel6x16 storing alpha·acc + bias (gemm_amd64.s): the AVX2
// kernel's fnBias.
//
//go:noescape
func sgemmKernel6x16Bias(k int, a *float32, rs, cs int, b *float32, bs int, c *float32, ldc int, alpha float32, bias *float32)

// sgemmKernel12x16 is the AVX-512 float32 kernel (gemm512_amd64.s).
//
//go:noescape
func sgemmKernel12x16(k int, a *float32, rs, cs int, b *float32, bs int, c *float32, ldc int, alpha float32, add bool)

// sgemmKernel12x32 is the AVX-512 float32 kernel with a 12×32 tile (gemm12x32_amd64.s): per
// element the 12×16 kernel's operations, with half the loads of A per product.
//
//go:noescape
func sgemmKernel12x32(k int, a *float32, rs, cs int, b *float32, bs int, c *float32, ldc int, alpha float32, add bool)

// sgemmKernel12x32Bias is sgemmKernel12x32 storing alpha·acc + bias (gemm12x32_amd64.s): the
// kernel's fnBias.
//
//go:noescape
func sgemmKernel12x32Bias(k int, a *float32, rs, cs int, b *float32, bs int, c *float32, ldc int, alpha float32, bias *float32)

// sgemmKernel4x16, sgemmKernel2x16 and sgemmKernel1x16 compute 4, 2 or 1 rows by 16 columns with
// sgemmKernel6x16's operations per element, storing by mode (tileSet, tileAdd, tileBias; bias
// is read only for tileBias) (gemm_amd64.s): the rows of a partial tile.
//
//go:noescape
func sgemmKernel4x16(k int, a *float32, rs, cs int, b *float32, bs int, c *float32, ldc int, alpha float32, mode int, bias *float32)

//go:noescape
func sgemmKernel2x16(k int, a *float32, rs, cs int, b *float32, bs int, c *float32, ldc int, alpha float32, mode int, bias *float32)

//go:noescape
func sgemmKernel1x16(k int, a *float32, rs, cs int, b *float32, bs int, c *float32, ldc int, alpha float32, mode int, bias *float32)

// sgemmRows16 computes r rows by 16 columns of C (the rows micro-kernel of the float32 kernels
// whose panels are 16 wide): six rows at a time through sgemmKernel6x16, the rest by the edge
// kernels. Every kernel computes an element by the same chain of fused multiply-adds and
// stores it the same way, so the bits are those of any one of them computing the whole tile.
func sgemmRows16(r, k int, a *float32, rs, cs int, b *float32, bs int, c *float32, ldc int, alpha float32, mode int, bias *float32) {
	for r > 0 {
		n := 1
		switch {
		case r >= 6 && mode == tileBias:
			n = 6
			sgemmKernel6x16Bias(k, a, rs, cs, b, bs, c, ldc, alpha, bias)
		case r >= 6:
			n = 6
			sgemmKernel6x16(k, a, rs, cs, b, bs, c, ldc, alpha, mode == tileAdd)
		case r >= 4:
			n = 4
			sgemmKernel4x16(k, a, rs, cs, b, bs, c, ldc, alpha, mode, bias)
		case r >= 2:
			n = 2
			sgemmKernel2x16(k, a, rs, cs, b, bs, c, ldc, alpha, mode, bias)
		default:
			sgemmKernel1x16(k, a, rs, cs, b, bs, c, ldc, alpha, mode, bias)
		}
		if r -= n; r > 0 { // rows n.. exist: the pointers stay inside A and C
			a = (*float32)(unsafe.Add(unsafe.Pointer(a), n*rs*4))
			c = (*float32)(unsafe.Add(unsafe.Pointer(c), n*ldc*4))
		}
	}
}

// sgemmRows32 is sgemmRows16 for panels 32 wide (the 12×32 kernel's): its two halves of 16.
func sgemmRows32(r, k int, a *float32, rs, cs int, b *float32, bs int, c *float32, ldc int, alpha float32, mode int, bias *float32) {
	sgemmRows16(r, k, a, rs, cs, b, bs, c, ldc, alpha, mode, bias)
	b = (*float32)(unsafe.Add(unsafe.Pointer(b), 16*4))
	c = (*float32)(unsafe.Add(unsafe.Pointer(c), 16*4))
	if mode == tileBias {
		bias = (*float32)(unsafe.Add(unsafe.Pointer(bias), 16*4))
	}
	sgemmRows16(r, k, a, rs, cs, b, bs, c, ldc, alpha, mode, bias)
}

var (
	kernel32wide   = microKernel[float32]{mr: 12, nr: 32, fn: sgemmKernel12x32, fnBias: sgemmKernel12x32Bias, rows: sgemmRows32}
	kernel32avx2   = microKernel[float32]{mr: 6, nr: 16, fn: sgemmKernel6x16, fnBias: sgemmKernel6x16Bias, rows: sgemmRows16}
	kernel32avx512 = microKernel[float32]{mr: 12, nr: 16, fn: sgemmKernel12x16, rows: sgemmRows16}
	kernel64       = microKernel[float64]{mr: 6, nr: 8, fn: dgemmKernel6x8}

	// haveKernels reports whether this CPU runs the assembly kernels.
	haveKernels = cpu.X86.HasAVX2 && cpu.X86.HasFMA
	// haveAVX512 selects the AVX-512 float32 kernel (POSFORMER_AVX512=0 turns it off).
	haveAVX512 = haveKernels && cpu.X86.HasAVX512F && os.Getenv("POSFORMER_AVX512") != "0"
	// haveAVX512DQ selects the sixteen-wide GELU kernels and the eight-wide float64 exponential
	// (they give the same bits as the narrower or scalar code).
	haveAVX512DQ = haveAVX512 && cpu.X86.HasAVX512DQ

	// kernel32 is the float32 kernel gemm uses; haveWide adds kernel32wide for the products
	// useWide picks.
	kernel32   = kernel32avx2
	haveWide   = false
	kernelName = "posformer avx2+fma (6x16 f32, 6x8 f64)"
)

func init() {
	if useKernels {
		lnSumsT = lnSumsT8
	}
	if useKernels && !haveAVX512DQ { // the eight-lane GELU: its gradient takes Φ from the forward
		geluFwdPhi, geluFwdPhiX2, geluBwdPhi = geluFwdPhi8, geluFwdPhi8x2, geluBwdPhi8
	}
	if haveAVX512 {
		kernel32, haveWide = kernel32avx512, true
		kernelName = "posformer avx-512 (12x32 and 12x16 f32) + avx2+fma (6x8 f64)"
	}
}

// expShiftSum8 replaces x[i] by exp(x[i] − m) for i < len(x)&^7 (AVX2 + FMA, relative error
// about 1e-7) and returns the sum of those values (exp_amd64.s).
//
//go:noescape
func expShiftSum8(x []float32, m float32) float32

// expShiftSum16 is expShiftSum8 sixteen values at a time (AVX512F; same values, same sum, bit for
// bit: each block's two halves are added to the eight-lane sum in order).
//
//go:noescape
func expShiftSum16(x []float32, m float32) float32

// geluFwd8 writes y[i] = GELU(x[i]) and geluBwd8 y[i] = g[i]·GELU'(x[i]), for i < len(x)&^7
// (gelu_amd64.s; the same formula as geluFast32 and geluGradFast32).
//
//go:noescape
func geluFwd8(x, y []float32)

//go:noescape
func geluBwd8(x, g, y []float32)

// geluFwd8x2 is geluFwd8 on sixteen values a step, for i < len(x)&^15 (two blocks of eight
// interleaved, each value through geluFwd8's operations: the same bits).
//
//go:noescape
func geluFwd8x2(x, y []float32)

// geluBwd8x2 is geluBwd8 on sixteen values a step, for i < len(x)&^15 (the same bits).
//
//go:noescape
func geluBwd8x2(x, g, y []float32)

// geluFwdPhi8 and geluFwdPhi8x2 are geluFwd8 and geluFwd8x2 that also write Φ(x) to phi[i] (the
// factor y = x·Φ(x) takes; the same y); geluBwdPhi8 is geluBwd8 reading that Φ(x) from phi
// rather than computing it again (its bits), for i < len(x)&^7 (gelu_amd64.s).
//
//go:noescape
func geluFwdPhi8(x, y, phi []float32)

//go:noescape
func geluFwdPhi8x2(x, y, phi []float32)

//go:noescape
func geluBwdPhi8(x, phi, g, y []float32)

// geluFwd16 and geluBwd16 are geluFwd8 and geluBwd8 on sixteen values at a time, for
// i < len(x)&^15 (AVX512F + DQ; same operations per value, so the same bits).
//
//go:noescape
func geluFwd16(x, y []float32)

//go:noescape
func geluBwd16(x, g, y []float32)

// max8 returns the maximum of x[:len(x)&^7] (at least 8 values); scale8 multiplies
// x[:len(x)&^7] by s (exp_amd64.s).
//
//go:noescape
func max8(x []float32) float32

//go:noescape
func scale8(x []float32, s float32)

// sum8 returns the sum of x[:len(x)&^7]; sqdev8 the sum of (x[i] − m)² over it (exp_amd64.s).
//
//go:noescape
func sum8(x []float32) float32

//go:noescape
func sqdev8(x []float32, m float32) float32

// addv8 writes a[i] + b[i] to y[i] for i < len(y)&^7 (exp_amd64.s); y may alias a or b.
//
//go:noescape
func addv8(y, a, b []float32)

// Layer-norm loops, eight float32 at a time with the scalar code's operations in its order
// (layernorm_amd64.s): lnFwd8 y = ((x−mean)·rstd)·gamma + beta; lnGradX8
// dx = rstd·((g·gamma − sg) − ((x−mean)·rstd)·sgx). Each covers len(first)&^7 values.
//
//go:noescape
func lnFwd8(y, x, gamma, beta []float32, mean, rstd float32)

//go:noescape
func lnGradX8(dx, g, x, gamma []float32, mean, rstd, sg, sgx float32)

// lnSumsT8 is lnRowSums for eight rows in eight lanes, from g and x transposed
// (layernorm_amd64.s; see lnRowSums8).
//
//go:noescape
func lnSumsT8(out, gt, xt, gamma, ms []float32)

// subMul8 writes p[j]·(row[j] − d) to row[j] for j < len(row)&^7 (exp_amd64.s).
//
//go:noescape
func subMul8(row, p []float32, d float32)

// colSum8 writes to y[j] the sum over rows of x[r·ld+j], in row order, for j < len(y)&^7;
// lnGammaCols8 writes Σ_r (g·(x − mean_r))·rstd_r likewise, with mean_r, rstd_r = st[2r], st[2r+1]
// (layernorm_amd64.s). Both keep their column sums in registers while the rows stream past.
//
//go:noescape
func colSum8(y, x []float32, rows, ld int)

//go:noescape
func lnGammaCols8(o, g, x, st []float32, rows, ld int)

// expFast8 replaces y[i] by expFast(y[i]) for i < len(y)&^7, eight float64 at a time with
// expFast's operations (exp_amd64.s; AVX512F + DQ, so only when haveAVX512DQ).
//
//go:noescape
func expFast8(y []float64)

// expFast4 is expFast8 four float64 at a time, for i < len(y)&^3 (exp_amd64.s; AVX2, the same bits).
//
//go:noescape
func expFast4(y []float64)

// adamStep8 is AdamVec32's kernel: the update of w[:len(w)&^7] eight elements at a time
// (adam_amd64.s; AVX512F).
//
//go:noescape
func adamStep8(w, g []float32, m, v []float64, c *AdamCoef)

// adamStep4 is adamStep8 four elements at a time on AVX2 (adam_amd64.s; len(w) a multiple of 4).
//
//go:noescape
func adamStep4(w, g []float32, m, v []float64, c *AdamCoef)

// copyRows16 and copyRows32 copy kc rows of 16 (32) float32, ldb apart in src, to consecutive
// rows of dst: the packing of B's panels for the float32 kernels (pack_amd64.s; copyRows32 needs
// AVX512F). The caller checks the bounds.
//
//go:noescape
func copyRows16(dst, src []float32, ldb, kc int)

//go:noescape
func copyRows32(dst, src []float32, ldb, kc int)

// copyRowsSum16 and copyRowsSum32 are copyRows16 and copyRows32 that also add each row to
// sum[:16] (sum[:32]), rows in order: the packing of an output gradient that sums its columns
// (a bias gradient) on the way (pack_amd64.s).
//
//go:noescape
func copyRowsSum16(dst, src []float32, ldb, kc int, sum []float32)

//go:noescape
func copyRowsSum32(dst, src []float32, ldb, kc int, sum []float32)

// transpose8 writes dst[r·ldd + p] = src[p·lds + r] for r < rows, p < cols, rows and cols
// multiples of 8 (pack_amd64.s, AVX2; no bounds checks: see transposeRows).
//
//go:noescape
func transpose8(dst []float32, ldd int, src []float32, lds, rows, cols int)

// transposeRows writes dst[r·ldd + p] = src[p·lds + r] for r < rows, p < cols, in blocks of 8×8
// (transpose8) and the rest one value at a time, and reports whether it did (float32 with the
// AVX2 kernels).
func transposeRows(dst []float32, ldd int, src []float32, lds, rows, cols int) bool {
	if !haveKernels || rows <= 0 || cols <= 0 {
		return false
	}
	_, _ = dst[(rows-1)*ldd+cols-1], src[(cols-1)*lds+rows-1] // bounds, for the assembly
	r8, c8 := rows&^7, cols&^7
	transpose8(dst, ldd, src, lds, r8, c8)
	for r := 0; r < rows; r++ {
		p0 := c8
		if r >= r8 {
			p0 = 0
		}
		for p := p0; p < cols; p++ {
			dst[r*ldd+p] = src[p*lds+r]
		}
	}
	return true
}
