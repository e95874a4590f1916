package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/internal/stats"
	"github.com/posformer/posformer/internal/table"
	"github.com/posformer/posformer/metric"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// A task whose headline metric has no chance level and no upper bound (metric.Unbounded: bits
// per byte) is read as a curve against context length: its groups are drawn, tabled and written
// in those metrics (the first with non-overlapping windows, the second with the sliding window),
// not in exact match.

// Curve is one group's scores against context length in the unbounded metrics: per length, the
// statistic over the group's seeds.
type Curve struct {
	Group   config.Group
	MaxLen  int // the training length
	Lengths []int
	// Stats are, per unbounded metric (metric.Unbounded, in order), the statistic at each length.
	Stats [][]stats.Stat
	// Change is, per unbounded metric and length, each seed's score minus its own at the training
	// length MaxLen (nil at every length when the group was not evaluated at MaxLen).
	Change [][][]float64
	Seeds  int
}

// Curves are Aggregate's groups scored in the unbounded metrics (a language model's), in the
// order of their first evaluated run; nil when there are none. A curve's lengths are those every
// evaluated seed of its group has.
func Curves(sums []GroupSummary, rows []LengthStat) []Curve {
	ms := metric.Unbounded()
	var out []Curve
	byFirst := slices.Clone(sums)
	slices.SortStableFunc(byFirst, func(a, b GroupSummary) int { return cmp.Compare(a.first, b.first) })
	for _, s := range byFirst {
		if s.evaluated == 0 || !slices.ContainsFunc(metric.For(s.Task), func(m metric.Metric) bool { return m.Name == ms[0].Name }) {
			continue // no seed evaluated, or not scored in the unbounded metrics
		}
		c := Curve{Group: s.Group, MaxLen: s.MaxLen, Seeds: s.evaluated, Stats: make([][]stats.Stat, len(ms)), Change: make([][][]float64, len(ms))}
		var atMax *LengthStat
		var mine []LengthStat
		for i, r := range rows {
			if r.Group == s.Group && r.Scores[ms[0].Name].N == s.evaluated { // every seed has it
				mine = append(mine, r)
				if r.Length == s.MaxLen {
					atMax = &rows[i]
				}
			}
		}
		for _, r := range mine {
			c.Lengths = append(c.Lengths, r.Length)
			for m, mm := range ms {
				var ds []float64 // each seed's change from its own score at MaxLen
				for i := range r.results {
					if atMax != nil {
						ds = append(ds, r.results[i].Score(mm.Name)-atMax.results[i].Score(mm.Name))
					}
				}
				c.Stats[m], c.Change[m] = append(c.Stats[m], r.Scores[mm.Name]), append(c.Change[m], ds)
			}
		}
		out = append(out, c)
	}
	return out
}

// curveFile is the name of a file or plot of the curves of a grid ("lm_bits_per_byte"): their
// task's, then what.
func curveFile(curves []Curve, what string) string { return curves[0].Group.Task + "_" + what }

// curvePlot draws the curves against context length (log₂ axis), one line per group (the mean
// over seeds) with a band from the minimum to the maximum over seeds and the training length
// marked, a panel per unbounded metric: non-overlapping windows on the left, the sliding window
// on the right. "" without curves.
func curvePlot(dir string, curves []Curve) (string, error) {
	if len(curves) == 0 {
		return "", nil
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, c := range curves {
		for _, st := range c.Stats {
			for _, s := range st {
				lo, hi = min(lo, s.Min), max(hi, s.Max)
			}
		}
	}
	pad := 0.05 * (hi - lo)
	lo, hi = lo-pad, hi+pad
	leg := plot.NewLegend()
	name := metric.Words(metric.Unbounded()[0].Name)
	var panels []*plot.Plot
	for pi, title := range []string{"non-overlapping windows", "sliding window"} {
		p := newPlot(curves[0].Group.Task+": "+name+" against context length, "+title, "context length (bytes, log scale)", name+" (band: min–max over seeds)")
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = lengthTicks(curves[0].Lengths)
		p.Y.Tick.Marker = decimalTicks{}
		p.Y.Min, p.Y.Max = lo, hi
		maxLen := 0
		for i, c := range curves {
			maxLen = max(maxLen, c.MaxLen)
			var line, bl, bh plotter.XYs
			for j, L := range c.Lengths {
				s, x := c.Stats[pi][j], float64(L)
				line, bl, bh = append(line, plotter.XY{X: x, Y: s.Mean}), append(bl, plotter.XY{X: x, Y: s.Min}), append(bh, plotter.XY{X: x, Y: s.Max})
			}
			l, err := addSeries(p, i, c.Seeds, line, bl, bh)
			if err != nil {
				return "", err
			}
			if pi == 0 {
				leg.Add(fmt.Sprintf("%s (n=%d)", groupLabel(c.Group), c.Seeds), l)
			}
		}
		v, err := trainingLine(p, maxLen, lo, hi)
		if err != nil {
			return "", err
		}
		if pi == 0 {
			leg.Add(fmt.Sprintf("training length (%d)", maxLen), v)
		}
		panels = append(panels, p)
	}
	file := curveFile(curves, metric.Unbounded()[0].Name)
	return file, saveFigure(dir, file, [][]*plot.Plot{panels}, leg, 13*vg.Inch, 5*vg.Inch)
}

// CurveTable is the curves as a markdown table: per group, the mean over seeds at every length
// (non-overlapping windows; the sliding window's after a slash where it differs).
func CurveTable(curves []Curve) string {
	if len(curves) == 0 {
		return ""
	}
	var b strings.Builder
	lengths := curves[0].Lengths
	cols := []table.Col{table.L("scheme"), table.R("seeds")}
	for _, L := range lengths {
		cols = append(cols, table.R(strconv.Itoa(L)))
	}
	table.MarkdownHead(&b, cols...)
	for _, c := range curves {
		row := []string{groupLabel(c.Group), strconv.Itoa(c.Seeds)}
		for _, L := range lengths {
			i := slices.Index(c.Lengths, L)
			switch {
			case i < 0:
				row = append(row, "–")
			case c.Stats[1][i].Mean != c.Stats[0][i].Mean:
				row = append(row, fmt.Sprintf("%.3f / %.3f", c.Stats[0][i].Mean, c.Stats[1][i].Mean))
			default:
				row = append(row, fmt.Sprintf("%.3f", c.Stats[0][i].Mean))
			}
		}
		table.MarkdownRow(&b, row...)
	}
	return b.String()
}

// lengthTicks labels the evaluated lengths.
type lengthTicks []int

func (t lengthTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for _, L := range t {
		if x := float64(L); x >= lo && x <= hi {
			out = append(out, plot.Tick{Value: x, Label: fmt.Sprint(L)})
		}
	}
	return out
}

// decimalTicks are the default ticks labelled with two decimals (bits per byte differ in the
// second).
type decimalTicks struct{}

func (decimalTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = fmt.Sprintf("%.2f", ts[i].Value)
		}
	}
	return ts
}

// CurveChangeTable is, per group and per length past the training length, the change of the
// score from the training length: the mean over seeds of each seed's own difference and its 95% t
// interval (paired by seed; no interval with one seed), non-overlapping windows then the sliding
// window. "" without curves.
func CurveChangeTable(curves []Curve) string {
	var b strings.Builder
	for _, c := range curves {
		for i, L := range c.Lengths {
			if L <= c.MaxLen || c.Change[0][i] == nil {
				continue
			}
			if b.Len() == 0 {
				table.MarkdownHead(&b, table.L("scheme"), table.R("seeds"), table.R("length"), table.L("change, non-overlapping [95% interval]"), table.L("change, sliding [95% interval]"))
			}
			table.MarkdownRow(&b, groupLabel(c.Group), strconv.Itoa(c.Seeds), strconv.Itoa(L), change(c.Change[0][i]), change(c.Change[1][i]))
		}
	}
	return b.String()
}

// change is a mean change with its 95% t interval over seeds.
func change(d []float64) string {
	m, lo, hi := stats.MeanInterval(d, 0.95)
	if math.IsNaN(lo) {
		return fmt.Sprintf("%+.4f", m)
	}
	return fmt.Sprintf("%+.4f [%+.4f, %+.4f]", m, lo, hi)
}

// curveSummaryCSV is summary.csv for curve groups: per group, the score at the training length
// (max_len) and at the longest length the group was evaluated at, and the change between them
// (each seed's own, mean and 95% t interval; empty with one seed), with non-overlapping windows
// and then with the sliding window. A value that does not exist is an empty field: a group of
// sums (the curve groups) whose every seed diverged has no curve and a row of empty values.
func curveSummaryCSV(curves []Curve, sums []GroupSummary) []byte {
	header := []string{"task", "scheme", "variant", "seeds", "max_len", "metric",
		"train_bpb_mean", "train_bpb_std", "longest_length", "longest_bpb_mean", "longest_bpb_std",
		"longest_change_mean", "longest_change_lo", "longest_change_hi",
		"sliding_train_bpb_mean", "sliding_longest_bpb_mean",
		"sliding_longest_change_mean", "sliding_longest_change_lo", "sliding_longest_change_hi"}
	g, nan, head := table.CSVFloat, math.NaN(), metric.Unbounded()[0].Name
	var recs [][]string
	for _, c := range curves {
		if len(c.Lengths) == 0 {
			continue
		}
		last, t := len(c.Lengths)-1, slices.Index(c.Lengths, c.MaxLen)
		rec := []string{c.Group.Task, c.Group.Scheme, c.Group.Variant, strconv.Itoa(c.Seeds), strconv.Itoa(c.MaxLen), head}
		for m, st := range c.Stats {
			train := stats.Stat{Mean: nan, Std: nan}
			if t >= 0 {
				train = st[t]
			}
			d, lo, hi := changeFields(c.Change[m][last])
			if m == 0 {
				rec = append(rec, g(train.Mean), g(train.Std), strconv.Itoa(c.Lengths[last]), g(st[last].Mean), g(st[last].Std), g(d), g(lo), g(hi))
			} else {
				rec = append(rec, g(train.Mean), g(st[last].Mean), g(d), g(lo), g(hi))
			}
		}
		recs = append(recs, rec)
	}
	for _, s := range sums {
		if s.Diverged == s.Seeds && !slices.ContainsFunc(curves, func(c Curve) bool { return c.Group == s.Group }) {
			recs = append(recs, append([]string{s.Task, s.Scheme, s.Variant, strconv.Itoa(s.Seeds), strconv.Itoa(s.MaxLen), head}, make([]string, 13)...))
		}
	}
	return table.CSV(header, recs)
}

// curveByLengthCSV is by_length.csv for curve groups: per group and length, the score over the
// seeds (mean, std, min, max) with non-overlapping windows and with the sliding window, and the
// change from the training length (mean and 95% t interval of each seed's own).
func curveByLengthCSV(curves []Curve) []byte {
	header := []string{"task", "scheme", "variant", "length", "in_range", "n",
		"bpb_mean", "bpb_std", "bpb_min", "bpb_max", "sliding_bpb_mean", "sliding_bpb_std", "sliding_bpb_min", "sliding_bpb_max",
		"change_mean", "change_lo", "change_hi", "sliding_change_mean", "sliding_change_lo", "sliding_change_hi"}
	var recs [][]string
	for _, c := range curves {
		for i, L := range c.Lengths {
			rec := []string{c.Group.Task, c.Group.Scheme, c.Group.Variant, strconv.Itoa(L), strconv.FormatBool(L <= c.MaxLen), strconv.Itoa(c.Stats[0][i].N)}
			for _, st := range c.Stats {
				rec = append(rec, statFields(st[i])...)
			}
			for _, ch := range c.Change {
				d, lo, hi := changeFields(ch[i])
				rec = append(rec, table.CSVFloat(d), table.CSVFloat(lo), table.CSVFloat(hi))
			}
			recs = append(recs, rec)
		}
	}
	return table.CSV(header, recs)
}

// changeFields is a change's mean and 95% t interval over seeds, NaN where it does not exist (no
// run at the training length; one seed's interval).
func changeFields(d []float64) (mean, lo, hi float64) {
	if d == nil {
		return math.NaN(), math.NaN(), math.NaN()
	}
	return stats.MeanInterval(d, 0.95)
}
