package ops

// AdamCoef holds one AdamW step's constants (train.Adam): the moments' decay rates and their
// complements, the gradient's scale (the clipping factor), the bias corrections, epsilon, the
// weight decay and the learning rate.
type AdamCoef struct {
	Beta1, OneMinusBeta1, Beta2, OneMinusBeta2, Scale, BC1, BC2, Eps, WD, LR float64
}

// AdamVec32 applies the AdamW update to the first n elements of w (float32 weights, g their
// gradients, m and v the float64 moments) and returns n, a multiple of 8 (0 without the assembly
// kernels, or when w is shorter than 8): eight elements at a time on AVX-512, four on AVX2, with,
// per element, the operations of the scalar update, each rounded as Go rounds it:
//
//	gj := float64(g)·Scale
//	m = Beta1·m + OneMinusBeta1·gj
//	v = Beta2·v + (OneMinusBeta2·gj)·gj
//	x := float64(w)
//	w = float32(x − LR·((m/BC1)/(√(v/BC2) + Eps) + WD·x))
//
// so the caller finishes the rest with that scalar code and gets the same bits.
func AdamVec32(w, g []float32, m, v []float64, c *AdamCoef) int {
	n := len(w) &^ 7
	if !useKernels || !haveKernels || n == 0 {
		return 0
	}
	adamKernel(w[:n], g[:n], m[:n], v[:n], c)
	return n
}

// adamKernel is AdamVec32's kernel: adamStep8 (AVX-512) or adamStep4 (AVX2), the same bits.
var adamKernel = func() func(w, g []float32, m, v []float64, c *AdamCoef) {
	if haveAVX512 {
		return adamStep8
	}
	return adamStep4
}()
