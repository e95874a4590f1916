//go:build !amd64 || purego

package ops

// packRowsWide has no vector code here: packB goes panel by panel.
func packRowsWide[F Float](b []F, ldb, pc, jc, kc, np int, bp []F) bool { return false }

// tnTransposed: gemmTNSums keeps its orientation here.
func tnTransposed(m, n, k int) bool { return false }
