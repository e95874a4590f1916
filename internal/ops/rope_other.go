//go:build !amd64 || purego

package ops

// rotVector is false: no vector rotation on this architecture (rotateRows' Go loop).
var rotVector = false

func rotPairs8(x, y, cs, sc *float32, heads, dh, n int) { panic("ops: rotPairs8 without its kernel") }
