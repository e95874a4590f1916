// Package pmath is the math functions a run's results depend on, with amd64's bits on every CPU.
//
// Go's math functions are not the same code on every architecture: Exp and Log are assembly on
// amd64 (math/exp_amd64.s, math/log_amd64.s) and other code elsewhere, and the functions written
// in Go (Sincos, Cos, Pow, Log1p, Expm1, Erf) are compiled on arm64 with products and sums fused into
// FMAs, which amd64's default build never does. Each function here is the math function itself
// on amd64, and elsewhere a portable version: Go's code (or amd64's assembly) with every product
// converted to float64, so that no compiler fuses it, which gives amd64's bits (the tests check
// each against math on amd64 over many arguments, and against amd64's hashes on other CPUs).
package pmath

import (
	"math"
	"runtime"
)

// onAMD64 is whether math's functions are amd64's own.
const onAMD64 = runtime.GOARCH == "amd64"

// Exp is math.Exp with amd64's bits (its FMA path, the one every AVX2 CPU takes).
func Exp(x float64) float64 {
	if onAMD64 {
		return math.Exp(x)
	}
	return expPortable(x)
}

// Log is math.Log with amd64's bits.
func Log(x float64) float64 {
	if onAMD64 {
		return math.Log(x)
	}
	return logPortable(x)
}

// Pow is math.Pow with amd64's bits.
func Pow(x, y float64) float64 {
	if onAMD64 {
		return math.Pow(x, y)
	}
	return powPortable(x, y)
}

// Sincos is math.Sincos with amd64's bits.
func Sincos(x float64) (sin, cos float64) {
	if onAMD64 {
		return math.Sincos(x)
	}
	return sincosPortable(x)
}

// Cos is math.Cos with amd64's bits.
func Cos(x float64) float64 {
	if onAMD64 {
		return math.Cos(x)
	}
	_, c := sincosPortable(x)
	return c
}

// Log1p is math.Log1p with amd64's bits.
func Log1p(x float64) float64 {
	if onAMD64 {
		return math.Log1p(x)
	}
	return log1pPortable(x)
}

// Expm1 is math.Expm1 with amd64's bits.
func Expm1(x float64) float64 {
	if onAMD64 {
		return math.Expm1(x)
	}
	return expm1Portable(x)
}
