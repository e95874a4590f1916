package stats

import "math"

// Stat summarises one number over seeds.
type Stat struct {
	Mean float64 `json:"mean"`
	Std  float64 `json:"std"` // sample standard deviation (n−1); 0 for one seed
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
	N    int     `json:"n"`
}

// NewStat summarises xs.
func NewStat(xs []float64) Stat {
	if len(xs) == 0 {
		return Stat{Mean: math.NaN(), Std: math.NaN(), Min: math.NaN(), Max: math.NaN()}
	}
	s := Stat{Min: xs[0], Max: xs[0], N: len(xs)}
	for _, x := range xs {
		s.Mean += x
		s.Min, s.Max = math.Min(s.Min, x), math.Max(s.Max, x)
	}
	s.Mean /= float64(len(xs))
	if len(xs) > 1 {
		var q float64
		for _, x := range xs {
			q += (x - s.Mean) * (x - s.Mean)
		}
		s.Std = math.Sqrt(q / float64(len(xs)-1))
	}
	return s
}
