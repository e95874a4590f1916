//go:build amd64 && !purego

package ops

// phiKernels selects the AVX2 GELU kernels that keep Φ(x) for the gradient wherever the CPU has
// AVX2 and FMA (init selects them only without AVX-512 DQ), so that TestGELUPhiSameBits checks
// them on AVX-512 CPUs too; it reports whether it could, and restores the selection at cleanup.
func phiKernels(t interface{ Cleanup(func()) }) bool {
	if !useKernels {
		return false
	}
	f, f2, b := geluFwdPhi, geluFwdPhiX2, geluBwdPhi
	geluFwdPhi, geluFwdPhiX2, geluBwdPhi = geluFwdPhi8, geluFwdPhi8x2, geluBwdPhi8
	t.Cleanup(func() { geluFwdPhi, geluFwdPhiX2, geluBwdPhi = f, f2, b })
	return true
}
