package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/posformer/posformer/position"
	"github.com/posformer/posformer/train"
	"github.com/posformer/posformer/train/config"
)

// A claim a grid contradicts gets an experiment before its verdict stands (the project's rule:
// when our result disagrees with a paper, find out why). The follow-up grids are optional: their
// sections say how to produce them when absent.

// KazemnejadVocabConfig is a follow-up of §9: Protocol A's copy with the paper's 100 symbols.
const KazemnejadVocabConfig = "kazemnejad2023_vocab"

// KazemnejadALiBiConfig is a follow-up of §9: the vocab grid's alibi and t5 with each of the two
// set-up differences that act on ALiBi's bias (the head count, which sets its slopes, and T5's
// unscaled logits), one arm each.
const KazemnejadALiBiConfig = "kazemnejad2023_alibi"

// KazemnejadFollowUps are §9's follow-up grids, each the name of its config in configs/ and of
// its directory under the runs: `train claims` reads those present into ClaimsInput.FollowUps.
var KazemnejadFollowUps = []string{KazemnejadVocabConfig, KazemnejadALiBiConfig}

// RuossLongConfig is a follow-up of §10: the reverse pairs the reduced grid leaves untested
// (one side not learned in range), at three times its steps.
const RuossLongConfig = "ruoss2023_long"

// RuossLongLRConfig is the learning-rate check of RuossLongConfig, which trains at one rate: seed
// 1 of its cells at another rate, so that the reduced grid's select: rule can be applied.
const RuossLongLRConfig = "ruoss2023_long_lr"

// RuossLongChosenConfig trains the other seeds of the cells for which the check
// (RuossLongLRConfig) chose its rate, so that §10 can judge the pairs at each cell's chosen rate.
const RuossLongChosenConfig = "ruoss2023_long_chosen"

// RuossFollowUps are §10's follow-up grids, read as KazemnejadFollowUps are.
var RuossFollowUps = []string{RuossLongConfig, RuossLongLRConfig, RuossLongChosenConfig}

// claim is a ranking "a > b" of the paper.
type claim struct{ a, b kazScheme }

func (c claim) String() string { return c.a.paper + " > " + c.b.paper }

// contradictedClaims are the paper's rankings on task that the main grid contradicts, among the
// paper's schemes in only (all when empty).
func contradictedClaims(main *Grid, paper map[[2]string]PaperCell, task string, only ...string) []claim {
	cells := Cells(SeedRows(main), Exact)
	in := func(s kazScheme) bool {
		if len(only) == 0 {
			return true
		}
		for _, o := range only {
			if o == s.paper {
				return true
			}
		}
		return false
	}
	var out []claim
	for _, c := range kazemnejadClaims(paper, task) {
		ca, cb := cells[c.a.key(task)], cells[c.b.key(task)]
		if ca == nil || cb == nil || !in(c.a) || !in(c.b) {
			continue
		}
		if rankCells(c.a.paper, c.b.paper, ca, cb).Verdict == "contradicted" {
			out = append(out, claim{c.a, c.b})
		}
	}
	return out
}

func claimNames(cs []claim) string {
	var names []string
	for _, c := range cs {
		names = append(names, c.String())
	}
	return strings.Join(names, " and ")
}

// missingFollowUp is the note of a follow-up whose grid is absent.
func missingFollowUp(b *strings.Builder, dir, config, duration string) {
	fmt.Fprintf(b, "**Missing**: no finished runs in `%s`. Train them with `go run ./cmd/train -config configs/%s.yaml -jobs 2` (%s on 2 cores), "+
		"then regenerate this file with `go run ./cmd/train claims`.\n\n", dir, config, duration)
}

// kazemnejadVocab writes §9's follow-up: for every ranking of the paper that the main grid
// contradicts on copy, the same ranking on copy with the paper's alphabet (vocab: the grid of
// configs/kazemnejad2023_vocab.yaml, nil when absent), by the same rules.
func kazemnejadVocab(b *strings.Builder, main, vocab *Grid, paper map[[2]string]PaperCell, dir string) {
	const task = "copy"
	if main == nil {
		return
	}
	cells := Cells(SeedRows(main), Exact)
	contradicted := contradictedClaims(main, paper, task)
	if len(contradicted) == 0 {
		return
	}
	fmt.Fprintf(b, "### Does the alphabet explain why copy contradicts %s?\n\n", claimNames(contradicted))
	fmt.Fprintf(b, "Our copy draws its tokens from 8 symbols, the paper's (cmc) from 100. With 8 symbols a length-20 input repeats tokens, "+
		"which brings copy close to their copy_repeat (rsc), where the paper's own NoPE leads T5 (%s). "+
		"The experiment: [configs/%s.yaml](../configs/%s.yaml), the same grid with the paper's 100 symbols for the schemes in question, "+
		"3 seeds at lr 0.001, ranked by the same rules.\n\n", paperPair(paper, "copy_repeat", "none", "t5"), KazemnejadVocabConfig, KazemnejadVocabConfig)
	if vocab == nil {
		missingFollowUp(b, dir, KazemnejadVocabConfig, "about 25 minutes")
		return
	}
	vcells := Cells(SeedRows(vocab), Exact)
	fmt.Fprintf(b, "| scheme | paper (100 symbols), %d..%d | ours, 8 symbols | ours, 100 symbols | ours in range, 100 symbols |\n| --- | ---: | --- | --- | ---: |\n", KazemnejadLo, KazemnejadHi)
	for _, s := range kazemnejadSchemes {
		v := vcells[s.key(task)]
		if v == nil {
			continue
		}
		m := cells[s.key(task)]
		p := "–"
		if pc, ok := paper[[2]string{task, s.paper}]; ok {
			p = fmt.Sprintf("%.3f", pc.Mean(KazemnejadLo, KazemnejadHi))
		}
		vs, _ := v.Scores(KazemnejadLo, KazemnejadHi, false)
		vin, _ := v.Scores(0, 0, true)
		ms := []float64{}
		if m != nil {
			ms, _ = m.Scores(KazemnejadLo, KazemnejadHi, false)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", s.paper, p, fmtCI(ms), fmtCI(vs), f3(meanOf(vin)))
	}
	fmt.Fprintf(b, "\n| claim (exact match, %d..%d) | paper: A − B | ours, 8 symbols: A − B [95%% interval], verdict | ours, 100 symbols: A − B [95%% interval], verdict |\n| --- | --- | --- | --- |\n", KazemnejadLo, KazemnejadHi)
	var findings []string
	for _, c := range contradicted {
		pa, pb := paper[[2]string{task, c.a.paper}], paper[[2]string{task, c.b.paper}]
		r8 := rankCells(c.a.paper, c.b.paper, cells[c.a.key(task)], cells[c.b.key(task)])
		va, vb := vcells[c.a.key(task)], vcells[c.b.key(task)]
		r100 := "–"
		if va != nil && vb != nil {
			r := rankCells(c.a.paper, c.b.paper, va, vb)
			r100 = fmtDiff(r.Diff) + ", " + r.Verdict
		}
		fmt.Fprintf(b, "| %s > %s | %+.3f | %s, %s | %s |\n", c.a.paper, c.b.paper, pa.Mean(KazemnejadLo, KazemnejadHi)-pb.Mean(KazemnejadLo, KazemnejadHi),
			fmtDiff(r8.Diff), r8.Verdict, r100)
		if va != nil && vb != nil {
			v := rankCells(c.a.paper, c.b.paper, va, vb).Verdict
			switch {
			case v == "contradicted":
				findings = append(findings, fmt.Sprintf("the alphabet does not explain why %s > %s is contradicted: it still is with the paper's 100 symbols, "+
					"so the cause is among the other set-up differences (the next subsection lists them and tests the two that act on ALiBi alone)", c.a.paper, c.b.paper))
			case strings.HasPrefix(v, "untested"):
				findings = append(findings, fmt.Sprintf("%s > %s cannot be judged with 100 symbols (%s)", c.a.paper, c.b.paper, v))
			case v == "reproduced":
				findings = append(findings, fmt.Sprintf("with the paper's 100 symbols %s > %s is reproduced: the 8-symbol alphabet accounts for the reversal", c.a.paper, c.b.paper))
			default:
				findings = append(findings, fmt.Sprintf("with the paper's 100 symbols %s > %s is no longer contradicted (%s): the reversal does not survive the paper's alphabet, "+
					"but the paper's lead is not shown either", c.a.paper, c.b.paper, v))
			}
		}
	}
	b.WriteString("\n")
	if len(findings) > 0 {
		fmt.Fprintf(b, "What the experiment shows: %s.\n\n", strings.Join(findings, "; "))
	}
}

// alibiDifferences are the set-up differences between the authors' custom_decoder_only_t5 and
// ours (c: a cell of the main grid) that could move ALiBi or T5 past the training length, each
// with where their code says so (McGill-NLP/length-generalization at 40f8a44; transformers
// 4.16.2, src/requirements.txt).
func alibiDifferences(c config.Config) []string {
	return []string{
		fmt.Sprintf("**ALiBi's slopes** follow the head count (`build_alibi_tensor`, src/models/custom_t5_decoder_only.py:589-643, called with t5-base's 12 heads at :922-927): "+
			"theirs %s, %s; ours with %d heads %s, %s (position/alibi.go, ALiBiSlopes). "+
			"Their bias is slope·j for key j (:641-642), which softmax turns into −slope·(i − j): the same bias as ours, in every layer (:1043-1067)",
			fmtSlopes(12), slopeCounts(12), c.Model.Heads, fmtSlopes(c.Model.Heads), slopeCounts(c.Model.Heads)),
		"**the logit scale**: T5's attention, q·kᵀ without 1/√d_head (:474 for ALiBi, :312 for T5's bias; the bias added as is, :488 and :336), " +
			"with W_q initialised √d_head times smaller (transformers' T5PreTrainedModel._init_weights); ours scales by 1/√d_head (internal/ops/attention.go) " +
			"unless `model.unscaled_logits`, which is theirs",
		"**T5's bias**: one table of 32 buckets (t5-base) up to distance 128 (transformers 4.16.2's default), one-sided (causal: the decoder's buckets), " +
			"computed in the first layer only (`has_relative_attention_bias=bool(i == 0)`, :660) and handed to every layer (:1064-1067): the same as ours (position/t5.go)",
		fmt.Sprintf("**size**: t5-base, 12 layers, d_model 768, 12 heads of 64, d_ff 3072 (ReLU), RMS layer norm, no biases, tied embeddings, "+
			"dropout 0.1 on embeddings, attention weights (:501-503) and residuals; ours %d layers, d_model %d, %d heads of %d, d_ff %d (GELU), LayerNorm, biases, no dropout",
			c.Model.Layers, c.Model.DModel, c.Model.Heads, c.Model.DModel/max(c.Model.Heads, 1), c.Model.DFF),
		"**data**: 100,000 fixed training examples of lengths 4..20 (scripts/dataset_builders/make_copy_dataset.py:203-223, train_min 4 at :293-297), " +
			"25.59 epochs (`train/epoch` of every released run), batches mixing lengths; ours a fresh example at every step, one length per batch (the set-up above)",
		"**optimiser**: lr 3e-5, weight decay 0.05, 6% warm-up, polynomial decay, 40,000 steps of 64 (configs/trainer/base_model.jsonnet, default.jsonnet); ours the set-up above",
		"**checkpoint**: the best validation exact match every 2000 steps (their ALiBi runs kept steps 32,000-40,000); ours the set-up above",
		"**their ceiling**: their in-range validation exact match is the same for every scheme and seed, about 0.99^L (0.98 at L = 2, 0.78-0.84 at L = 20, " +
			"`pred/valid_acc_L` of results/sanity_check.jsonl): about one token in a hundred is never reproduced, whatever the scheme, which caps their 21..40 mean near 0.74. " +
			"It scales every scheme alike, so it moves levels, not rankings",
	}
}

// fmtSlopes lists ALiBi's slopes for h heads as 1/n when n is whole, else as 2^x.
func fmtSlopes(h int) string {
	var out []string
	for _, m := range position.ALiBiSlopes(h) {
		if n := 1 / m; math.Abs(n-math.Round(n)) < 1e-9 {
			out = append(out, fmt.Sprintf("1/%.0f", n))
		} else {
			out = append(out, fmt.Sprintf("2^%.1f", math.Log2(m)))
		}
	}
	return strings.Join(out, ", ")
}

// intermediateSlope reports whether an ALiBi slope is between 1/32 and 1/4: a head that can
// still reach the whole input at the training lengths when its content logits outweigh the
// penalty (at most 5 at distance 21), and meets twice the penalty at twice the distance.
func intermediateSlope(m float64) bool { return m >= 1.0/32 && m <= 1.0/4 }

// intermediateSlopes is how many of h heads' ALiBi slopes are intermediate (intermediateSlope).
func intermediateSlopes(h int) int {
	n := 0
	for _, m := range position.ALiBiSlopes(h) {
		if intermediateSlope(m) {
			n++
		}
	}
	return n
}

// slopeCounts says how many of h heads' slopes are intermediate.
func slopeCounts(h int) string {
	return fmt.Sprintf("%d of %d between 1/32 and 1/4", intermediateSlopes(h), h)
}

// kazemnejadALiBi writes §9's second follow-up: for the contradicted rankings between t5 and
// alibi on copy, the same rankings in each arm of configs/kazemnejad2023_alibi.yaml (arms: its
// grid, nil when absent; one arm per swept variant), beside the main grid and the 100-symbol
// baseline the arms differ from (vocab, nil when absent), by the same rules.
func kazemnejadALiBi(b *strings.Builder, main, vocab, arms *Grid, paper map[[2]string]PaperCell, dir string) {
	const task = "copy"
	if main == nil {
		return
	}
	contradicted := contradictedClaims(main, paper, task, "alibi", "t5")
	if len(contradicted) == 0 {
		return
	}
	fmt.Fprintf(b, "### Does ALiBi's bias explain why copy contradicts %s?\n\n", claimNames(contradicted))
	if vocab != nil {
		vcells := Cells(SeedRows(vocab), Exact)
		var pairs []string
		for _, s := range kazemnejadSchemes {
			pc, ok := paper[[2]string{task, s.paper}]
			if c := vcells[s.key(task)]; c != nil && ok {
				xs, _ := c.Scores(KazemnejadLo, KazemnejadHi, false)
				pairs = append(pairs, fmt.Sprintf("%s %.3f vs %.3f", s.paper, meanOf(xs), pc.Mean(KazemnejadLo, KazemnejadHi)))
			}
		}
		fmt.Fprintf(b, "With the paper's 100 symbols, ours against the paper's over %d..%d: %s (the table above). ", KazemnejadLo, KazemnejadHi, strings.Join(pairs, ", "))
	}
	fmt.Fprintf(b, "The set-up differences with the authors' code (McGill-NLP/length-generalization at 40f8a44, src/models/custom_t5_decoder_only.py unless named):\n\n")
	main0 := main.Cells[0].Config
	for _, d := range alibiDifferences(main0) {
		fmt.Fprintf(b, "- %s.\n", d)
	}
	ours, theirs := intermediateSlopes(main0.Model.Heads), intermediateSlopes(12)
	fmt.Fprintf(b, "\nOnly the first two act on ALiBi's fixed bias and not on the other schemes. A head with an intermediate slope (1/32 to 1/4) can reach the whole input "+
		"at the training lengths when its content logits outweigh the penalty, and meets twice the penalty at twice the distance: they have %d such heads, we %d. "+
		"Content logits that grow faster (no scale) outweigh a fixed bias sooner, leaving a model closer to NoPE (the paper's ALiBi scores about as its NoPE: %s). "+
		"Hypothesis: either difference brings our ALiBi below our T5. "+
		"The experiment: [configs/%s.yaml](../configs/%s.yaml), [configs/%s.yaml](../configs/%s.yaml)'s set-up for alibi and t5, 3 seeds, "+
		"in one arm per difference, ranked by the same rules. An arm that changes the head count at about the same d_model also narrows each head "+
		"(d_model/heads), so it tests the slopes and the head width together.\n\n",
		theirs, ours, paperPair(paper, task, "alibi", "none"), KazemnejadALiBiConfig, KazemnejadALiBiConfig, KazemnejadVocabConfig, KazemnejadVocabConfig)
	if arms == nil {
		missingFollowUp(b, dir, KazemnejadALiBiConfig, "about 30 minutes")
		return
	}
	// The columns: the main grid, the 100-symbol baseline, then one per arm in the grid's order.
	type column struct {
		name  string
		cells map[CellKey]*SeedCell
	}
	cols := []column{{"ours, main grid", Cells(SeedRows(main), Exact)}}
	if vocab != nil {
		cols = append(cols, column{"ours, 100 symbols (" + KazemnejadVocabConfig + ")", Cells(SeedRows(vocab), Exact)})
	}
	armCells := Cells(sweptRows(arms), Exact)
	var armNames []string
	seen := map[string]bool{}
	for _, r := range sweptRows(arms) {
		if !seen[r.Variant] {
			seen[r.Variant] = true
			armNames = append(armNames, r.Variant)
		}
	}
	armLabel := func(v string) string {
		if v == "" {
			return "as configured"
		}
		return strings.ReplaceAll(v, ",", ", ")
	}
	for _, v := range armNames {
		sub := map[CellKey]*SeedCell{}
		for k, c := range armCells {
			if k.Variant == v {
				sub[CellKey{k.Task, k.Scheme, ""}] = c
			}
		}
		cols = append(cols, column{"ours, " + armLabel(v), sub})
	}
	head := fmt.Sprintf("| scheme | paper, %d..%d |", KazemnejadLo, KazemnejadHi)
	rule := "| --- | ---: |"
	for _, c := range cols {
		head += " " + c.name + " |"
		rule += " --- |"
	}
	fmt.Fprintf(b, "Exact match over %d..%d, mean [95%% interval] over seeds (in range):\n\n%s\n%s\n", KazemnejadLo, KazemnejadHi, head, rule)
	for _, s := range kazemnejadSchemes {
		if s.paper != "alibi" && s.paper != "t5" {
			continue
		}
		p := "–"
		if pc, ok := paper[[2]string{task, s.paper}]; ok {
			p = fmt.Sprintf("%.3f", pc.Mean(KazemnejadLo, KazemnejadHi))
		}
		row := fmt.Sprintf("| %s | %s |", s.paper, p)
		for _, c := range cols {
			cell := c.cells[s.key(task)]
			if cell == nil {
				row += " – |"
				continue
			}
			xs, _ := cell.Scores(KazemnejadLo, KazemnejadHi, false)
			in, _ := cell.Scores(0, 0, true)
			row += fmt.Sprintf(" %s (%s) |", fmtCI(xs), f3(meanOf(in)))
		}
		b.WriteString(row + "\n")
	}
	head = fmt.Sprintf("| claim (exact match, %d..%d) | paper: A − B |", KazemnejadLo, KazemnejadHi)
	rule = "| --- | --- |"
	for _, c := range cols {
		head += " " + c.name + ": A − B [95% interval], verdict |"
		rule += " --- |"
	}
	fmt.Fprintf(b, "\n%s\n%s\n", head, rule)
	var findings []string
	for _, cl := range contradicted {
		pa, pb := paper[[2]string{task, cl.a.paper}], paper[[2]string{task, cl.b.paper}]
		row := fmt.Sprintf("| %s | %+.3f |", cl, pa.Mean(KazemnejadLo, KazemnejadHi)-pb.Mean(KazemnejadLo, KazemnejadHi))
		for i, c := range cols {
			ca, cb := c.cells[cl.a.key(task)], c.cells[cl.b.key(task)]
			if ca == nil || cb == nil {
				row += " – |"
				continue
			}
			r := rankCells(cl.a.paper, cl.b.paper, ca, cb)
			row += " " + fmtDiff(r.Diff) + ", " + r.Verdict + " |"
			if i < len(cols)-len(armNames) {
				continue
			}
			arm := armLabel(armNames[i-(len(cols)-len(armNames))])
			switch v := r.Verdict; {
			case v == "contradicted":
				findings = append(findings, fmt.Sprintf("%s does not explain why %s is contradicted: it still is with it", arm, cl))
			case strings.HasPrefix(v, "untested"):
				findings = append(findings, fmt.Sprintf("%s cannot be judged with %s (%s)", cl, arm, v))
			case v == "reproduced":
				findings = append(findings, fmt.Sprintf("with %s, %s is reproduced: this difference accounts for the reversal", arm, cl))
			default:
				findings = append(findings, fmt.Sprintf("with %s, %s is no longer contradicted (%s): the reversal does not survive this difference, "+
					"but with its seeds' spread the paper's lead is not shown either", arm, cl, v))
			}
		}
		b.WriteString(row + "\n")
	}
	b.WriteString("\n")
	if len(findings) > 0 {
		fmt.Fprintf(b, "What the experiment shows: %s.\n\n", strings.Join(findings, "; "))
	}
}

// paperPair is "A 0.xxx vs B 0.yyy" from the paper's numbers of a task over 21..40.
func paperPair(paper map[[2]string]PaperCell, task, a, b string) string {
	pa, okA := paper[[2]string{task, a}]
	pb, okB := paper[[2]string{task, b}]
	if !okA || !okB {
		return "not in the released numbers"
	}
	return fmt.Sprintf("%s %.3f vs %s %.3f over %d..%d", a, pa.Mean(KazemnejadLo, KazemnejadHi), b, pb.Mean(KazemnejadLo, KazemnejadHi), KazemnejadLo, KazemnejadHi)
}

// ruossLong writes §10's follow-up when the reduced grid (main, whose pairs are pairs) leaves
// pairs untested: pairs re-run at the longer budget of configs/ruoss2023_long.yaml (long: its
// grid, nil when absent), by the same rules, and what each shows beside the reduced grid's
// verdict of the same pair (task, scheme and randomized variant). It returns the follow-up's
// pairs (none when absent).
func ruossLong(b *strings.Builder, main *Grid, pairs []ruossPair, long *Grid, dir string) []ruossPair {
	var untested []string
	for _, p := range pairs {
		if strings.HasPrefix(p.verdict, "untested") {
			untested = append(untested, p.String())
		}
	}
	if len(untested) == 0 {
		return nil
	}
	fmt.Fprintf(b, "### Are the untested pairs a matter of budget? [configs/%s.yaml](../configs/%s.yaml)\n\n", RuossLongConfig, RuossLongConfig)
	fmt.Fprintf(b, "The reduced grid leaves %d of its %d pairs untested (%s): one side did not learn the task in range, so the rules do not rank it. "+
		"The diagnostic [configs/ruoss2023_budget.yaml](../configs/ruoss2023_budget.yaml) (one seed, docs/reproductions.md) found that three times the steps "+
		"teach plain sinusoidal reverse in range. ",
		len(untested), len(pairs), strings.Join(untested, ", "))
	if long == nil {
		fmt.Fprintf(b, "The experiment: [configs/%s.yaml](../configs/%s.yaml), these pairs at a longer budget, ranked by the same rules.\n\n", RuossLongConfig, RuossLongConfig)
		missingFollowUp(b, dir, RuossLongConfig, "about 65 minutes")
		return nil
	}
	rows := SeedRows(long)
	cells := Cells(rows, Token)
	lc, mc := long.Cells[0].Config, main.Cells[0].Config
	seeds := fmt.Sprintf("%d seeds", len(gridSeeds(long)))
	if len(gridSeeds(long)) == 1 {
		seeds = "1 seed"
	}
	fmt.Fprintf(b, "The experiment: %s's pairs again at %d steps of %d (the reduced grid: %d of %d), %s, ranked by the same rules.\n\n",
		strings.Join(taskOrder(rows), ", "), lc.Train.Steps, lc.Train.BatchSize, mc.Train.Steps, mc.Train.BatchSize, seeds)
	fmt.Fprintf(b, "Set-up (%d of %d runs finished): %s\n\n", len(long.Cells)-len(long.Missing), len(long.Cells), setupDifferences(long, "ruoss"))
	for _, w := range Warnings(long) {
		fmt.Fprintf(b, "Warning: %s\n\n", w)
	}
	var out []ruossPair
	for _, task := range taskOrder(rows) {
		out = append(out, ruossTask(b, "####", long, cells, task)...)
	}
	var findings []string
	for _, l := range out {
		before := "not in the reduced grid"
		if i := pairIndex(pairs, l.key); i >= 0 {
			before = pairs[i].verdict + " in the reduced grid"
		}
		findings = append(findings, fmt.Sprintf("%s: %s, %s at this budget", l, before, l.verdict))
	}
	var left []string
	for _, p := range pairs {
		if pairIndex(out, p.key) < 0 && strings.HasPrefix(p.verdict, "untested") {
			left = append(left, p.String())
		}
	}
	if len(left) > 0 {
		findings = append(findings, fmt.Sprintf("not re-run, so still untested: %s", strings.Join(left, ", ")))
	}
	if len(findings) > 0 {
		fmt.Fprintf(b, "What the experiment shows: %s.\n\n", strings.Join(findings, "; "))
	}
	return out
}

// gridSeeds are the distinct seeds of a grid's cells.
func gridSeeds(g *Grid) map[uint64]bool {
	seeds := map[uint64]bool{}
	for _, c := range g.Cells {
		seeds[c.Config.Seed] = true
	}
	return seeds
}

// pairIndex is the index of the pair of pairs with key k (task, scheme and randomized variant),
// -1 when none has it.
func pairIndex(pairs []ruossPair, k CellKey) int {
	for i, p := range pairs {
		if p.key == k {
			return i
		}
	}
	return -1
}

// replacePairs is pairs with each pair that long re-ran (the same task, scheme and randomized
// variant) taken from long, and how many it replaced; long's pairs that pairs lacks are left out.
func replacePairs(pairs, long []ruossPair) ([]ruossPair, int) {
	out := append([]ruossPair(nil), pairs...)
	n := 0
	for _, l := range long {
		if i := pairIndex(out, l.key); i >= 0 {
			out[i] = l
			n++
		}
	}
	return out, n
}

// ruossLRCheck writes the learning-rate check of §10's follow-up (long): for each run of check
// (nil when absent), the run of long with the same task, scheme, variant and seed beside it,
// each rate's best in-range validation score (what the reduced grid's select: compares, ties to
// long's rate) and which the rule chooses. Where it chooses check's rate, the follow-up's
// verdicts were not made at the chosen rate, and the doc says so.
//
// It returns each checked cell's chosen rate, by rateKey (nil without the check).
func ruossLRCheck(b *strings.Builder, long, check *Grid, dir string) map[CellKey]float64 {
	lr := long.Cells[0].Config.Train.LR
	fmt.Fprintf(b, "#### Would the selection of the learning rate change it? [configs/%s.yaml](../configs/%s.yaml)\n\n", RuossLongLRConfig, RuossLongLRConfig)
	fmt.Fprintf(b, "The follow-up trains every cell at lr %g; the reduced grid chooses each cell's rate on seed 1's best in-range validation score "+
		"(its `select:`, ties to the rate listed first). The check trains seed 1 of the follow-up's cells at another rate and applies that rule.\n\n", lr)
	if check == nil {
		missingFollowUp(b, dir, RuossLongLRConfig, "about 25 minutes")
		return nil
	}
	other := check.Cells[0].Config.Train.LR
	key := func(g *Grid, i int) seededKey { return seededKey{rateKey(g.Cells[i].Config), g.Cells[i].Config.Seed} }
	runs := map[seededKey]*Run{}
	for i, r := range long.Runs {
		if r != nil {
			runs[key(long, i)] = r
		}
	}
	fmt.Fprintf(b, "| cell (seed) | validation at lr %g | validation at lr %g | chosen | past training, at lr %g | past training, at lr %g |\n| --- | ---: | ---: | ---: | ---: | ---: |\n", lr, other, lr, other)
	choice := map[CellKey]float64{}
	var moved, kept []string
	for i, r := range check.Runs {
		base := runs[key(check, i)]
		if r == nil || base == nil {
			continue
		}
		c := check.Cells[i].Config
		name := ruossPair{key: rateKey(c)}.String()
		chosen := lr
		if r.Result.BestScore > base.Result.BestScore {
			chosen = other
			moved = append(moved, name)
		} else {
			kept = append(kept, name)
		}
		choice[rateKey(c)] = chosen
		fmt.Fprintf(b, "| %s (%d) | %.3f | %.3f | %g | %.3f | %.3f |\n", name, c.Seed, base.Result.BestScore, r.Result.BestScore, chosen,
			base.Result.BeyondToken, r.Result.BeyondToken)
	}
	b.WriteString("\n")
	switch {
	case len(moved) == 0 && len(kept) > 0:
		fmt.Fprintf(b, "The rule keeps lr %g in every cell checked, so the follow-up's results are the ones the selection would have produced.\n\n", lr)
	case len(moved) > 0:
		fmt.Fprintf(b, "The rule would choose lr %g for %s (and keep %g for %s). The follow-up's verdicts above use lr %g for every cell; "+
			"the next table judges the pairs at each cell's chosen rate.\n\n", other, strings.Join(moved, ", "), lr, orNone(kept), lr)
	}
	return choice
}

// rateKey is a cell of §10's follow-up for its learning-rate choice: its task, scheme and
// variant, whatever the rate.
func rateKey(c config.Config) CellKey {
	return CellKey{c.Task.Name, c.Position.Kind, train.RunVariant(c, nil)}
}

// seededKey is one seed of a cell (rateKey).
type seededKey struct {
	cell CellKey
	seed uint64
}

// ruossAtChosen writes §10's follow-up pairs at each cell's chosen rate (choice, by rateKey;
// cells absent from it keep the follow-up's rate), from the runs of the follow-up, its check and
// RuossLongChosenConfig (the chosen rate's other seeds) that are at their cell's chosen rate, by
// the same rules, and returns those pairs. It writes nothing when every cell keeps the
// follow-up's rate, and a note on how to train the chosen rate's seeds when they are absent.
func ruossAtChosen(b *strings.Builder, choice map[CellKey]float64, followUps map[string]*Grid, dir string) []ruossPair {
	long := followUps[RuossLongConfig]
	lr := long.Cells[0].Config.Train.LR
	moved := false
	for _, v := range choice {
		moved = moved || v != lr
	}
	if !moved {
		return nil
	}
	fmt.Fprintf(b, "#### The pairs at each cell's chosen rate [configs/%s.yaml](../configs/%s.yaml)\n\n", RuossLongChosenConfig, RuossLongChosenConfig)
	fmt.Fprintf(b, "Each cell's runs at the rate the rule chose: the follow-up's where it keeps lr %g, else seed 1 of the check and the other seeds of [configs/%s.yaml](../configs/%s.yaml); "+
		"only those runs enter this table, as in the reduced grid.\n\n", lr, RuossLongChosenConfig, RuossLongChosenConfig)
	chosen := followUps[RuossLongChosenConfig]
	if chosen == nil {
		missingFollowUp(b, dir, RuossLongChosenConfig, "about 30 minutes")
		return nil
	}
	sel := &Grid{Dir: long.Dir}
	seen := map[seededKey]bool{}
	for _, g := range []*Grid{long, followUps[RuossLongLRConfig], chosen} {
		if g == nil {
			continue
		}
		for i, r := range g.Runs {
			c := g.Cells[i].Config
			want, ok := choice[rateKey(c)]
			if !ok {
				want = lr
			}
			k := seededKey{rateKey(c), c.Seed}
			if r == nil || c.Train.LR != want || seen[k] {
				continue
			}
			seen[k] = true
			sel.Cells, sel.Runs = append(sel.Cells, g.Cells[i]), append(sel.Runs, r)
		}
	}
	rows := SeedRows(sel)
	cells := Cells(rows, Token)
	var out []ruossPair
	for _, task := range taskOrder(rows) {
		out = append(out, ruossTask(b, "#####", sel, cells, task)...)
	}
	var findings []string
	for _, p := range out {
		findings = append(findings, p.String()+": "+p.verdict)
	}
	if len(findings) > 0 {
		fmt.Fprintf(b, "At each cell's chosen rate (%d runs): %s.\n\n", len(sel.Runs), strings.Join(findings, "; "))
	}
	return out
}

func orNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}
