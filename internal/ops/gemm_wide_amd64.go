//go:build amd64 && !purego

package ops

// copyRowsWide16 packs np panels of 16 columns row by row (pack_amd64.s; see packRowsWide).
//
//go:noescape
func copyRowsWide16(dst, src []float32, ldb, kc, np int)

// packRowsWide packs the whole panels of op(B)[pc:pc+kc, jc:jc+np·16] (B row-major, float32,
// panels 16 wide) row by row, each row of B read once left to right, and reports whether it did:
// where B's rows are a multiple of 2 KiB apart, a walk down one panel's columns (copyRows16)
// reads one line per row from a few L1 sets and crosses a page every row or two.
func packRowsWide[F Float](b []F, ldb, pc, jc, kc, np int, bp []F) bool {
	b32, ok := any(b).([]float32)
	if !ok || !haveKernels || kc == 0 || np < 2 || ldb*4%2048 != 0 {
		return false
	}
	src := b32[pc*ldb+jc : (pc+kc-1)*ldb+jc+np*16] // bounds checked here, for the assembly
	copyRowsWide16(any(bp).([]float32)[:np*16*kc], src, ldb, kc, np)
	return true
}

// tnTransposed reports whether gemmTNSums computes an m×n×k float32 weight gradient as its
// transpose (gemmTNSumsT): on the AVX2 kernels, for C at least twice as tall as wide and several
// blocks of k. (AVX-512 keeps its 12×32 kernel's orientation: not measured.)
func tnTransposed(m, n, k int) bool {
	return useKernels && !haveAVX512 && m >= 2*n && k > gemmKC
}
