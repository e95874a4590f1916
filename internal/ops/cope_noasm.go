//go:build !amd64 || purego

package ops

// CoPE's vector kernels in Go, lane by lane (cope_lanes.go): the amd64 assembly's bits.

func copeGates8(g, z []float32) { copeGates8Lanes(g, z) }
func copeScan8(row, g, l []float32, top, carry float32) float32 {
	return copeScan8Lanes(row, g, l, top, carry)
}
func copeSuffix8(raw, g []float32, carry float32) float32 { return copeSuffix8Lanes(raw, g, carry) }
func copeGrad8(dz, g, p, raw, l, cf, cc []float32, fi, ci []int32, top, dot, carry float32) float32 {
	return copeGrad8Lanes(dz, g, p, raw, l, cf, cc, fi, ci, top, dot, carry)
}
