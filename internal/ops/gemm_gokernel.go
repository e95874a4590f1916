package ops

import "unsafe"

// goKernel returns a portable micro-kernel for an mr×nr tile, the reference the assembly kernels
// are tested against (and the kernel of the blocked driver's own tests on other CPUs).
func goKernel[F Float](mr, nr int) func(k int, a *F, rs, cs int, b *F, bs int, c *F, ldc int, alpha F, add bool) {
	return func(k int, a *F, rs, cs int, b *F, bs int, c *F, ldc int, alpha F, add bool) {
		for i := 0; i < mr; i++ {
			for j := 0; j < nr; j++ {
				var s F
				for p := 0; p < k; p++ {
					av := *(*F)(unsafe.Add(unsafe.Pointer(a), uintptr(i*rs+p*cs)*unsafe.Sizeof(s)))
					bv := *(*F)(unsafe.Add(unsafe.Pointer(b), uintptr(p*bs+j)*unsafe.Sizeof(s)))
					s += av * bv
				}
				cp := (*F)(unsafe.Add(unsafe.Pointer(c), uintptr(i*ldc+j)*unsafe.Sizeof(s)))
				if add {
					*cp += alpha * s
				} else {
					*cp = alpha * s
				}
			}
		}
	}
}
