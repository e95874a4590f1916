package claims

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/posformer/posformer/internal/presence"
	"github.com/posformer/posformer/internal/stats"
)

// Sequential is a claims file's sequential design (its sequential: key): the claims are judged
// again after each new seed a cell (a look) with intervals that stay valid however often one
// looks and whenever one stops, and `claims -decide` trains the next seed of the cells of the
// claims still open until each is decided or the budget is spent. Without it a file is judged
// once, on the seeds its tables hold (fixed n).
type Sequential struct {
	// Alpha is each comparison's error rate (default 1 − stats.Level, 0.05).
	Alpha float64 `yaml:"alpha"`
	// MaxSeeds is the most seeds `claims -decide` trains a cell to (default 10).
	MaxSeeds int `yaml:"max_seeds"`
	// Claims are the ids of the claims judged sequentially (default: every claim); the others
	// are judged on all the seeds their tables hold, with the fixed-n rules.
	Claims []string `yaml:"claims"`
	// Converge, when given, has `claims -decide` train a cell that did not learn in range again
	// to convergence instead of the grid's fixed steps: early stopping at the learned bar, at most
	// max_steps (converge.go).
	Converge Converge `yaml:"converge"`

	Written presence.Keys `yaml:"-"`
	// on: the file writes sequential: (perhaps {}, every default)
	on bool
}

// On tells whether the file has a sequential design.
func (s Sequential) On() bool { return s.on }

// DefaultMaxSeeds is Sequential.MaxSeeds when the file does not give it.
const DefaultMaxSeeds = 10

// MostSeeds bounds max_seeds (and -decide's -max-seeds): the most seeds a cell is trained to.
const MostSeeds = 1000

// check validates the design and fills its defaults.
func (s *Sequential) check(f *File) error {
	if !s.On() {
		return nil
	}
	if !s.Written.Has("alpha") {
		s.Alpha = 1 - stats.Level
	}
	if !(s.Alpha > 0 && s.Alpha < 0.5) {
		return f.errAt("sequential.alpha", "%g is not an error rate in (0, 0.5): give e.g. alpha: 0.05", s.Alpha)
	}
	if !s.Written.Has("max_seeds") {
		s.MaxSeeds = DefaultMaxSeeds
	}
	if s.MaxSeeds < 2 || s.MaxSeeds > MostSeeds {
		return f.errAt("sequential.max_seeds", "%d: a cell needs at least 2 seeds to be judged; give 2 to %d, e.g. max_seeds: 10", s.MaxSeeds, MostSeeds)
	}
	if err := s.Converge.check(f); err != nil {
		return err
	}
	var ids []string
	for _, c := range f.Claims {
		ids = append(ids, c.ID)
	}
	for i, id := range s.Claims {
		if slices.Contains(s.Claims[:i], id) {
			return f.errAt(fmt.Sprintf("sequential.claims[%d]", i), "names %q twice: name each claim once", id)
		}
		if !slices.Contains(ids, id) {
			return f.errAt(fmt.Sprintf("sequential.claims[%d]", i), "no claim has the id %q: give ids of this file's claims (%s)", id, strings.Join(ids, ", "))
		}
	}
	return nil
}

// judges tells whether the design judges the claim sequentially.
func (s Sequential) judges(c *Claim) bool {
	if !s.On() {
		return false
	}
	if len(s.Claims) == 0 {
		return true
	}
	for _, id := range s.Claims {
		if id == c.ID {
			return true
		}
	}
	return false
}

// design is how the intervals of a judgement are computed: once over the seeds held (fixed n),
// or at a look of a sequential design (the intervals of the seeds of that look, valid whenever
// one looks).
type design struct {
	seq   bool
	alpha float64
}

// fixedN is the design of a file judged once.
var fixedN = design{alpha: 1 - stats.Level}

// diff is the interval of mean(A) − mean(B) in the metric's units (A's scores a, B's b, their
// runs' sampling floors fa, fb):
//   - fixed n, bounded metric: Welch's interval with each side's variance at least its runs'
//     binomial sampling variance (stats.WelchFloor), within [−1, 1];
//   - fixed n, unbounded metric (bits per byte): Welch's; when neither side varies at all there
//     is no interval (NaN bounds: no decision from a zero-width interval);
//   - sequential, bounded: the betting confidence sequence of the paired differences (the i-th
//     seed of A less the i-th of B, seeds ascending), at the look;
//   - sequential, unbounded: Welch's interval at level 1 − α/(k(k+1)), k the look (k = 1 with 2
//     seeds a cell).
func (d design) diff(metric string, a, b, fa, fb []float64) stats.Interval {
	bounded := hasChance(metric)
	if !d.seq {
		if !bounded {
			iv := stats.Welch(a, b, 1-d.alpha)
			if iv.Lo == iv.Hi {
				iv.Lo, iv.Hi = math.NaN(), math.NaN()
			}
			return iv
		}
		iv := stats.WelchFloor(a, b, meanOf(fa), meanOf(fb), 1-d.alpha)
		iv.Lo, iv.Hi = max(iv.Lo, -1), min(iv.Hi, 1)
		return iv
	}
	n := min(len(a), len(b))
	if !bounded {
		return stats.SpentWelch(a[:n], b[:n], n-1, d.alpha)
	}
	dd := make([]float64, n)
	for i := range dd {
		dd[i] = a[i] - b[i]
	}
	iv := stats.Interval{Diff: meanOf(dd), Level: 1 - d.alpha, Lo: math.NaN(), Hi: math.NaN(), DF: math.NaN()}
	if n >= 2 {
		cs := stats.BettingCS(dd, -1, 1, d.alpha)
		iv.Lo, iv.Hi = cs[n-1].Lo, cs[n-1].Hi
	}
	return iv
}

// mean is the interval of the mean of xs (runs' sampling floors fs) of a quantity within [lo,
// hi] (a score in [0, 1], a change in [−1, 1]; unbounded: ±Inf), by the same rules as diff.
func (d design) mean(xs, fs []float64, lo, hi float64) (m, l, h float64) {
	bounded := !math.IsInf(lo, 0) && !math.IsInf(hi, 0)
	m = meanOf(xs)
	if len(xs) < 2 {
		return m, math.NaN(), math.NaN()
	}
	switch {
	case !d.seq && bounded:
		return stats.MeanIntervalFloor(xs, meanOf(fs), lo, hi, 1-d.alpha)
	case !d.seq:
		m, l, h = stats.MeanInterval(xs, 1-d.alpha)
		if l == h {
			l, h = math.NaN(), math.NaN()
		}
		return m, l, h
	case bounded:
		cs := stats.BettingCS(xs, lo, hi, d.alpha)
		return m, cs[len(xs)-1].Lo, cs[len(xs)-1].Hi
	}
	k := len(xs) - 1
	return stats.MeanInterval(xs, 1-d.alpha/float64(k*(k+1)))
}

// scoreMean is the interval of a mean of scores in the metric (within [0, 1] when bounded).
func (d design) scoreMean(metric string, xs, fs []float64) (m, l, h float64) {
	if hasChance(metric) {
		return d.mean(xs, fs, 0, 1)
	}
	return d.mean(xs, fs, math.Inf(-1), math.Inf(1))
}

// aboveChance: the lower end of the interval of the mean lies above chance + the margin
// (clearly above chance).
func (d design) aboveChance(xs, fs []float64, chance float64) bool {
	_, l, _ := d.mean(xs, fs, 0, 1)
	return l > chance+stats.ChanceMargin
}

// atChance: the upper end of the interval of the mean is at most chance + the margin (within
// noise of chance).
func (d design) atChance(xs, fs []float64, chance float64) bool {
	_, _, h := d.mean(xs, fs, 0, 1)
	return h <= chance+stats.ChanceMargin
}

// rule states how the design's intervals are computed, for a document.
func (d design) rule() string {
	if !d.seq {
		return fmt.Sprintf("fixed n, %.0f%% intervals", 100*(1-d.alpha))
	}
	return fmt.Sprintf("sequential, α = %g per comparison", d.alpha)
}

// FewestDecisive is the fewest seeds a cell at which the betting confidence sequence at alpha can
// decide a comparison of scores in [0, 1] at all: every paired difference the largest it can be
// (docs/statistics.md's bound table); a sequential design whose max_seeds is below it decides no
// such claim.
func FewestDecisive(alpha float64) int {
	ones := make([]float64, 1000)
	for i := range ones {
		ones[i] = 1
	}
	for t, b := range stats.BettingCS(ones, -1, 1, alpha) {
		if b.Lo > 0 {
			return t + 1
		}
	}
	return len(ones) + 1
}

// Bounded tells whether the file judges scores in [0, 1] (a metric with a chance level).
func (f *File) Bounded() bool { return hasChance(f.Statistic.Metric) }
