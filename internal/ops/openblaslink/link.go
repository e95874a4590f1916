//go:build openblas

// It is a package of its own because a cgo package cannot also hold Go assembly (internal/ops does).
package openblaslink

// #cgo LDFLAGS: -lopenblas
// extern void openblas_set_num_threads(int num_threads);
import "C"

// SetThreads sets the number of threads OpenBLAS uses for one call.
func SetThreads(n int) { C.openblas_set_num_threads(C.int(n)) }
