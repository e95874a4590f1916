//go:build !amd64 || purego

package ops

// geluFwd8x2 is never called here (useKernels is false); the stub satisfies the compiler.
func geluFwd8x2(x, y []float32) {}
