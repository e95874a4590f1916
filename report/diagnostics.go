package report

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/grid"
	"github.com/posformer/posformer/internal/table"
	"github.com/posformer/posformer/train"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// FailuresPerScheme is how many decoded failures the report shows per scheme and task.
const FailuresPerScheme = 3

// withoutDiagnostics names the finished runs of a task that have no diagnostics.json.
func withoutDiagnostics(g *grid.Grid, task string) []string {
	var out []string
	for i, r := range g.Runs {
		if r != nil && r.Result.Task == task && r.Diagnostics == nil {
			out = append(out, g.Cells[i].Name)
		}
	}
	return out
}

// distancePlot: the attended distance against input length, one panel per layer, one line per
// scheme (mean over heads, then over seeds), with the longest training length marked. It reads
// the runs' diagnostics.json only; "" when no run of the task has them.
func distancePlot(dir, task string, g *grid.Grid) (string, error) {
	type series struct {
		label string
		sum   []map[int]float64 // [layer] length → sum over seeds of the mean over heads
		n     []map[int]int
	}
	var order []*series
	byLabel := map[string]*series{}
	layers, maxLen := 0, 0
	for i, r := range g.Runs {
		if r == nil || r.Result.Task != task || r.Diagnostics == nil {
			continue
		}
		d := r.Diagnostics
		label := groupLabel(config.GroupOf(g.Cells[i]))
		s, ok := byLabel[label]
		if !ok {
			s = &series{label: label}
			byLabel[label] = s
			order = append(order, s)
		}
		for len(s.sum) < d.Layers {
			s.sum, s.n = append(s.sum, map[int]float64{}), append(s.n, map[int]int{})
		}
		layers, maxLen = max(layers, d.Layers), max(maxLen, r.Result.MaxLen)
		for _, ld := range d.Lengths {
			for l, heads := range ld.Distance {
				var m float64
				for _, x := range heads {
					m += x
				}
				s.sum[l][ld.Length] += m / float64(len(heads))
				s.n[l][ld.Length]++
			}
		}
	}
	if len(order) == 0 {
		return "", nil
	}
	leg := plot.NewLegend()
	var row []*plot.Plot
	top := 0.0
	for l := 0; l < layers; l++ {
		p := newPlot(fmt.Sprintf("%s: layer %d", task, l+1), "input length", "")
		p.Y.Tick.Marker = wholeTicks{}
		if l == 0 {
			p.Y.Label.Text = "attended distance (tokens; mean over heads, seeds)"
		}
		for i, s := range order {
			if l >= len(s.sum) {
				continue
			}
			var xy plotter.XYs
			for L := range s.sum[l] {
				xy = append(xy, plotter.XY{X: float64(L), Y: s.sum[l][L] / float64(s.n[l][L])})
				top = max(top, xy[len(xy)-1].Y)
			}
			sort.Slice(xy, func(a, b int) bool { return xy[a].X < xy[b].X })
			line, err := plotter.NewLine(xy)
			if err != nil {
				return "", err
			}
			line.Color, line.Width, line.Dashes = plotutil.Color(i), vg.Points(1.5), seriesDashes(i)
			p.Add(line)
			if l == 0 {
				leg.Add(s.label, line)
			}
		}
		row = append(row, p)
	}
	for l, p := range row {
		p.Y.Min, p.Y.Max = 0, top*1.05+0.5
		v, err := trainingLine(p, maxLen, 0, p.Y.Max)
		if err != nil {
			return "", err
		}
		if l == 0 {
			leg.Add(fmt.Sprintf("longest training length (%d)", maxLen), v)
		}
	}
	name := "attended_distance_" + task
	return name, saveFigure(dir, name, [][]*plot.Plot{row}, leg, vg.Length(layers)*3.6*vg.Inch, 4*vg.Inch)
}

// failureTable is a markdown table of decoded failures at the first lengths past training: per
// scheme the first FailuresPerScheme (by length, then seed).
func failureTable(g *grid.Grid, task string) string {
	type row struct {
		label string
		seed  uint64
		f     train.Decoded
		L     int
		task  data.Task
	}
	var order []string
	rows := map[string][]row{}
	for i, r := range g.Runs {
		if r == nil || r.Result.Task != task || r.Diagnostics == nil {
			continue
		}
		label := groupLabel(config.GroupOf(g.Cells[i]))
		tk, err := g.Cells[i].Config.NewTask()
		if err != nil {
			continue // the config validated when it was loaded
		}
		if _, ok := rows[label]; !ok {
			order = append(order, label)
			rows[label] = nil
		}
		for _, ld := range r.Diagnostics.Lengths {
			for _, f := range ld.Failures {
				rows[label] = append(rows[label], row{label, r.Result.Seed, f, ld.Length, tk})
			}
		}
	}
	if len(order) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n#### %s: decoded failures just past the training range\n\n", task)
	b.WriteString("Greedy decoding of the first wrong test examples at the first lengths past training (the first wrong token in brackets).\n\n")
	table.MarkdownHead(&b, table.L("scheme"), table.R("seed"), table.R("length"), table.L("input"), table.L("target"), table.L("prediction"), table.R("first wrong"))
	for _, label := range order {
		rs := rows[label]
		slices.SortStableFunc(rs, func(a, b row) int { return cmp.Or(cmp.Compare(a.L, b.L), cmp.Compare(a.seed, b.seed)) })
		if len(rs) == 0 {
			fmt.Fprintf(&b, "| %s | | | no failure at the first lengths past training | | | |\n", label)
			continue
		}
		for _, r := range rs[:min(len(rs), FailuresPerScheme)] {
			fmt.Fprintf(&b, "| %s | %d | %d | `%s` | `%s` | `%s` | %d |\n", label, r.seed, r.L,
				train.FormatTokens(r.task, r.f.Input, -1), train.FormatTokens(r.task, r.f.Target, -1),
				train.FormatTokens(r.task, r.f.Prediction, r.f.FirstWrong), r.f.FirstWrong)
		}
	}
	return b.String()
}

// diagnosticsMarkdown is the report's section on attention and failures for every task.
func diagnosticsMarkdown(g *grid.Grid, tasks []string) string {
	var b strings.Builder
	b.WriteString("\n## Attention and failures\n\n")
	b.WriteString("Attended distance: Σⱼ Pᵢⱼ·|i − j| of each answer query i, averaged over the answer's queries, the first " +
		fmt.Sprint(config.DiagnosticExamples) + " test examples of each length, the heads and the seeds (plots above). " +
		"Gathered by each run's own evaluation (diagnostics.json); `go run ./cmd/train inspect RUN_DIR -length L` shows one run's heads.\n")
	for _, task := range tasks {
		if miss := withoutDiagnostics(g, task); len(miss) > 0 {
			fmt.Fprintf(&b, "\n%s: the data is absent for %d run(s) trained before posformer gathered diagnostics.json (%s); they are left out.\n", task, len(miss), strings.Join(miss, ", "))
		}
		b.WriteString(failureTable(g, task))
	}
	return b.String()
}
