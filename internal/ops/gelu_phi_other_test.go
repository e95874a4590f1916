//go:build !amd64 || purego

package ops

// phiKernels reports whether this build has GELU kernels that keep Φ(x) (only amd64's AVX2 ones).
func phiKernels(t interface{ Cleanup(func()) }) bool { return geluBwdPhi != nil }
