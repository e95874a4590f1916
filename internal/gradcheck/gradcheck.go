// Package gradcheck compares analytic gradients with central finite differences in float64.
package gradcheck

import "math"

// DefaultStep is the finite-difference step h.
const DefaultStep = 1e-6

// Numeric returns the central finite-difference gradient (f(x+h·eᵢ) − f(x−h·eᵢ)) / 2h of f with
// respect to every element of x. It perturbs x in place and restores each element exactly.
func Numeric(f func() (float64, error), x []float64, h float64) ([]float64, error) {
	g := make([]float64, len(x))
	for i := range x {
		orig := x[i]
		x[i] = orig + h
		fp, err := f()
		if err != nil {
			x[i] = orig
			return nil, err
		}
		x[i] = orig - h
		fm, err := f()
		x[i] = orig
		if err != nil {
			return nil, err
		}
		g[i] = (fp - fm) / (2 * h)
	}
	return g, nil
}

// Norm is the Euclidean norm.
func Norm(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v * v
	}
	return math.Sqrt(s)
}

// ZeroFloor is the norm below which a numeric gradient is taken to be exactly zero: central
// differences of a float64 loss with h = 1e-6 carry noise of about 1e-10, so their relative error
// means nothing there. (The key bias of attention without RoPE is such a case: softmax ignores the
// constant q·b_k that it adds to a whole row of logits.)
const ZeroFloor = 1e-7

// Compare returns the relative error ‖a − n‖/‖n‖ and false, or, when the numeric gradient's
// norm is below ZeroFloor, the absolute error ‖a − n‖ and true.
func Compare(a, n []float64) (err float64, absolute bool) {
	if Norm(n) < ZeroFloor {
		d := make([]float64, len(a))
		for i := range a {
			d[i] = a[i] - n[i]
		}
		return Norm(d), true
	}
	return RelErr(a, n), false
}

// RelErr is ‖a − n‖ / ‖n‖, or ‖a − n‖ when ‖n‖ is zero.
func RelErr(a, n []float64) float64 {
	var d, s float64
	for i := range a {
		d += (a[i] - n[i]) * (a[i] - n[i])
		s += n[i] * n[i]
	}
	if s == 0 {
		return math.Sqrt(d)
	}
	return math.Sqrt(d / s)
}
