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
