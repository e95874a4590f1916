package claims

import (
	"fmt"
	"math"
	"strings"

	"github.com/posformer/posformer/internal/stats"
	"github.com/posformer/posformer/train"
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
	return fmt.Sprintf(`**How verdicts are reached** (claims/rules.go, train/chance.go, internal/stats). For each run, a score is its mean over the claim's test lengths in the claim's metric; scores are compared over runs (seeds). Every interval is a %.0f%% t interval.

- **Ranking A > B**: Welch's t interval of mean(A) − mean(B). *Reproduced* when it lies above 0, *contradicted* when it lies below 0, *inconclusive* otherwise (with three seeds only large gaps pass). Seeds whose scores do not vary at all give a zero-width interval.
- **Learned in range**: a cell whose mean in-range score is below the file's learned bar (statistic.learned) has not learned the task and is not judged: *untested*, naming the cell and its in-range score. A cell with fewer than 2 runs is refused when the file is read.
- **Chance**: what guessing scores, per output token 1/k for k possible values, exact match (1/k)^n for an n-token answer. A score is *within noise of chance* when the upper end of the interval of its mean is at most chance + %.2f, and *clearly above chance* when the lower end exceeds chance + %.2f. When both sides of a ranking are within noise of chance the verdict is *inconclusive (chance)*.
- **Extrapolates to**: the longest tested length up to which the score stays clearly above chance at every tested length.
- **Equivalence A ≈ B (margin m)**: *reproduced* when the Welch interval of A − B lies within ±m; *contradicted* when it excludes 0 and |A − B| ≥ m; *inconclusive* otherwise.
- **Shape**: *stays above to k·L*: reproduced when the cell extrapolates to at least k·L (L the longest training length), contradicted otherwise; *falls by k·L*: reproduced when it extrapolates to at most k·L, contradicted otherwise.
- **A ahead of all**: A against every other cell of its task that learned it, each a ranking: *reproduced* when every ranking is reproduced; *contradicted* when one is (naming the first cell ahead of A); *inconclusive (chance)* when A and all the others are within noise of chance; *inconclusive* otherwise.
- **Paper order**: every pair the paper ranks A > B is a ranking; a pair whose paper gap is below the claim's min_gap is listed with our numbers but not judged or counted.
- **Family headline**: the mean over the family's pairs of (ours in the paper's statistic) A − B. *Reproduced* when that mean is positive, at least one pair is reproduced and none is contradicted (with the number of untested pairs said); *contradicted* when a pair is contradicted; *untested* when every pair is untested; *inconclusive* otherwise.

Each claim is judged on its own at %.0f%%, without a correction for the many claims of a table: where the two sides do not differ, about one claim in twenty still reads *reproduced* or *contradicted* by chance alone.
`, train.Level*100, train.ChanceMargin, train.ChanceMargin, train.Level*100)
}

// rank judges "A > B" from the two cells' per-run scores in the range (a, b, with the mean
// chance there) and in range (inA, inB) against the learned bar.
func rank(nameA, nameB string, a, b, inA, inB []float64, chance, learned float64) (stats.Interval, string) {
	iv := stats.Welch(a, b, train.Level)
	ma, mb := meanOf(inA), meanOf(inB)
	switch {
	case len(a) == 0 || len(b) == 0:
		return iv, Untested + " (no runs in the range)"
	case ma < learned:
		return iv, fmt.Sprintf("%s (%s not learned in range: %.3f)", Untested, nameA, ma)
	case mb < learned:
		return iv, fmt.Sprintf("%s (%s not learned in range: %.3f)", Untested, nameB, mb)
	case train.AtChance(a, chance) && train.AtChance(b, chance):
		return iv, Inconclusive + " (chance)"
	case iv.Lo > 0:
		return iv, Reproduced
	case iv.Hi < 0:
		return iv, Contradicted
	}
	return iv, Inconclusive
}

// equivalence judges "A ≈ B within ±margin".
func equivalence(nameA, nameB string, a, b, inA, inB []float64, margin, learned float64) (stats.Interval, string) {
	iv := stats.Welch(a, b, train.Level)
	switch {
	case meanOf(inA) < learned:
		return iv, fmt.Sprintf("%s (%s not learned in range: %.3f)", Untested, nameA, meanOf(inA))
	case meanOf(inB) < learned:
		return iv, fmt.Sprintf("%s (%s not learned in range: %.3f)", Untested, nameB, meanOf(inB))
	case iv.Lo > -margin && iv.Hi < margin:
		return iv, Reproduced
	case iv.Excludes0() && math.Abs(iv.Diff) >= margin:
		return iv, Contradicted
	}
	return iv, Inconclusive
}

// shape judges a cell's extrapolation length x against k·L.
func shape(name string, x, L int, in []float64, staysAbove, fallsBy, learned float64) string {
	switch {
	case meanOf(in) < learned:
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

// aheadOfAll judges "A is ahead of every other learned cell".
func aheadOfAll(name string, near, in []float64, chance, learned float64, others []rival) string {
	if meanOf(in) < learned {
		return fmt.Sprintf("%s (%s not learned in range: %.3f)", Untested, name, meanOf(in))
	}
	allChance, ahead, behind := train.AtChance(near, chance), true, ""
	for _, o := range others {
		_, v := rank(name, o.name, near, o.near, in, o.in, chance, learned)
		if !train.AtChance(o.near, chance) {
			allChance = false
		}
		if v != Reproduced {
			ahead = false
		}
		if v == Contradicted && behind == "" {
			behind = o.name
		}
	}
	switch {
	case len(others) == 0:
		return Untested + " (no other cell learned the task)"
	case allChance:
		return Inconclusive + " (chance)"
	case behind != "":
		return Contradicted + " (" + behind + " is ahead)"
	case ahead:
		return Reproduced
	}
	return Inconclusive
}

// headline judges a family's headline from its pairs' verdicts and gains.
func headline(verdicts []string, gains []float64) string {
	count := map[string]int{}
	for _, v := range verdicts {
		count[classOf(v)]++
	}
	switch {
	case len(verdicts) == 0 || count[Untested] == len(verdicts):
		return Untested + " (no pair could be judged)"
	case count[Contradicted] > 0:
		return Contradicted
	case count[Reproduced] > 0 && meanOf(gains) > 0:
		if n := count[Untested]; n > 0 {
			return fmt.Sprintf("%s in the %d of %d pairs that could be judged (%d untested)", Reproduced, len(verdicts)-n, len(verdicts), n)
		}
		return Reproduced
	}
	return Inconclusive
}
