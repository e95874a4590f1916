//go:build (!amd64 && !arm64) || purego

package ops

// geluFwd8x2 and geluBwd8x2 are never called here (useKernels is false); the stubs satisfy the
// compiler.
func geluFwd8x2(x, y []float32)    {}
func geluBwd8x2(x, g, y []float32) {}
