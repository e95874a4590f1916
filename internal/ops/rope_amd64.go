//go:build amd64 && !purego

package ops

import "golang.org/x/sys/cpu"

// rotVector sends RoPE's float32 rotation through rotPairs8 (AVX); the tests turn it off to
// compare.
var rotVector = cpu.X86.HasAVX

// rotPairs8 rotates the first n values (a multiple of 8, ≥ 8) of each of heads heads of dh values
// from x into y (rope_amd64.s): y[2i] = x[2i]·cs[2i] − x[2i+1]·sc[2i], y[2i+1] = x[2i]·cs[2i+1] +
// x[2i+1]·sc[2i+1], each product rounded to float32 (no fused multiply-add), with cs = c₀ s₀ c₁
// s₁ … and sc = s₀ c₀ s₁ c₁ …: rotateRows' operations in its order.
//
//go:noescape
func rotPairs8(x, y, cs, sc *float32, heads, dh, n int)
