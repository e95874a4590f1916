package claims

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/posformer/posformer/internal/stats"
	"github.com/posformer/posformer/report"
)

// The verdicts' first words; a verdict may add its reason in parentheses.
const (
	Reproduced   = "reproduced"
	Contradicted = "contradicted"
	Inconclusive = "inconclusive"
	Untested     = "untested"
)

// classOf is a verdict's first word.
func classOf(v string) string {
	w, _, _ := strings.Cut(v, " ")
	return w
}

// Rules is the statement of the verdict rules, printed once in docs/claims/README.md; every
// function below applies one of them.
func Rules() string {
	return fmt.Sprintf(`**How verdicts are reached** (claims/rules.go, report/chance.go, internal/stats). For each run, a score is its mean over the claim's test lengths in the claim's metric; scores are compared over runs (seeds). Every interval is a %.0f%% t interval: of a mean over runs, the t interval with n − 1 degrees of freedom; of a difference of two cells' means, Welch's.

- **Direction**: higher is better for exact match and token accuracy, lower for bits per byte (bits_per_byte, sliding_bits_per_byte: a language model's). *Ahead*, *learned*, *best* and *on A's side* below are in the metric's direction; numbers are printed in the metric's own units (A − B of bits per byte is negative when A is ahead).
- **Ranking A > B** (A ahead of B): Welch's t interval of mean(A) − mean(B). *Reproduced* when it lies wholly on A's side of 0 (above 0; below 0 when lower is better), *contradicted* when it lies wholly on B's side, *inconclusive* otherwise (with three seeds only large gaps pass). Seeds whose scores do not vary at all give a zero-width interval.
- **Learned in range**: a cell whose mean in-range score falls short of the file's learned bar (statistic.learned: below it, above it when lower is better) has not learned the task and is not judged: *untested*, naming the cell and its in-range score. A cell with fewer than 2 runs is refused when the file is read.
- **Chance**: what guessing scores: per output token 1/k for k possible values, exact match (1/k)^n for an n-token answer; for a task whose answers are padded or skewed (binary_addition's zero-padded sum, sort's ordered slots, a value mod 5 that × skews towards 0), what its best constant answer scores: per token the value each answer slot most often takes, exact match the most likely answer (data.BaselineOf; [docs/tasks.md](../tasks.md#baselines) gives each task's). A score is *within noise of chance* when the upper end of the interval of its mean is at most chance + %.2f, and *clearly above chance* when the lower end exceeds chance + %.2f. When both sides of a ranking are within noise of chance the verdict is *inconclusive (chance)*. Bits per byte have no chance level here: neither this rule nor *extrapolates to* nor a shape claim applies to them.
- **Extrapolates to**: the longest tested length up to which the score stays clearly above chance at every tested length; a length where chance is within %.2f of 1, so that no score can clear it (binary_addition's lengths 1 to 3, whose answer is fixed), is skipped.
- **Equivalence A ≈ B (margin m)**: *reproduced* when the Welch interval of A − B lies within ±m; *contradicted* when it excludes 0 and |A − B| ≥ m; *inconclusive* otherwise.
- **Shape**: *stays above to k·L*: reproduced when the cell extrapolates to at least k·L (L the longest training length), contradicted otherwise; *falls by k·L*: reproduced when it extrapolates to at most k·L, contradicted otherwise.
- **A ahead of all**: A against every other cell of its task that learned it, each a ranking: *reproduced* when every ranking is reproduced; *contradicted* when one is (naming the first cell ahead of A); *inconclusive (chance)* when A and all the others are within noise of chance; *inconclusive* otherwise.
- **Paper order**: every pair the paper ranks A > B is a ranking; a pair whose paper gap is below the claim's min_gap is listed with our numbers but not judged or counted.
- **Family headline**: the mean over the family's pairs that could be judged (every pair not *untested*) of (ours in the paper's statistic) A − B, and beside it, when some pair is untested, the mean over all its pairs. *Reproduced* when the judged pairs' mean is on A's side of 0, at least one pair is reproduced and none is contradicted (with the number of untested pairs said); *contradicted* when a pair is contradicted; *untested* when every pair is untested; *inconclusive* otherwise.
- **Change from training** (at_most m, or at_least m): a cell against itself. Per run, its score at each tested length past the longest training length L minus its own score at L; at each length the t interval of the mean of these changes over runs. At a length, at most m is *reproduced* when the interval lies below m, *contradicted* when it lies above m, *inconclusive* otherwise (at least m: the other way round). Over the lengths: *contradicted* when a length is, *reproduced* when every length is, *inconclusive* otherwise; *untested* when the cell did not learn in range.

Each claim is judged on its own at %.0f%%, without a correction for the many claims of a table: where the two sides do not differ, about one claim in twenty still reads *reproduced* or *contradicted* by chance alone.
`, report.Level*100, report.ChanceMargin, report.ChanceMargin, report.ChanceMargin, report.Level*100)
}

// rank judges "A > B" (A ahead of B in the metric's direction) from the two cells' per-run
// scores in the range (a, b, with the mean chance there) and in range (inA, inB) against the
// learned bar. The interval is of A − B in the metric's units: A is ahead when it lies above 0,
// or below 0 when lower is better.
func rank(metric, nameA, nameB string, a, b, inA, inB []float64, chance, learned float64) (stats.Interval, string) {
	iv := stats.Welch(a, b, report.Level)
	ma, mb := meanOf(inA), meanOf(inB)
	aheadLo, aheadHi := iv.Lo, iv.Hi // the interval of A's advantage over B
	if lowerBetter(metric) {
		aheadLo, aheadHi = -iv.Hi, -iv.Lo
	}
	switch {
	case len(a) == 0 || len(b) == 0:
		return iv, Untested + " (no runs in the range)"
	case notLearned(metric, ma, learned):
		return iv, fmt.Sprintf("%s (%s not learned in range: %.3f)", Untested, nameA, ma)
	case notLearned(metric, mb, learned):
		return iv, fmt.Sprintf("%s (%s not learned in range: %.3f)", Untested, nameB, mb)
	case hasChance(metric) && report.AtChance(a, chance) && report.AtChance(b, chance):
		return iv, Inconclusive + " (chance)"
	case aheadLo > 0:
		return iv, Reproduced
	case aheadHi < 0:
		return iv, Contradicted
	}
	return iv, Inconclusive
}

// equivalence judges "A ≈ B within ±margin".
func equivalence(metric, nameA, nameB string, a, b, inA, inB []float64, margin, learned float64) (stats.Interval, string) {
	iv := stats.Welch(a, b, report.Level)
	switch {
	case notLearned(metric, meanOf(inA), learned):
		return iv, fmt.Sprintf("%s (%s not learned in range: %.3f)", Untested, nameA, meanOf(inA))
	case notLearned(metric, meanOf(inB), learned):
		return iv, fmt.Sprintf("%s (%s not learned in range: %.3f)", Untested, nameB, meanOf(inB))
	case iv.Lo > -margin && iv.Hi < margin:
		return iv, Reproduced
	case iv.Excludes0() && math.Abs(iv.Diff) >= margin:
		return iv, Contradicted
	}
	return iv, Inconclusive
}

// shape judges a cell's extrapolation length x against k·L.
func shape(metric, name string, x, L int, in []float64, staysAbove, fallsBy, learned float64) string {
	switch {
	case notLearned(metric, meanOf(in), learned):
		return fmt.Sprintf("%s (%s not learned in range: %.3f)", Untested, name, meanOf(in))
	case staysAbove > 0 && float64(x) >= staysAbove*float64(L), fallsBy > 0 && float64(x) <= fallsBy*float64(L):
		return Reproduced
	}
	return Contradicted
}

// rival is a cell A is compared with in an ahead_of_all claim.
type rival struct {
	name     string
	near, in []float64
}

// aheadOfAll judges "A is ahead of every other learned cell"; a contradiction names the best of
// the rivals ahead of A (the top of the ranking), whatever the order of others.
func aheadOfAll(metric, name string, near, in []float64, chance, learned float64, others []rival) string {
	if notLearned(metric, meanOf(in), learned) {
		return fmt.Sprintf("%s (%s not learned in range: %.3f)", Untested, name, meanOf(in))
	}
	allChance, isAhead, behind, behindMean := hasChance(metric) && report.AtChance(near, chance), true, "", 0.0
	for _, o := range others {
		_, v := rank(metric, name, o.name, near, o.near, in, o.in, chance, learned)
		if !report.AtChance(o.near, chance) {
			allChance = false
		}
		if v != Reproduced {
			isAhead = false
		}
		if v == Contradicted && (behind == "" || ahead(metric, meanOf(o.near), behindMean) > 0) {
			behind, behindMean = o.name, meanOf(o.near)
		}
	}
	switch {
	case len(others) == 0:
		return Untested + " (no other cell learned the task)"
	case allChance:
		return Inconclusive + " (chance)"
	case behind != "":
		return Contradicted + " (" + behind + " is ahead)"
	case isAhead:
		return Reproduced
	}
	return Inconclusive
}

// headline judges a family's headline from its pairs' verdicts and the gains (A − B in the
// metric's units) of the pairs that could be judged.
func headline(metric string, verdicts []string, gains []float64) string {
	count := map[string]int{}
	for _, v := range verdicts {
		count[classOf(v)]++
	}
	switch {
	case len(verdicts) == 0 || count[Untested] == len(verdicts):
		return Untested + " (no pair could be judged)"
	case count[Contradicted] > 0:
		return Contradicted
	case count[Reproduced] > 0 && ahead(metric, meanOf(gains), 0) > 0:
		if n := count[Untested]; n > 0 {
			return fmt.Sprintf("%s in the %d of %d pairs that could be judged (%d untested)", Reproduced, len(verdicts)-n, len(verdicts), n)
		}
		return Reproduced
	}
	return Inconclusive
}

// changeAt judges a cell's change from its training length at one length, from its per-run
// changes d (score there minus score at the training length): with atMost, *reproduced* when
// the t interval of their mean lies below the bound, *contradicted* when it lies above it; else
// (at least) the other way round; *inconclusive* when it holds the bound.
func changeAt(d []float64, bound float64, atMost bool) (stats.Interval, string) {
	m, lo, hi := stats.MeanInterval(d, report.Level)
	iv := stats.Interval{Diff: m, Lo: lo, Hi: hi}
	below, above := hi < bound, lo > bound
	switch {
	case atMost && below, !atMost && above:
		return iv, Reproduced
	case atMost && above, !atMost && below:
		return iv, Contradicted
	}
	return iv, Inconclusive
}

// changeOverall is a change_from_training claim's verdict over its lengths: *untested* when the
// cell did not learn in range; *contradicted* when a length is (naming those that are);
// *reproduced* when every length is; *inconclusive* otherwise (naming the lengths that are not
// reproduced).
func changeOverall(metric, name string, in []float64, learned float64, at []change) string {
	if notLearned(metric, meanOf(in), learned) {
		return fmt.Sprintf("%s (%s not learned in range: %.3f)", Untested, name, meanOf(in))
	}
	var contra, open []string
	for _, c := range at {
		switch c.verdict {
		case Contradicted:
			contra = append(contra, strconv.Itoa(c.length))
		case Inconclusive:
			open = append(open, strconv.Itoa(c.length))
		}
	}
	switch {
	case len(contra) > 0:
		return fmt.Sprintf("%s (at %s)", Contradicted, strings.Join(contra, ", "))
	case len(open) > 0:
		return fmt.Sprintf("%s (at %s)", Inconclusive, strings.Join(open, ", "))
	}
	return Reproduced
}
