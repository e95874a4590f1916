package report

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/posformer/posformer/internal/stats"
	"github.com/posformer/posformer/metric"
	"github.com/posformer/posformer/train"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// LMCurve is one group's bits per byte against context length (the lm task): per length, the
// statistic over the group's seeds, with non-overlapping windows and with the sliding window.
type LMCurve struct {
	Group   Group
	MaxLen  int // the training length
	Lengths []int
	Windows []Stat // bits per byte, non-overlapping windows
	Sliding []Stat // bits per byte, sliding window
	// Change and SlidingChange are, per length, each seed's bits per byte minus its own at the
	// training length MaxLen (nil when the group was not evaluated at MaxLen).
	Change, SlidingChange [][]float64
	Seeds                 int
}

// LMCurves gathers the lm runs of a grid by group (GroupOf), in the grid's order; nil when
// it has none. A group's lengths are those every one of its runs has.
func LMCurves(g *Grid) []LMCurve {
	var order []Group
	runs := map[Group][]*train.Result{}
	for i, r := range g.Runs {
		if r == nil || r.Result == nil || len(r.Result.Lengths) == 0 || r.Result.Lengths[0].Score(metric.BitsPerByte) == 0 {
			continue
		}
		k := GroupOf(g.Cells[i])
		if _, ok := runs[k]; !ok {
			order = append(order, k)
		}
		runs[k] = append(runs[k], r.Result)
	}
	var out []LMCurve
	for _, k := range order {
		rs := runs[k]
		c := LMCurve{Group: k, MaxLen: rs[0].MaxLen, Seeds: len(rs)}
		at := func(r *train.Result, L int) int {
			return slices.IndexFunc(r.Lengths, func(x train.LengthResult) bool { return x.Length == L })
		}
		for _, l := range rs[0].Lengths {
			var w, s, dw, ds []float64
			for _, r := range rs {
				i := slices.IndexFunc(r.Lengths, func(x train.LengthResult) bool { return x.Length == l.Length })
				if i < 0 {
					break
				}
				bpb, sliding := r.Lengths[i].Score(metric.BitsPerByte), r.Lengths[i].Score(metric.SlidingBitsPerByte)
				w = append(w, bpb)
				s = append(s, sliding)
				if t := at(r, c.MaxLen); t >= 0 {
					dw = append(dw, bpb-r.Lengths[t].Score(metric.BitsPerByte))
					ds = append(ds, sliding-r.Lengths[t].Score(metric.SlidingBitsPerByte))
				}
			}
			if len(w) != len(rs) {
				continue
			}
			c.Lengths = append(c.Lengths, l.Length)
			c.Windows = append(c.Windows, NewStat(w))
			c.Sliding = append(c.Sliding, NewStat(s))
			if len(dw) == len(rs) {
				c.Change = append(c.Change, dw)
				c.SlidingChange = append(c.SlidingChange, ds)
			} else {
				c.Change, c.SlidingChange = append(c.Change, nil), append(c.SlidingChange, nil)
			}
		}
		out = append(out, c)
	}
	return out
}

// lmPlot draws bits per byte against context length (log₂ axis), one line per group (the mean
// over seeds) with a band from the minimum to the maximum over seeds and the training length
// marked: non-overlapping windows on the left, the sliding window on the right. "" when the
// grid has no lm run.
func lmPlot(dir string, curves []LMCurve) (string, error) {
	if len(curves) == 0 {
		return "", nil
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, c := range curves {
		for i := range c.Lengths {
			lo = min(lo, c.Windows[i].Min, c.Sliding[i].Min)
			hi = max(hi, c.Windows[i].Max, c.Sliding[i].Max)
		}
	}
	pad := 0.05 * (hi - lo)
	lo, hi = lo-pad, hi+pad
	leg := plot.NewLegend()
	panels := make([]*plot.Plot, 2)
	for pi, title := range []string{"non-overlapping windows", "sliding window"} {
		p := plot.New()
		p.Title.Text = "lm: bits per byte against context length, " + title
		p.X.Label.Text = "context length (bytes, log scale)"
		p.Y.Label.Text = "bits per byte (band: min–max over seeds)"
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = lengthTicks(curves[0].Lengths)
		p.Y.Tick.Marker = decimalTicks{}
		p.Y.Min, p.Y.Max = lo, hi
		maxLen := 0
		for i, c := range curves {
			stats := c.Windows
			if pi == 1 {
				stats = c.Sliding
			}
			maxLen = max(maxLen, c.MaxLen)
			var line, bl, bh plotter.XYs
			for j, L := range c.Lengths {
				x := float64(L)
				line = append(line, plotter.XY{X: x, Y: stats[j].Mean})
				bl = append(bl, plotter.XY{X: x, Y: stats[j].Min})
				bh = append(bh, plotter.XY{X: x, Y: stats[j].Max})
			}
			l, err := addSeries(p, i, c.Seeds, line, bl, bh)
			if err != nil {
				return "", err
			}
			if pi == 0 {
				leg.Add(fmt.Sprintf("%s (n=%d)", groupLabel(c.Group), c.Seeds), l)
			}
		}
		v, err := plotter.NewLine(plotter.XYs{{X: float64(maxLen), Y: lo}, {X: float64(maxLen), Y: hi}})
		if err != nil {
			return "", err
		}
		v.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		v.Color = color.Gray{100}
		p.Add(v)
		if pi == 0 {
			leg.Add(fmt.Sprintf("training length (%d)", maxLen), v)
		}
		panels[pi] = p
	}
	name := "lm_bits_per_byte"
	return name, saveFigure(dir, name, [][]*plot.Plot{panels}, leg, 13*vg.Inch, 5*vg.Inch)
}

// LMTable is the lm curves as a markdown table: per group, the mean bits per byte over seeds
// at every length (non-overlapping windows; the sliding window's after a slash where it differs).
func LMTable(curves []LMCurve) string {
	if len(curves) == 0 {
		return ""
	}
	var b strings.Builder
	lengths := curves[0].Lengths
	b.WriteString("| scheme | seeds |")
	for _, L := range lengths {
		fmt.Fprintf(&b, " %d |", L)
	}
	b.WriteString("\n| --- | ---: |")
	for range lengths {
		b.WriteString(" ---: |")
	}
	b.WriteString("\n")
	for _, c := range curves {
		fmt.Fprintf(&b, "| %s | %d |", groupLabel(c.Group), c.Seeds)
		for _, L := range lengths {
			i := slices.Index(c.Lengths, L)
			switch {
			case i < 0:
				b.WriteString(" – |")
			case c.Sliding[i].Mean != c.Windows[i].Mean:
				fmt.Fprintf(&b, " %.3f / %.3f |", c.Windows[i].Mean, c.Sliding[i].Mean)
			default:
				fmt.Fprintf(&b, " %.3f |", c.Windows[i].Mean)
			}
		}
		b.WriteString("\n")
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

// LMChangeTable is, per group and per length past the training length, the change of bits per
// byte from the training length: the mean over seeds of each seed's own difference and its 95% t
// interval (paired by seed; no interval with one seed), non-overlapping windows then the sliding
// window. "" without lm curves.
func LMChangeTable(curves []LMCurve) string {
	var b strings.Builder
	for _, c := range curves {
		for i, L := range c.Lengths {
			if L <= c.MaxLen || c.Change[i] == nil {
				continue
			}
			if b.Len() == 0 {
				b.WriteString("| scheme | seeds | length | change, non-overlapping [95% interval] | change, sliding [95% interval] |\n| --- | ---: | ---: | --- | --- |\n")
			}
			fmt.Fprintf(&b, "| %s | %d | %d | %s | %s |\n", groupLabel(c.Group), c.Seeds, L, change(c.Change[i]), change(c.SlidingChange[i]))
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

// lmSummaryCSV is summary.csv for lm groups: per group, bits per byte at the training length
// (max_len) and at the longest length the group was evaluated at, and the change between them
// (each seed's own, mean and 95% t interval; empty with one seed), with non-overlapping windows
// and then with the sliding window. A value that does not exist is an empty field: a group of
// sums (the lm groups) whose every seed diverged has no curve and a row of empty values.
func lmSummaryCSV(curves []LMCurve, sums []GroupSummary) []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write([]string{"task", "scheme", "variant", "seeds", "max_len", "metric",
		"train_bpb_mean", "train_bpb_std", "longest_length", "longest_bpb_mean", "longest_bpb_std",
		"longest_change_mean", "longest_change_lo", "longest_change_hi",
		"sliding_train_bpb_mean", "sliding_longest_bpb_mean",
		"sliding_longest_change_mean", "sliding_longest_change_lo", "sliding_longest_change_hi"})
	g, nan := csvFloat, math.NaN()
	for _, c := range curves {
		if len(c.Lengths) == 0 {
			continue
		}
		trainW, trainS := Stat{Mean: nan, Std: nan}, Stat{Mean: nan}
		if t := slices.Index(c.Lengths, c.MaxLen); t >= 0 {
			trainW, trainS = c.Windows[t], c.Sliding[t]
		}
		last := len(c.Lengths) - 1
		dw, dwLo, dwHi := changeFields(c.Change[last])
		ds, dsLo, dsHi := changeFields(c.SlidingChange[last])
		w.Write([]string{c.Group.Task, c.Group.Scheme, c.Group.Variant, strconv.Itoa(c.Seeds), strconv.Itoa(c.MaxLen), metric.BitsPerByte,
			g(trainW.Mean), g(trainW.Std), strconv.Itoa(c.Lengths[last]), g(c.Windows[last].Mean), g(c.Windows[last].Std),
			g(dw), g(dwLo), g(dwHi),
			g(trainS.Mean), g(c.Sliding[last].Mean),
			g(ds), g(dsLo), g(dsHi)})
	}
	for _, s := range sums {
		if s.Diverged == s.Seeds && !slices.ContainsFunc(curves, func(c LMCurve) bool { return c.Group == s.Group }) {
			w.Write(append([]string{s.Task, s.Scheme, s.Variant, strconv.Itoa(s.Seeds), strconv.Itoa(s.MaxLen), metric.BitsPerByte}, make([]string, 13)...))
		}
	}
	w.Flush()
	return buf.Bytes()
}

// lmByLengthCSV is by_length.csv for lm groups: per group and length, bits per byte over the
// seeds (mean, std, min, max) with non-overlapping windows and with the sliding window, and the
// change from the training length (mean and 95% t interval of each seed's own).
func lmByLengthCSV(curves []LMCurve) []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write([]string{"task", "scheme", "variant", "length", "in_range", "n",
		"bpb_mean", "bpb_std", "bpb_min", "bpb_max", "sliding_bpb_mean", "sliding_bpb_std", "sliding_bpb_min", "sliding_bpb_max",
		"change_mean", "change_lo", "change_hi", "sliding_change_mean", "sliding_change_lo", "sliding_change_hi"})
	g := csvFloat
	for _, c := range curves {
		for i, L := range c.Lengths {
			bw, bs := c.Windows[i], c.Sliding[i]
			dw, dwLo, dwHi := changeFields(c.Change[i])
			ds, dsLo, dsHi := changeFields(c.SlidingChange[i])
			w.Write([]string{c.Group.Task, c.Group.Scheme, c.Group.Variant, strconv.Itoa(L), strconv.FormatBool(L <= c.MaxLen), strconv.Itoa(bw.N),
				g(bw.Mean), g(bw.Std), g(bw.Min), g(bw.Max), g(bs.Mean), g(bs.Std), g(bs.Min), g(bs.Max),
				g(dw), g(dwLo), g(dwHi), g(ds), g(dsLo), g(dsHi)})
		}
	}
	w.Flush()
	return buf.Bytes()
}

// changeFields is a change's mean and 95% t interval over seeds, NaN where it does not exist (no
// run at the training length; one seed's interval).
func changeFields(d []float64) (mean, lo, hi float64) {
	if d == nil {
		return math.NaN(), math.NaN(), math.NaN()
	}
	return stats.MeanInterval(d, 0.95)
}
