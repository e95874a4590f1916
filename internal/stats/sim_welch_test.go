package stats

import "math"

// welchScreen answers Welch(a, b, level).Excludes0() with the same result, faster: the simulation asks
// it millions of times and each exact t quantile costs microseconds. It keeps the t quantile on a grid
// of degrees of freedom; Welch's quantile at ν lies between the grid's values at the points around ν
// (the quantile falls as ν grows), so |d| above the larger or below the smaller (with a margin for the
// quantile's own rounding) settles the answer, and anything in between, or off the grid, is asked of
// Welch itself. TestWelchScreen checks it against Welch on many samples.
type welchScreen struct {
	level float64
	qs    []float64 // qs[j] = TQuantile((1+level)/2, 1 + j·screenStep)
}

const (
	screenStep   = 0.01
	screenMaxDF  = 40 // 2·20 − 2, the most a Welch interval of 20 seeds a side can have
	screenMargin = 1e-9
)

func newWelchScreen(level float64) *welchScreen {
	n := int((screenMaxDF-1)/screenStep) + 2
	s := &welchScreen{level: level, qs: make([]float64, n)}
	for j := range s.qs {
		s.qs[j] = TQuantile((1+level)/2, 1+float64(j)*screenStep)
	}
	return s
}

// excludes0 is Welch(a, b, s.level).Excludes0().
func (s *welchScreen) excludes0(a, b []float64) bool {
	if len(a) < 2 || len(b) < 2 {
		return false
	}
	ma, va := MeanVar(a)
	mb, vb := MeanVar(b)
	d := math.Abs(ma - mb)
	qa, qb := va/float64(len(a)), vb/float64(len(b))
	se2 := qa + qb
	if se2 == 0 {
		return d != 0 // Welch's point interval
	}
	df := se2 * se2 / (qa*qa/float64(len(a)-1) + qb*qb/float64(len(b)-1))
	j := int(math.Floor((df - 1) / screenStep))
	if j >= 0 && j+1 < len(s.qs) {
		se := math.Sqrt(se2)
		if d > s.qs[j]*se*(1+screenMargin) {
			return true
		}
		if d < s.qs[j+1]*se*(1-screenMargin) {
			return false
		}
	}
	return Welch(a, b, s.level).Excludes0()
}
