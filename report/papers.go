package report

import (
	"encoding/csv"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/posformer/posformer/internal/stats"
	"github.com/posformer/posformer/train"
	"github.com/posformer/posformer/train/config"
)

// PaperCell is one (task, scheme) of a paper's released numbers: the mean over its seeds at each
// test length.
type PaperCell struct {
	Task, Scheme string
	ByLength     map[int]float64
}

// Mean is the mean over the lengths in [lo, hi] (NaN when none), summed in length order so that
// it is the same to the last bit every time (a map's order is random, and a last-bit difference
// can flip the third decimal the document prints).
func (p PaperCell) Mean(lo, hi int) float64 {
	var s float64
	n := 0
	for _, L := range slices.Sorted(maps.Keys(p.ByLength)) {
		if x := p.ByLength[L]; L >= lo && L <= hi {
			s += x
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return s / float64(n)
}

// ReadKazemnejadPaper reads docs/claims/kazemnejad2023_paper.csv (extract_kazemnejad2023.py):
// per posformer task and scheme, the mean over the 3 released seeds at each length 21..40.
func ReadKazemnejadPaper(path string) (map[[2]string]PaperCell, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) < 2 || strings.Join(recs[0], ",") != "dataset,split,task,scheme,length,mean,min,max,seeds" {
		return nil, fmt.Errorf("%s: not the file extract_kazemnejad2023.py writes (header %v)", path, recs[0])
	}
	out := map[[2]string]PaperCell{}
	for _, r := range recs[1:] {
		L, err1 := strconv.Atoi(r[4])
		x, err2 := strconv.ParseFloat(r[5], 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%s: bad row %v", path, r)
		}
		k := [2]string{r[2], r[3]}
		c, ok := out[k]
		if !ok {
			c = PaperCell{Task: r[2], Scheme: r[3], ByLength: map[int]float64{}}
		}
		c.ByLength[L] = x
		out[k] = c
	}
	return out, nil
}

// kazemnejadSchemes maps the paper's encodings to posformer's cells: their rotary rotates a
// quarter of each head (rotary_fraction 0.25), the others are the plain schemes.
var kazemnejadSchemes = []kazScheme{
	{"none", "none", ""}, {"t5", "t5", ""}, {"alibi", "alibi", ""}, {"rope", "rope", "rotary_fraction=0.25"}, {"sinusoidal", "sinusoidal", ""},
}

// kazScheme is one of the paper's encodings and the posformer cell that stands for it.
type kazScheme struct{ paper, scheme, variant string }

func (s kazScheme) key(task string) CellKey { return CellKey{task, s.scheme, s.variant} }

// kazemnejadClaims are the rankings "A > B" the paper makes on a task: A ahead of B by at least
// ChanceMargin over its test range, in its released numbers.
func kazemnejadClaims(paper map[[2]string]PaperCell, task string) []struct{ a, b kazScheme } {
	var out []struct{ a, b kazScheme }
	for i, A := range kazemnejadSchemes {
		for j, B := range kazemnejadSchemes {
			pa, okA := paper[[2]string{task, A.paper}]
			pb, okB := paper[[2]string{task, B.paper}]
			if i == j || !okA || !okB || pa.Mean(KazemnejadLo, KazemnejadHi)-pb.Mean(KazemnejadLo, KazemnejadHi) < train.ChanceMargin {
				continue
			}
			out = append(out, struct{ a, b kazScheme }{A, B})
		}
	}
	return out
}

// rankCells judges "A > B" on two cells over the paper's test range (Rank).
func rankCells(nameA, nameB string, ca, cb *SeedCell) Ranking {
	sa, chance := ca.Scores(KazemnejadLo, KazemnejadHi, false)
	sb, _ := cb.Scores(KazemnejadLo, KazemnejadHi, false)
	ia, _ := ca.Scores(0, 0, true)
	ib, _ := cb.Scores(0, 0, true)
	return Rank(nameA, nameB, sa, sb, ia, ib, chance)
}

// KazemnejadLo and KazemnejadHi are the paper's test range (ts40 after training on tr20).
const KazemnejadLo, KazemnejadHi = 21, 40

func fmtCI(xs []float64) string {
	m, lo, hi := stats.MeanInterval(xs, train.Level)
	if len(xs) < 2 {
		return fmt.Sprintf("%.3f (1 seed)", m)
	}
	return fmt.Sprintf("%.3f [%.3f, %.3f]", m, lo, hi)
}

func fmtDiff(iv stats.Interval) string {
	if math.IsNaN(iv.Lo) {
		return fmt.Sprintf("%+.3f", iv.Diff)
	}
	return fmt.Sprintf("%+.3f [%+.3f, %+.3f]", iv.Diff, iv.Lo, iv.Hi)
}

func meanOf(xs []float64) float64 {
	m, _ := stats.MeanVar(xs)
	return m
}

func maxOf(xs []float64) float64 {
	m := math.Inf(-1)
	for _, x := range xs {
		m = math.Max(m, x)
	}
	return m
}

// missingGrid is the note of a section whose runs are absent.
func missingGrid(b *strings.Builder, dir, config string) {
	fmt.Fprintf(b, "**Missing**: no finished runs in `%s`. Train them with `go run ./cmd/train -config configs/%s -jobs 2` "+
		"(resumable with `-resume`; on a cluster with `deploy/`), then regenerate this file with `go run ./cmd/train claims`.\n\n", dir, config)
}

// kazemnejadSection writes the Kazemnejad et al. 2023 comparison from a grid of
// configs/kazemnejad2023.yaml (nil: missing) and the paper's released numbers, then its
// follow-ups (by config name, KazemnejadFollowUps; dirs by grid name).
func kazemnejadSection(b *strings.Builder, g *Grid, followUps map[string]*Grid, paper map[[2]string]PaperCell, dirs map[string]string) {
	dir := dirs["kazemnejad2023"]
	fmt.Fprintf(b, "## 9. Kazemnejad et al. 2023: NoPE, T5 and ALiBi degrade gracefully, sinusoidal and rotary collapse\n\n")
	fmt.Fprintf(b, "Their protocol (decoder-only, causal, trained on lengths ≤ 20, tested on %d..%d, greedy generation of the whole answer and its end, 3 seeds) "+
		"on copy and reverse. The paper's numbers: the mean over its 3 released seeds (`job_type: best_run_seed_exp`) of exact match, from "+
		"`results/sanity_check.jsonl` of McGill-NLP/length-generalization at commit 40f8a44, in `docs/claims/kazemnejad2023_paper.csv`. "+
		"Ours in the paper's statistic is the mean over seeds; beside it the mean with its 95%% interval over seeds. Per-seed numbers: "+
		"`docs/claims/kazemnejad2023.csv`. Their rotary rotates a quarter of each head, so their *rope* is our rope with rotary_fraction 0.25.\n\n",
		KazemnejadLo, KazemnejadHi)
	if g == nil {
		missingGrid(b, dir, "kazemnejad2023.yaml")
		return
	}
	rows := SeedRows(g)
	cells := Cells(rows, Exact)
	diffs := setupDifferences(g, "kazemnejad")
	fmt.Fprintf(b, "Set-up (%d of %d runs finished): %s\n\n", len(g.Cells)-len(g.Missing), len(g.Cells), diffs)
	for _, w := range Warnings(g) {
		fmt.Fprintf(b, "Warning: %s\n\n", w)
	}
	for _, task := range taskOrder(rows) {
		fmt.Fprintf(b, "### %s\n\n", task)
		fmt.Fprintf(b, "| scheme | paper, %d..%d (mean of 3 seeds) | ours, mean over seeds | ours, mean [95%% interval] | ours in range | ours: extrapolates to |\n| --- | ---: | ---: | --- | ---: | ---: |\n", KazemnejadLo, KazemnejadHi)
		keys := cellKeys(cells, task)
		for _, k := range keys {
			c := cells[k]
			s, _ := c.Scores(KazemnejadLo, KazemnejadHi, false)
			in, _ := c.Scores(0, 0, true)
			p := "–"
			for _, m := range kazemnejadSchemes {
				if m.scheme == k.Scheme && m.variant == k.Variant {
					if pc, ok := paper[[2]string{task, m.paper}]; ok {
						p = fmt.Sprintf("%.3f", pc.Mean(KazemnejadLo, KazemnejadHi))
					}
				}
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", k, p, f3(meanOf(s)), fmtCI(s), f3(meanOf(in)), lengthOrDash(c.ExtrapolatesTo()))
		}
		fmt.Fprintf(b, "\n| claim (exact match, %d..%d) | paper: A, B, A − B | ours (mean over seeds): A, B | ours: A − B [95%% interval] | remaining set-up differences | verdict |\n| --- | --- | --- | --- | --- | --- |\n", KazemnejadLo, KazemnejadHi)
		for _, c := range kazemnejadClaims(paper, task) {
			A, B := c.a, c.b
			ca, cb := cells[A.key(task)], cells[B.key(task)]
			if ca == nil || cb == nil {
				continue
			}
			pa, pb := paper[[2]string{task, A.paper}], paper[[2]string{task, B.paper}]
			ma, mb := pa.Mean(KazemnejadLo, KazemnejadHi), pb.Mean(KazemnejadLo, KazemnejadHi)
			sa, _ := ca.Scores(KazemnejadLo, KazemnejadHi, false)
			sb, _ := cb.Scores(KazemnejadLo, KazemnejadHi, false)
			r := rankCells(A.paper, B.paper, ca, cb)
			fmt.Fprintf(b, "| %s > %s | %.3f, %.3f, %+.3f | %.3f, %.3f | %s | %s | %s |\n", A.paper, B.paper, ma, mb, ma-mb,
				meanOf(sa), meanOf(sb), fmtDiff(r.Diff), rowDifferences(g, task, A.scheme, B.scheme), r.Verdict)
		}
		b.WriteString("\n")
	}
	vocab := followUps[KazemnejadVocabConfig]
	kazemnejadVocab(b, g, vocab, paper, dirs[KazemnejadVocabConfig])
	kazemnejadALiBi(b, g, vocab, followUps[KazemnejadALiBiConfig], paper, dirs[KazemnejadALiBiConfig])
	otherRange(b, cells, rows, KazemnejadHi)
}

// otherRange writes the cells' scores past the paper's test range as their own table.
func otherRange(b *strings.Builder, cells map[CellKey]*SeedCell, rows []SeedRow, hi int) {
	top := 0
	for _, r := range rows {
		top = max(top, r.Length)
	}
	if top <= hi {
		return
	}
	fmt.Fprintf(b, "Past the paper's test range (%d..%d), its own column:\n\n| task | scheme | mean [95%% interval] |\n| --- | --- | --- |\n", hi+1, top)
	for _, task := range taskOrder(rows) {
		for _, k := range cellKeys(cells, task) {
			s, _ := cells[k].Scores(hi+1, top, false)
			fmt.Fprintf(b, "| %s | %s | %s |\n", task, k, fmtCI(s))
		}
	}
	b.WriteString("\n")
}

// ruossSection writes the Ruoss et al. 2023 comparison from a grid of configs/ruoss2023.yaml
// (nil: missing), its headline, then the follow-up of its untested pairs (followUps by config
// name, RuossLongConfig; dirs by grid name) and the headline again with the follow-up's pairs.
func ruossSection(b *strings.Builder, g *Grid, followUps map[string]*Grid, dirs map[string]string) {
	fmt.Fprintf(b, "## 10. Ruoss et al. 2023: randomized positions raise test accuracy (by 12.0 points on average)\n\n")
	fmt.Fprintf(b, "Their protocol (the Delétang et al. 2023 encoder: the input then one blank slot per output token, every output token predicted "+
		"at once; trained on lengths 1..N, tested on N+1..M; randomized positions an ordered random subset of [0, L)). Their statistic: per-token "+
		"accuracy averaged over the test lengths N+1..M, the *best* over seeds and learning rates; ours is the best over the seeds and rates "+
		"in the results (a grid with select: keeps only each group's chosen rate, its tuning runs in the Selection table), and beside it the mean over seeds with its 95%% interval. "+
		"The paper's per-task numbers (its Table 1, arXiv 2305.16843) could not be retrieved here (docs/claims/README.md), so only its headline "+
		"(+12.0 points on average, the abstract) stands beside ours. Per-seed numbers: `docs/claims/ruoss2023.csv`.\n\n")
	if g == nil {
		missingGrid(b, dirs["ruoss2023"], "ruoss2023.yaml")
		return
	}
	rows := SeedRows(g)
	cells := Cells(rows, Token)
	fmt.Fprintf(b, "Set-up (%d of %d runs finished): %s\n\n", len(g.Cells)-len(g.Missing), len(g.Cells), setupDifferences(g, "ruoss"))
	for _, w := range Warnings(g) {
		fmt.Fprintf(b, "Warning: %s\n\n", w)
	}
	var pairs []ruossPair
	for _, task := range taskOrder(rows) {
		pairs = append(pairs, ruossTask(b, "###", g, cells, task)...)
	}
	if len(pairs) == 0 {
		return
	}
	ruossHeadline(b, pairs, "")
	long := ruossLong(b, g, pairs, followUps[RuossLongConfig], dirs[RuossLongConfig])
	source := RuossLongConfig + "'s pairs"
	if len(long) > 0 {
		choice := ruossLRCheck(b, followUps[RuossLongConfig], followUps[RuossLongLRConfig], dirs[RuossLongLRConfig])
		if at := ruossAtChosen(b, choice, followUps, dirs[RuossLongChosenConfig]); len(at) > 0 {
			long, source = at, RuossLongConfig+"'s pairs at each cell's chosen rate"
		}
	}
	if withLong, n := replacePairs(pairs, long); n > 0 {
		ruossHeadline(b, withLong, source)
	}
}

// ruossPair is one "randomized > plain" comparison of §10: its best-over-runs gain and verdict.
type ruossPair struct {
	key     CellKey // the randomized side: its task, scheme and variant, which name the pair
	gain    float64
	verdict string
}

// String names the pair: "reverse · rope (randomized=true,max_random=2048)".
func (p ruossPair) String() string { return p.key.Task + " · " + p.key.String() }

// ruossTask writes one task's tables of a Protocol B grid (its levels, then each randomized
// variant against its plain twin) and returns its pairs.
func ruossTask(b *strings.Builder, heading string, g *Grid, cells map[CellKey]*SeedCell, task string) []ruossPair {
	keys := cellKeys(cells, task)
	if len(keys) == 0 {
		return nil
	}
	lo, hi := cells[keys[0]].TrainRange()
	top := cells[keys[0]].Lengths()
	M := top[len(top)-1]
	fmt.Fprintf(b, "%s %s (test lengths %d..%d)\n\n", heading, task, hi+1, M)
	fmt.Fprintf(b, "| scheme | ours, best over runs | ours, mean [95%% interval] | ours in range (%d..%d) | extrapolates to | paper |\n| --- | ---: | --- | ---: | ---: | --- |\n", lo, hi)
	for _, k := range keys {
		s, _ := cells[k].Scores(hi+1, M, false)
		in, _ := cells[k].Scores(0, 0, true)
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | not retrieved |\n", k, f3(maxOf(s)), fmtCI(s), f3(meanOf(in)), lengthOrDash(cells[k].ExtrapolatesTo()))
	}
	var pairs []ruossPair
	var rows strings.Builder // the claims' rows; no table when no randomized cell has its plain twin
	for _, k := range keys {
		if !strings.Contains(k.Variant, "randomized=true") {
			continue
		}
		plain := CellKey{task, k.Scheme, plainOf(k.Variant)}
		cp := cells[plain]
		if cp == nil {
			continue
		}
		sr, chance := cells[k].Scores(hi+1, M, false)
		sp, _ := cp.Scores(hi+1, M, false)
		ir, _ := cells[k].Scores(0, 0, true)
		ip, _ := cp.Scores(0, 0, true)
		r := Rank("randomized "+k.Scheme, plain.String(), sr, sp, ir, ip, chance)
		pairs = append(pairs, ruossPair{k, maxOf(sr) - maxOf(sp), r.Verdict})
		fmt.Fprintf(&rows, "| %s > %s | in Table 1 (not retrieved) | %.3f, %.3f | %s | %s | %s |\n", k, plain, maxOf(sr), maxOf(sp), fmtDiff(r.Diff), rowDifferences(g, task, k.Scheme, k.Scheme), r.Verdict)
	}
	if len(pairs) > 0 {
		fmt.Fprintf(b, "\n| claim (token accuracy, %d..%d) | paper | ours, best: randomized, plain | ours: randomized − plain [95%% interval] | remaining set-up differences | verdict |\n| --- | --- | --- | --- | --- | --- |\n%s", hi+1, M, rows.String())
	}
	b.WriteString("\n")
	return pairs
}

// ruossHeadline writes the headline claim's row from the pairs; with follow-up set, the pairs
// are the main grid's with that follow-up's in place of the ones it re-ran.
func ruossHeadline(b *strings.Builder, pairs []ruossPair, followUp string) {
	count := map[string]int{}
	var gains []float64
	for _, p := range pairs {
		count[strings.SplitN(p.verdict, " (", 2)[0]]++
		gains = append(gains, p.gain)
	}
	v := "inconclusive"
	switch {
	case count["untested"] == len(gains):
		v = "untested (no pair learned the task in range)"
	case count["contradicted"] > 0:
		v = "not reproduced"
	case count["reproduced"] > 0 && meanOf(gains) > 0:
		v = "reproduced"
		if n := count["untested"]; n > 0 {
			v = fmt.Sprintf("reproduced in the %d of %d pairs that could be judged (%d untested)", len(gains)-n, len(gains), n)
		}
	}
	claim, what := "randomized positions raise test accuracy on average", "the pairs' verdicts"
	if followUp != "" {
		claim += fmt.Sprintf(", with %s in place of the reduced grid's", followUp)
		what = "the pairs' verdicts, those re-run at the longer budget taken from it"
	}
	fmt.Fprintf(b, "| headline claim | paper | ours | verdict |\n| --- | --- | --- | --- |\n")
	fmt.Fprintf(b, "| %s | +12.0 points (mean over 15 tasks and 5 encoding families, arXiv 2305.16843) | %+.1f points (mean over %d task × scheme pairs of best randomized − best plain); %s: %d reproduced, %d contradicted, %d inconclusive, %d untested | %s |\n\n",
		claim, 100*meanOf(gains), len(gains), what, count["reproduced"], count["contradicted"], count["inconclusive"], count["untested"], v)
	if followUp == "" {
		fmt.Fprintf(b, "The headline verdict: *reproduced* when the average gain is positive, at least one pair is reproduced and none is contradicted; "+
			"*not reproduced* when a pair is contradicted; *inconclusive* otherwise.\n\n")
	}
}

// plainOf removes the randomization options from a variant.
func plainOf(variant string) string {
	var keep []string
	for _, p := range strings.Split(variant, ",") {
		if p == "" || strings.HasPrefix(p, "randomized=") || strings.HasPrefix(p, "max_random=") || strings.HasPrefix(p, "eval_positions=") {
			continue
		}
		keep = append(keep, p)
	}
	return strings.Join(keep, ",")
}

func taskOrder(rows []SeedRow) []string {
	var ts []string
	seen := map[string]bool{}
	for _, r := range rows {
		if !seen[r.Task] {
			seen[r.Task] = true
			ts = append(ts, r.Task)
		}
	}
	return ts
}

// cellKeys lists a task's cells, sorted by scheme then variant.
func cellKeys(cells map[CellKey]*SeedCell, task string) []CellKey {
	var ks []CellKey
	for k := range cells {
		if k.Task == task {
			ks = append(ks, k)
		}
	}
	sort.Slice(ks, func(i, j int) bool {
		if ks[i].Scheme != ks[j].Scheme {
			return ks[i].Scheme < ks[j].Scheme
		}
		return ks[i].Variant < ks[j].Variant
	})
	return ks
}

// setupDifferences describes a grid's set-up against the paper's, from its first cell.
func setupDifferences(g *Grid, paper string) string {
	c := g.Cells[0].Config
	L := c.Eval.Lengths
	lr := fmt.Sprintf("lr %g", c.Train.LR)
	if sel := g.Selection; sel != nil {
		lr = fmt.Sprintf("%s chosen per group among %v on validation (seeds %v; the report's Selection table)", sel.Field, sel.Values, sel.Seeds)
	}
	ours := fmt.Sprintf("%d layers, d_model %d, %d heads, d_ff %d; %d steps of %d sequences, %s%s; trained on lengths %d..%d, tested on %d lengths in %d..%d, %d examples each",
		c.Model.Layers, c.Model.DModel, c.Model.Heads, c.Model.DFF, c.Train.Steps, c.Train.BatchSize, lr, earlyStopNote(c),
		c.Task.MinLen, c.Task.MaxLen, len(L), L[0], L[len(L)-1], c.Eval.Examples)
	switch paper {
	case "kazemnejad":
		return ours + ". Theirs: a T5-base-sized decoder (~110M parameters), 40,000 steps of 64 at lr 3e-5 (one rate for every split and encoding, not swept), " +
			"the best checkpoint by validation, 100,000 training examples, T5 vocabulary tokens, their test sets."
	default:
		return ours + ". Theirs: 5 layers, d_model 64, 8 heads, dropout 0.1, 10,000 steps of 128, every test length up to 500 with 512 examples, " +
			"the best of several seeds and learning rates; Transformer-XL relative encodings (absent here)."
	}
}

func earlyStopNote(c config.Config) string {
	if e := c.Train.EarlyStop; e.On() {
		return fmt.Sprintf(", early stopping on validation %s (patience %d, min_delta %g, target %g; 0: none)", strings.ReplaceAll(e.Metric, "_", " "), e.Patience, e.MinDelta, e.Target)
	}
	return ", no early stopping"
}

// rowDifferences names what differs for one comparison beyond the common set-up: the t5 bucket
// warning of its runs.
func rowDifferences(g *Grid, task string, schemes ...string) string {
	var notes []string
	for i, c := range g.Cells {
		if g.Runs[i] == nil || c.Config.Task.Name != task {
			continue
		}
		for _, s := range schemes {
			if c.Config.Position.Kind == s && len(c.Config.Warnings()) > 0 && len(notes) == 0 {
				notes = append(notes, "t5 training reaches fewer distance buckets than the test uses (warning above)")
			}
		}
	}
	if len(notes) == 0 {
		return "the common set-up above"
	}
	return "the common set-up; " + strings.Join(notes, "; ")
}
