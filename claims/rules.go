package claims

import (
	"fmt"
	"strings"

	"github.com/posformer/posformer/internal/stats"
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

// Rules is the statement of the verdict rules, printed once in docs/claims/README.md: the rules
// every kind applies (below), then each kind's (its rule, registered with it).
func Rules() string {
	var rest []string // the rules of the kinds but the first (the ranking), which the others build on
	for _, k := range kinds[1:] {
		rest = append(rest, "- "+k.rule)
	}
	return fmt.Sprintf(`**How verdicts are reached** (claims/rules.go, internal/stats, metric/chance.go). For each run, a score is its mean over the claim's test lengths in the claim's metric; scores are compared over runs (seeds). Every interval is a %.0f%% interval, computed as [docs/statistics.md](../statistics.md) states: with a fixed number of seeds, of a mean over runs the t interval with n − 1 degrees of freedom, of a difference of two cells' means Welch's, each side's variance at least the binomial sampling variance of its runs' scores (a score in [0, 1] is a fraction of each length's answers, N of them: p̃(1 − p̃)/N with p̃ = (pN + ½)/(N + 1), averaged over the lengths; N is the n test examples for exact match, and n times the answer's tokens for token accuracy, its tokens taken as independent, so that the floor is the least sampling variance the score can have), so that seeds scoring alike never give a zero-width interval, and within the range the quantity can take ([0, 1] for a mean of scores, [−1, 1] for a difference); a language model's bits per byte have no such floor, and seeds that do not vary at all give no interval (no decision). A file with a sequential design (sequential:) uses instead intervals valid at every look: for scores in [0, 1] the betting confidence sequence of the paired per-seed differences, for bits per byte Welch's at α/(k(k+1)) at the k-th look; its document says at which look each claim stopped.

- **Direction**: higher is better for exact match and token accuracy, lower for bits per byte (bits_per_byte, sliding_bits_per_byte: a language model's). *Ahead*, *learned*, *best* and *on A's side* below are in the metric's direction; numbers are printed in the metric's own units (A − B of bits per byte is negative when A is ahead).
%s
- **Learned in range**: a cell whose mean in-range score falls short of the file's learned bar (statistic.learned: below it, above it when lower is better) has not learned the task and is not judged: *untested*, naming the cell and its in-range score. A cell with fewer than 2 runs is refused when the file is read.
- **Chance**: what guessing scores: per output token 1/k for k possible values, exact match (1/k)^n for an n-token answer; for a task whose answers are padded or skewed (binary_addition's zero-padded sum, sort's ordered slots, a value mod 5 that × skews towards 0), what its best constant answer scores: per token the value each answer slot most often takes, exact match the most likely answer (data.BaselineOf; [docs/tasks.md](../tasks.md#baselines) gives each task's). Over a range of lengths the chance level is the mean of each length's (per run over the lengths it has, then over the runs), as the score is. A score is *within noise of chance* when the upper end of the interval of its mean is at most chance + %.2f, and *clearly above chance* when the lower end exceeds chance + %.2f. When both sides of a ranking are within noise of chance the verdict is *inconclusive (chance)*; both are measured against A's chance level (B's own is not used, whatever B's task). Bits per byte have no chance level here: neither this rule nor *extrapolates to* nor a shape claim applies to them.
- **Extrapolates to**: the longest tested length up to which the score stays clearly above chance at every tested length; a length where chance is within %.2f of 1, so that no score can clear it (binary_addition's lengths 1 to 3, whose answer is fixed), is skipped.
%s

Each claim is judged on its own at %.0f%%, without a correction for the many claims of a table: where the two sides do not differ, about one claim in twenty still reads *reproduced* or *contradicted* by chance alone.
`, stats.Level*100, "- "+kinds[0].rule, stats.ChanceMargin, stats.ChanceMargin, stats.ChanceMargin, strings.Join(rest, "\n"), stats.Level*100)
}

// rank judges "A > B" (A ahead of B in the metric's direction) from the two sides' per-run
// scores in the range (with A's mean chance there) and in range against the learned bar, with
// the sides' design (design.diff). The interval is of A − B in the metric's units: A is ahead
// when it lies above 0, or below 0 when lower is better.
func rank(metric string, A, B *side, learned float64) (stats.Interval, string) {
	d := A.d
	iv := d.diff(metric, A.scores, B.scores, A.floors, B.floors)
	aheadLo, aheadHi := iv.Lo, iv.Hi // the interval of A's advantage over B
	if lowerBetter(metric) {
		aheadLo, aheadHi = -iv.Hi, -iv.Lo
	}
	switch {
	case len(A.scores) == 0 || len(B.scores) == 0:
		return iv, Untested + " (no runs in the range)"
	case notLearned(metric, meanOf(A.in), learned):
		return iv, unlearned(A.name, A.in)
	case notLearned(metric, meanOf(B.in), learned):
		return iv, unlearned(B.name, B.in)
	case hasChance(metric) && d.atChance(A.scores, A.floors, A.chance) && d.atChance(B.scores, B.floors, A.chance):
		return iv, Inconclusive + " (chance)"
	case aheadLo > 0:
		return iv, Reproduced
	case aheadHi < 0:
		return iv, Contradicted
	}
	return iv, Inconclusive
}

// unlearned is the verdict on a cell that did not learn in range (its per-run in-range scores).
func unlearned(name string, in []float64) string {
	return fmt.Sprintf("%s (%s not learned in range: %.3f)", Untested, name, meanOf(in))
}
