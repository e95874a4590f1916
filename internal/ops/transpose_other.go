//go:build (!amd64 && !arm64) || purego

package ops

// transposeRows has no vector code here (haveKernels is false: copyA never transposes, and
// packBT16 goes by its own blocks).
func transposeRows(dst []float32, ldd int, src []float32, lds, rows, cols int) bool { return false }
