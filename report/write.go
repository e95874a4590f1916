// Package report turns run directories into a report: aggregate tables over seeds (report.md,
// summary.csv, by_length.csv) and plots as PNG and SVG (exact match against length, training
// loss, position tables and similarities). It reads only what runs wrote (grid.Load), so a
// report can be regenerated at any time without retraining, and it says which cells are still
// missing.
package report

import (
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/grid"
	"github.com/posformer/posformer/internal/stats"
	"github.com/posformer/posformer/internal/table"
	"github.com/posformer/posformer/metric"
	"github.com/posformer/posformer/rundir"
	"github.com/posformer/posformer/setup"
)

// Report is what Write produced.
type Report struct {
	Dir       string
	Summaries []GroupSummary
	Rows      []LengthStat
	Plots     []string // file names (without extension) written next to report.md
	// Headline is the table a terminal shows for the grid (report.md's Summary): SummaryTable,
	// or for a grid of curve tasks only (curve.go: bits per byte) CurveTable, as exact match
	// means nothing there.
	Headline string
}

// Write aggregates a grid and writes Dir/report/: report.md, summary.csv, by_length.csv and the
// plots (PNG and SVG). Every file is written atomically. The CSVs of a grid of curve tasks only
// hold their curves (curveSummaryCSV, curveByLengthCSV); a grid that mixes them with other tasks
// writes the other tasks' exact match to summary.csv and by_length.csv and its curve groups' to
// <task>_summary.csv and <task>_by_length.csv (lm_summary.csv).
func Write(g *grid.Grid) (*Report, error) {
	sums, rows, err := Aggregate(g.Cells, g.Results())
	if err != nil {
		return nil, err
	}
	if len(sums) == 0 {
		return nil, fmt.Errorf("report: no finished run in %s (missing: %s)", g.Dir, strings.Join(g.Missing, ", "))
	}
	out := filepath.Join(g.Dir, "report")
	if err := rundir.Inside(g.Dir, out); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	seq, seqRows, text := byKind(sums, rows)
	curves := Curves(sums, rows)
	r := &Report{Dir: out, Summaries: sums, Rows: rows, Headline: SummaryTable(seq)} // a mixed grid's headline leaves its curve groups out
	if r.Plots, err = writePlots(out, g, sums, rows, curves); err != nil {
		return nil, err
	}
	csvs := map[string][]byte{}
	switch {
	case len(seq) == 0:
		r.Headline = joinParagraphs(CurveTable(curves), curveDiverged(g, sums))
		csvs["summary.csv"], csvs["by_length.csv"] = curveSummaryCSV(curves, text), curveByLengthCSV(curves)
	case len(text) > 0:
		csvs[text[0].Task+summarySuffix], csvs[text[0].Task+byLengthSuffix] = curveSummaryCSV(curves, text), curveByLengthCSV(curves)
		fallthrough
	default:
		csvs["summary.csv"], csvs["by_length.csv"] = summaryCSV(seq), byLengthCSV(seqRows)
	}
	for _, name := range slices.Sorted(maps.Keys(csvs)) {
		if err := rundir.WriteFileAtomic(filepath.Join(out, name), csvs[name]); err != nil {
			return nil, err
		}
	}
	if err := rundir.WriteFileAtomic(filepath.Join(out, "report.md"), []byte(markdown(g, r, curves))); err != nil {
		return nil, err
	}
	return r, nil
}

func f3(x float64) string {
	if math.IsNaN(x) {
		return "–"
	}
	return strconv.FormatFloat(x, 'f', 3, 64)
}

// PM formats a statistic as "mean ± std" (just the mean for one seed).
func PM(s stats.Stat) string {
	if s.N == 0 {
		return "–"
	}
	if s.N == 1 {
		return f3(s.Mean)
	}
	return f3(s.Mean) + " ± " + f3(s.Std)
}

// tableMetric is the metric a table of these groups headlines: the headline every group shares
// (token accuracy for the slots format), or exact match, which every group has, when they differ.
func tableMetric(sums []GroupSummary) metric.Metric {
	m, _ := metric.Get(metric.ExactMatch)
	for i, s := range sums {
		if s.Metric != sums[0].Metric {
			return m
		}
		if i == 0 {
			m, _ = metric.Get(s.Metric)
		}
	}
	return m
}

// The CSVs of the curve groups of a grid that mixes them with other tasks are named after
// their task: lm_summary.csv, lm_by_length.csv.
const (
	summarySuffix  = "_summary.csv"
	byLengthSuffix = "_by_length.csv"
)

// byKind splits the groups and rows into those headlined by a bounded metric (the exact-match
// tables and CSVs, decoded failures) and the curve groups (curve.go), whose exact match and
// decoded answers mean nothing.
func byKind(sums []GroupSummary, rows []LengthStat) (seq []GroupSummary, seqRows []LengthStat, text []GroupSummary) {
	curve := map[config.Group]bool{}
	for _, x := range sums {
		if m, _ := metric.Get(x.Metric); m.Bounded() {
			seq = append(seq, x)
		} else {
			text, curve[x.Group] = append(text, x), true
		}
	}
	for _, x := range rows {
		if !curve[x.Group] {
			seqRows = append(seqRows, x)
		}
	}
	return seq, seqRows, text
}

// curveDiverged is the paragraph of a report of curves only naming its groups whose runs
// diverged in training (they have no scores, so the curves' table leaves them out), with the
// first such run's reason and fix; "" when none diverged.
func curveDiverged(g *grid.Grid, sums []GroupSummary) string {
	var groups []string
	all := true
	for _, s := range sums {
		if s.Diverged > 0 {
			groups = append(groups, fmt.Sprintf("%s: %d of %d seeds", s.Group, s.Diverged, s.Seeds))
		}
		all = all && s.Diverged == s.Seeds
	}
	if len(groups) == 0 {
		return ""
	}
	words := metric.Words(metric.Unbounded()[0].Name)
	head := "Diverged in training, so left out of the table (no " + words + ")"
	if all {
		head = "Every run diverged in training, so there are no " + words + " to show"
	}
	first := ""
	for i, r := range g.Runs {
		// a curve group's run: in a mixed grid, the first run that diverged may be another task's
		if r != nil && r.Result != nil && r.Result.Diverged != nil && slices.ContainsFunc(sums, func(s GroupSummary) bool { return s.Group == config.GroupOf(g.Cells[i]) }) {
			d := r.Result.Diverged
			first = fmt.Sprintf(" Run %s diverged at step %d, %s; %s.", r.Result.Name, d.Step, d.Reason, d.Fix)
			break
		}
	}
	return fmt.Sprintf("%s (%s).%s\n", head, strings.Join(groups, "; "), first)
}

// capital is s with its first letter in upper case ("Bits per byte").
func capital(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// joinParagraphs joins the non-empty texts with a blank line.
func joinParagraphs(texts ...string) string {
	var out []string
	for _, t := range texts {
		if t != "" {
			out = append(out, t)
		}
	}
	return strings.Join(out, "\n")
}

// SummaryTable is the markdown table of one row per group. Its headline is tableMetric's, with
// exact match in its own columns when that is another metric (token accuracy for the slots
// format).
func SummaryTable(sums []GroupSummary) string {
	var b strings.Builder
	h := tableMetric(sums)
	cols := []table.Col{table.L("task"), table.L("scheme"), table.L("variant"), table.R("seeds"), table.L("trained on"),
		table.L("in-range " + h.Label), table.L("beyond " + h.Label), table.L("beyond [min, max]")}
	if h.Name != metric.ExactMatch {
		cols = append(cols, table.L("in-range exact"), table.L("beyond exact"))
	}
	table.MarkdownHead(&b, append(cols, table.R("extrapolates to"), table.R("ratio"))...)
	for _, s := range sums {
		v := s.Variant
		if v == "" {
			v = "–"
		}
		in, beyond := s.In[h.Name], s.Beyond[h.Name]
		row := []string{s.Task, s.Scheme, v, seedsCell(s), fmt.Sprintf("%d..%d", s.MinLen, s.MaxLen), pmOf(s, in), pmOf(s, beyond), "[" + f3(beyond.Min) + ", " + f3(beyond.Max) + "]"}
		if h.Name != metric.ExactMatch {
			row = append(row, pmOf(s, s.In[metric.ExactMatch]), pmOf(s, s.Beyond[metric.ExactMatch]))
		}
		x, ratio := extrapolation(s)
		table.MarkdownRow(&b, append(row, x, ratio)...)
	}
	return b.String()
}

// seedsCell is a group's seeds column: the count, and how many of them diverged in training.
func seedsCell(s GroupSummary) string {
	if s.Diverged > 0 {
		return fmt.Sprintf("%d (%d diverged)", s.Seeds, s.Diverged)
	}
	return strconv.Itoa(s.Seeds)
}

// pmOf is PM of a group's statistic, or "diverged" when every seed of the group diverged: a
// diverged run has no scores, never numbers.
func pmOf(s GroupSummary, st stats.Stat) string {
	if s.Diverged > 0 && s.Diverged == s.Seeds {
		return "diverged"
	}
	return PM(st)
}

// extrapolation formats a group's "extrapolates to" and ratio columns: "–" for both when the
// headline metric is not clearly above chance even at the shortest tested length.
func extrapolation(s GroupSummary) (length, ratio string) {
	if s.ExtrapLength == 0 {
		return "–", "–"
	}
	return strconv.Itoa(s.ExtrapLength), fmt.Sprintf("%.2f", s.ExtrapRatio)
}

// ByLengthTables is one markdown table per task: a row per length, a column per group, cells
// "mean ± std" of exact match, or of token accuracy for a task whose groups are all scored per
// token (slots format).
func ByLengthTables(sums []GroupSummary, rows []LengthStat) string {
	var b strings.Builder
	for _, task := range tasks(sums) {
		var groups []config.Group
		var mine []GroupSummary
		maxLen := 0
		for _, s := range sums {
			if s.Task == task {
				groups = append(groups, s.Group)
				mine = append(mine, s)
				maxLen = max(maxLen, s.MaxLen)
			}
		}
		m := tableMetric(mine)
		cell := map[config.Group]map[int]LengthStat{}
		lengthSet := map[int]bool{}
		for _, r := range rows {
			if r.Task != task {
				continue
			}
			if cell[r.Group] == nil {
				cell[r.Group] = map[int]LengthStat{}
			}
			cell[r.Group][r.Length] = r
			lengthSet[r.Length] = true
		}
		lengths := slices.Sorted(maps.Keys(lengthSet))
		fmt.Fprintf(&b, "\n#### %s: %s by input length (mean ± std over seeds; trained up to %d)\n\n", task, metric.Words(m.Name), maxLen)
		cols := []table.Col{table.R("length")}
		for _, g := range groups {
			cols = append(cols, table.L(groupLabel(g)))
		}
		table.MarkdownHead(&b, cols...)
		for _, L := range lengths {
			row := []string{strconv.Itoa(L)}
			if L == maxLen {
				row[0] += " ←"
			}
			for _, g := range groups {
				if r, ok := cell[g][L]; ok {
					row = append(row, PM(r.Scores[m.Name]))
				} else {
					row = append(row, "–")
				}
			}
			table.MarkdownRow(&b, row...)
		}
	}
	return b.String()
}

func tasks(sums []GroupSummary) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range sums {
		if !seen[s.Task] {
			seen[s.Task] = true
			out = append(out, s.Task)
		}
	}
	return out
}

func markdown(g *grid.Grid, r *Report, curves []Curve) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# posformer report: %s\n\n", filepath.Base(filepath.Clean(g.Dir)))
	fmt.Fprintf(&b, "%d of %d runs finished.", len(g.Cells)-len(g.Missing), len(g.Cells))
	if len(g.Missing) > 0 {
		fmt.Fprintf(&b, " Missing: %s.", strings.Join(g.Missing, ", "))
	}
	b.WriteString(" Regenerate with `go run ./cmd/train report " + g.Dir + "`.\n\n")
	// A grid of curve tasks only is scored by its curves alone: no exact match, no answers. A
	// grid mixing them with other tasks shows only the others in its exact-match sections.
	sums, rows, text := byKind(r.Summaries, r.Rows)
	curvesOnly := len(sums) == 0
	if !curvesOnly {
		b.WriteString("Exact match: every output token is the argmax under teacher forcing (= greedy decoding is right). " +
			"*In range*: mean over the training lengths; *beyond*: mean over the tested lengths past the longest training length. " +
			"*a ± s*: the mean over seeds and their sample standard deviation (one seed: its score alone); *[min, max]*: the lowest and highest seed. " +
			extrapolationRule() + "\n\n")
	}
	if tableMetric(sums).Name == metric.TokenAccuracy {
		b.WriteString("Token accuracy: the fraction of output tokens that are the argmax. This grid's tasks write their answers in output slots " +
			"(`task.format: slots`, an encoder protocol scored per output token), so token accuracy " +
			"is the headline of its tables (and of *extrapolates to*), with exact match beside it.\n\n")
	}
	if ws := setup.GridWarnings(g.Cells, nil); len(ws) > 0 {
		b.WriteString("## Warnings\n\n")
		for _, w := range ws {
			fmt.Fprintf(&b, "- %s\n", w)
		}
		b.WriteString("\n")
	}
	b.WriteString("## Summary\n\n")
	if !curvesOnly {
		b.WriteString(SummaryTable(sums))
		if g.Selection != nil {
			b.WriteString(SelectionTable(g.Selection))
		}
	}
	t, d, words := CurveTable(curves), curveDiverged(g, text), metric.Words(metric.Unbounded()[0].Name)
	if !curvesOnly && (t != "" || d != "") {
		b.WriteString("\n## " + capital(words) + " against context length (" + text[0].Task + ")\n\n")
	}
	if t != "" {
		files := "[summary.csv](summary.csv), [by_length.csv](by_length.csv)"
		if !curvesOnly {
			s, l := text[0].Task+summarySuffix, text[0].Task+byLengthSuffix
			files = fmt.Sprintf("[%s](%s), [%s](%s)", s, s, l, l)
		}
		b.WriteString(capital(words) + " of the test split against context length, mean over seeds; non-overlapping windows / the sliding window where they differ (`eval.stride`). " +
			"Full tables: " + files + "; per run: `" + text[0].Task + ".csv`.\n\n")
		b.WriteString(t)
		if ct := CurveChangeTable(curves); ct != "" {
			b.WriteString("\nPast the training length: each seed's " + words + " minus its own at the training length, " +
				"mean over seeds and 95% t interval (a negative change: the longer context helps).\n\n")
			b.WriteString(ct)
		}
	}
	if d != "" {
		if t != "" {
			b.WriteString("\n")
		}
		b.WriteString(d)
	}
	if len(r.Plots) > 0 { // none when every curve group's run diverged: no heading over nothing
		b.WriteString("\n## Plots\n\n")
	}
	labelled := false
	for _, p := range r.Plots {
		if illustrations[p] && !labelled {
			b.WriteString("Illustrations, not results: the plots below are drawn from the sinusoidal and rope formulas at this grid's " +
				"d_model, head size and base, whether or not it trains those schemes, not from any run's weights or scores.\n\n")
			labelled = true
		}
		fmt.Fprintf(&b, "![%s](%s.png)\n\n", p, p)
	}
	if curvesOnly {
		return b.String()
	}
	b.WriteString("## " + capital(metric.Words(tableMetric(sums).Name)) + " by length\n")
	b.WriteString(ByLengthTables(sums, rows))
	b.WriteString("\nFull tables: [summary.csv](summary.csv), [by_length.csv](by_length.csv).\n")
	b.WriteString(diagnosticsMarkdown(g, tasks(sums)))
	return b.String()
}

func summaryCSV(sums []GroupSummary) []byte {
	ms := metric.Scored()
	head := []string{"task", "scheme", "variant", "seeds", "min_len", "max_len", "in_range_mean", "in_range_std", "in_range_min", "in_range_max",
		"beyond_mean", "beyond_std", "beyond_min", "beyond_max", "extrapolation_length", "extrapolation_ratio", "metric"}
	for _, m := range ms {
		head = append(head, "in_range_"+m.Short+"_mean", "beyond_"+m.Short+"_mean")
	}
	g := table.CSVFloat
	var recs [][]string
	for _, s := range sums {
		in, beyond := s.Headline() // the group's own metric (the metric column)
		rec := []string{s.Task, s.Scheme, s.Variant, strconv.Itoa(s.Seeds), strconv.Itoa(s.MinLen), strconv.Itoa(s.MaxLen),
			g(in.Mean), g(in.Std), g(in.Min), g(in.Max),
			g(beyond.Mean), g(beyond.Std), g(beyond.Min), g(beyond.Max), strconv.Itoa(s.ExtrapLength), g(s.ExtrapRatio), s.Metric}
		for _, m := range ms {
			rec = append(rec, g(s.In[m.Name].Mean), g(s.Beyond[m.Name].Mean))
		}
		recs = append(recs, rec)
	}
	return table.CSV(head, recs)
}

func byLengthCSV(rows []LengthStat) []byte {
	ms := metric.Scored()
	head := []string{"task", "scheme", "variant", "length", "in_range", "n"}
	for _, m := range ms {
		x := m.Short
		head = append(head, x+"_mean", x+"_std", x+"_min", x+"_max")
	}
	var recs [][]string
	for _, r := range rows {
		rec := []string{r.Task, r.Scheme, r.Variant, strconv.Itoa(r.Length), strconv.FormatBool(r.InRange), strconv.Itoa(r.Scores[ms[0].Name].N)}
		for _, m := range ms {
			rec = append(rec, statFields(r.Scores[m.Name])...)
		}
		recs = append(recs, rec)
	}
	return table.CSV(head, recs)
}

// SelectionTable is the markdown of a grid's select: choice: per group, every candidate's mean
// validation score over the tuning seeds and the value chosen.
func SelectionTable(sel *grid.Selection) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n## Selection of %s\n\n", sel.Field)
	fmt.Fprintf(&b, "Each group's value: the highest mean validation %s (training lengths) over the tuning seeds %v, ties to the value listed first; "+
		"a group below %.2f did not learn the task in range with any value. Only the chosen value's runs are in the tables above (selection.json).\n\n",
		metric.Words(sel.Metric), sel.Seeds, grid.LearnedScore)
	table.MarkdownHead(&b, table.L("group"), table.L("scores of the candidates"), table.R("chosen"), table.L("learned in range"))
	for _, g := range sel.Groups {
		var vals, scores []string
		for _, k := range slices.Sorted(maps.Keys(g.Values)) {
			vals = append(vals, k+"="+g.Values[k])
		}
		for i, x := range g.Scores {
			scores = append(scores, fmt.Sprintf("%g: %s", sel.Values[i], f3(x)))
		}
		table.MarkdownRow(&b, strings.Join(vals, ", "), strings.Join(scores, ", "), fmt.Sprintf("%g", g.Chosen), strconv.FormatBool(g.Learned))
	}
	return b.String()
}

// extrapolationRule is the sentence that defines the "extrapolates to" and "ratio" columns
// (stats.ExtrapolatesTo), in report.md and in the claims engine.
func extrapolationRule() string {
	return fmt.Sprintf("*Extrapolates to*: the longest tested length up to which the headline score (exact match; token accuracy for the slots format) "+
		"stays clearly above chance at every tested length: the lower end of the %.0f%% t interval of its mean over seeds (with one seed, the score itself) "+
		"exceeds the task's chance level + %.2f (chance: what guessing scores, 1/k per output token for k possible values, (1/k)^n for an n-token answer, or the task's baseline where its answers are padded or skewed, docs/tasks.md#baselines); "+
		"a length where chance is within %.2f of 1 (no score can clear it) is skipped; – when it is not even at the shortest length. *Ratio*: that length over the longest training length.",
		stats.Level*100, stats.ChanceMargin, stats.ChanceMargin)
}
