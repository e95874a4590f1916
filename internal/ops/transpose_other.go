//go:build !amd64 || purego

package ops

// transposeRows has no vector code here: copyA packs a transposed A into panels instead.
func transposeRows(dst []float32, ldd int, src []float32, lds, rows, cols int) bool { return false }
