package report

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/posformer/posformer/internal/stats"
	"github.com/posformer/posformer/train"
)

// setting describes a grid's shared sizes, from its first cell.
func setting(g *Grid) string {
	c := g.Cells[0].Config
	L := c.Eval.Lengths
	return fmt.Sprintf("%d layers, d_model %d, %d heads, %d steps, trained on input lengths %d..%d, tested on %d..%d, %d test examples per length",
		c.Model.Layers, c.Model.DModel, c.Model.Heads, c.Train.Steps, c.Task.MinLen, c.Task.MaxLen, L[0], L[len(L)-1], c.Eval.Examples)
}

// empiricalSections writes sections 3–7 from the claims grid (configs/claims.yaml).
func empiricalSections(b *strings.Builder, g *Grid) {
	rows := sweptRows(g)
	cells := Cells(rows, Exact)
	sums, _, _ := train.Aggregate(g.Cells, g.Results())
	fmt.Fprintf(b, "## 3. Training runs: the table behind sections 4–7\n\n")
	fmt.Fprintf(b, "Config: `configs/claims.yaml` (%s; %d of %d runs finished, in `%s`). "+
		"Values are mean ± sample standard deviation over seeds of exact match (greedy decoding of the whole answer is right); *extrapolates to* "+
		"here and below follows the chance rule stated above.\n\n",
		setting(g), len(g.Cells)-len(g.Missing), len(g.Cells), g.Dir)
	b.WriteString(SummaryTable(sums))
	b.WriteString("\n")
	ts := taskOrder(rows)
	plain := func(task, scheme string) *SeedCell { return cells[CellKey{task, scheme, ""}] }

	fmt.Fprintf(b, "## 4. Vaswani et al. 2017, Table 3 row (E): learned and sinusoidal encodings do about as well in distribution\n\n")
	fmt.Fprintf(b, "An equivalence claim, judged on the in-range exact match over seeds: *reproduced* when the 95%% Welch interval of "+
		"sinusoidal − learned lies within ±%.2f; *not reproduced* when it excludes 0 and the gap is at least %.2f; *inconclusive* otherwise; "+
		"*untested* when either has not learned the task in range.\n\n", train.ChanceMargin, train.ChanceMargin)
	fmt.Fprintf(b, "| task | sinusoidal in range | learned in range | sinusoidal − learned [95%% interval] | verdict |\n| --- | --- | --- | --- | --- |\n")
	for _, t := range ts {
		s, l := plain(t, "sinusoidal"), plain(t, "learned")
		if s == nil || l == nil {
			continue
		}
		a, _ := s.Scores(0, 0, true)
		c, _ := l.Scores(0, 0, true)
		iv := stats.Welch(a, c, train.Level)
		v := "inconclusive"
		switch {
		case meanOf(a) < LearnedThreshold || meanOf(c) < LearnedThreshold:
			v = "untested (not learned in range)"
		case math.IsNaN(iv.Lo):
			v = "inconclusive (one seed)"
		case iv.Lo > -train.ChanceMargin && iv.Hi < train.ChanceMargin:
			v = "reproduced"
		case iv.Excludes0() && math.Abs(iv.Diff) >= train.ChanceMargin:
			v = "not reproduced"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", t, fmtCI(a), fmtCI(c), fmtDiff(iv), v)
	}

	fmt.Fprintf(b, "\n## 5. Absolute encodings collapse just past the training length (Press et al. 2022; Kazemnejad et al. 2023)\n\n")
	fmt.Fprintf(b, "Verdict rule: reproduced when the scheme has learned the task in range (mean ≥ %.2f) and its extrapolation length "+
		"(clearly above chance, see above) is at most 1.25× the longest training length; untested when it has not learned the task.\n\n", LearnedThreshold)
	fmt.Fprintf(b, "| task | scheme | in range | beyond | extrapolates to | ratio | verdict |\n| --- | --- | --- | --- | ---: | ---: | --- |\n")
	for _, t := range ts {
		for _, sch := range []string{"sinusoidal", "learned"} {
			c := plain(t, sch)
			if c == nil {
				continue
			}
			_, hi := c.TrainRange()
			ls := c.Lengths()
			in, _ := c.Scores(0, 0, true)
			bey, _ := c.Scores(hi+1, ls[len(ls)-1], false)
			x := c.ExtrapolatesTo()
			ratio := float64(x) / float64(hi)
			v := "not reproduced"
			switch {
			case meanOf(in) < LearnedThreshold:
				v = "untested (not learned in range)"
			case ratio <= 1.25:
				v = "reproduced"
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", t, sch, fmtCI(in), fmtCI(bey), lengthOrDash(x), ratioOrDash(x, ratio)+" | "+v)
		}
	}

	fmt.Fprintf(b, "\n## 6. RoPE, and no position encoding with a causal mask\n\n")
	fmt.Fprintf(b, "Kazemnejad et al. 2023 report NoPE extrapolating best on copy-like tasks (their protocol: section 9). What these runs show: "+
		"each scheme's exact match past the training lengths up to twice the longest (the analogue of their 21..40 after 1..20), and further as its own column, "+
		"ranked by the former, and whether NoPE is ahead of every other scheme that learned the task by the rules above.\n\n")
	nopeRanking(b, cells, ts, false)

	fmt.Fprintf(b, "\n## 7. Vaswani et al. 2017: sinusoids \"may allow the model to extrapolate to sequence lengths longer than the ones encountered during training\"\n\n")
	fmt.Fprintf(b, "Their words (section 3.5) are a hope, not a result; tested here. Verdict rule: *observed* when sinusoidal stays clearly above chance "+
		"to at least 1.25× the longest training length; *not observed* when it is not clearly above chance at the first length past it (or up to 1.25×); "+
		"*untested* when it has not learned the task in range.\n\n")
	fmt.Fprintf(b, "| task | in range | beyond | extrapolates to | trained to | verdict |\n| --- | --- | --- | ---: | ---: | --- |\n")
	for _, t := range ts {
		c := plain(t, "sinusoidal")
		if c == nil {
			continue
		}
		_, hi := c.TrainRange()
		ls := c.Lengths()
		in, _ := c.Scores(0, 0, true)
		bey, _ := c.Scores(hi+1, ls[len(ls)-1], false)
		x := c.ExtrapolatesTo()
		v := "not observed"
		switch {
		case meanOf(in) < LearnedThreshold:
			v = "untested (not learned in range)"
		case float64(x) >= 1.25*float64(hi):
			v = "observed"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %d | %s |\n", t, fmtCI(in), fmtCI(bey), lengthOrDash(x), hi, v)
	}
	fmt.Fprintf(b, "\nThe formula is defined at every position, but the network downstream was only trained on the combinations of PE values "+
		"seen at positions below the training length; the plots below show where exact match falls.\n")
}

// nopeRanking writes, per task, the cells ranked by mean exact match over the lengths just past
// training (up to twice the longest), the later lengths as their own column, and the verdict on
// "NoPE is ahead of every other scheme": yes when NoPE's Welch interval against each other
// learned cell lies above 0, no when some cell's lies below, inconclusive (chance) when NoPE and
// the others are all within noise of chance there, inconclusive otherwise; untested when NoPE has
// not learned the task in range. Cells that have not learned the task are listed, not ranked.
func nopeRanking(b *strings.Builder, cells map[CellKey]*SeedCell, ts []string, variants bool) {
	fmt.Fprintf(b, "| task | ranking by exact match just past training, up to 2× (mean [95%% interval]) | further (mean) | not learned in range | NoPE ahead of all? |\n| --- | --- | --- | --- | --- |\n")
	for _, t := range ts {
		type entry struct {
			k         CellKey
			near, far []float64
			in        []float64
			chance    float64
			learned   bool
		}
		var es []entry
		for _, k := range cellKeys(cells, t) {
			if !variants && k.Variant != "" {
				continue
			}
			c := cells[k]
			_, hi := c.TrainRange()
			ls := c.Lengths()
			e := entry{k: k}
			e.near, e.chance = c.Scores(hi+1, 2*hi, false)
			e.far, _ = c.Scores(2*hi+1, ls[len(ls)-1], false)
			e.in, _ = c.Scores(0, 0, true)
			e.learned = meanOf(e.in) >= LearnedThreshold
			es = append(es, e)
		}
		sort.SliceStable(es, func(i, j int) bool { return meanOf(es[i].near) > meanOf(es[j].near) })
		var ranked, unlearned []string
		var nope *entry
		for i := range es {
			e := &es[i]
			if e.k.Scheme == "none" && e.k.Variant == "" {
				nope = e
			}
			if !e.learned {
				unlearned = append(unlearned, fmt.Sprintf("%s (%.3f)", e.k, meanOf(e.in)))
				continue
			}
			ranked = append(ranked, fmt.Sprintf("%s %s", e.k, fmtCI(e.near)))
		}
		var far []string
		for _, e := range es {
			if e.learned && len(e.far) > 0 {
				far = append(far, fmt.Sprintf("%s %.3f", e.k, meanOf(e.far)))
			}
		}
		verdict := "untested (no NoPE runs)"
		if nope != nil {
			var others []rival
			for _, e := range es {
				if e.k != nope.k && e.learned {
					others = append(others, rival{e.k.String(), e.near, e.in})
				}
			}
			verdict = nopeVerdict(nope.near, nope.in, nope.chance, others)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", t, strings.Join(ranked, " > "), orDash(strings.Join(far, ", ")), orDash(strings.Join(unlearned, ", ")), verdict)
	}
}

// lengthOrDash formats an "extrapolates to" length as the run report does: "–" for 0 (the
// score is not clearly above chance even at the shortest tested length).
func lengthOrDash(x int) string {
	if x == 0 {
		return "–"
	}
	return strconv.Itoa(x)
}

// ratioOrDash is the "ratio" column beside lengthOrDash: "–" when there is no length.
func ratioOrDash(x int, ratio float64) string {
	if x == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", ratio)
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// rival is a cell NoPE is compared with.
type rival struct {
	name     string
	near, in []float64
}

// nopeVerdict applies nopeRanking's rule to NoPE's scores against every other learned cell.
func nopeVerdict(near, in []float64, chance float64, others []rival) string {
	if meanOf(in) < LearnedThreshold {
		return fmt.Sprintf("untested: NoPE did not learn the task in range (%.3f)", meanOf(in))
	}
	allChance, ahead, behind, n := train.AtChance(near, chance), true, "", 0
	for _, o := range others {
		n++
		name := o.name
		r := Rank("none", name, near, o.near, in, o.in, chance)
		if !train.AtChance(o.near, chance) {
			allChance = false
		}
		if r.Verdict != "reproduced" {
			ahead = false
		}
		if r.Verdict == "contradicted" && behind == "" {
			behind = name
		}
	}
	switch {
	case n == 0:
		return "untested (no other scheme learned the task)"
	case allChance:
		return "inconclusive (chance)"
	case behind != "":
		return "no: " + behind + " is ahead (interval of the difference below 0)"
	case ahead:
		return "yes"
	}
	return "inconclusive"
}

// literatureSection writes section 8 from the literature grid (configs/literature.yaml).
func literatureSection(b *strings.Builder, g *Grid, rep *Report) {
	fmt.Fprintf(b, "\n## 8. Every scheme on four tasks of Delétang et al. 2023: the literature grid\n\n")
	rows := sweptRows(g)
	var schemes []string
	seen := map[string]bool{}
	for _, r := range rows {
		k := CellKey{Scheme: r.Scheme, Variant: r.Variant}.String()
		if !seen[k] {
			seen[k] = true
			schemes = append(schemes, k)
		}
	}
	fmt.Fprintf(b, "Config: `configs/literature.yaml` (%s; %d of %d runs finished, in `%s`): %s "+
		"(a variant eval=<name> is the same weights evaluated another way, see configs/README.md). "+
		"Mean ± sample standard deviation over seeds of exact match.\n\n",
		setting(g), len(g.Cells)-len(g.Missing), len(g.Cells), g.Dir, strings.Join(schemes, ", "))
	if ws := Warnings(g); len(ws) > 0 {
		for _, w := range ws {
			fmt.Fprintf(b, "Warning: %s\n\n", w)
		}
	}
	b.WriteString(SummaryTable(rep.Summaries))
	fmt.Fprintf(b, "\nparity and modular_arithmetic answer with one token out of 2 and 5: guessing scores 0.5 and 0.2. The rankings below "+
		"compare to that chance, so schemes all near it are *inconclusive (chance)*, never ranked.\n\n")
	fmt.Fprintf(b, "Kazemnejad et al. 2023 (NoPE extrapolates best on copy-like tasks) on this grid, every variant ranked:\n\n")
	nopeRanking(b, Cells(rows, Exact), taskOrder(rows), true)
	b.WriteString("\n") // a blank line ends the table before the next section
}
