package report

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"slices"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/grid"
	"github.com/posformer/posformer/metric"
	"github.com/posformer/posformer/position"
	"github.com/posformer/posformer/train"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gorgonia.org/tensor"
)

// schemeBase is the frequency base the plots of a scheme's table use: that of the grid's first
// cell of this kind (sinusoidal and rope each have their own base option), else the default.
func schemeBase(g *grid.Grid, kind string) float64 {
	for _, c := range g.Cells {
		if c.Config.Position.Kind != kind {
			continue
		}
		if b, ok := c.Config.Position.Option("base"); ok {
			return b.(float64)
		}
	}
	return position.DefaultBase
}

// illustrations are the plots drawn from a scheme's formula at the grid's sizes, whatever schemes
// the grid trains, not from any run's weights or scores; report.md says so above the first of them.
var illustrations = map[string]bool{
	"pe_sinusoidal_table": true, "pe_dot_vs_offset": true, "rope_score_vs_offset": true, "pe_similarity_matrix": true,
}

// writePlots draws a grid's plots in dir and returns their names (without extension), in order:
// the curves, then per task its scores, loss and attended distance (a curve task: its loss),
// then the encodings' own plots when some task is not a curve task: a trained learned table, then
// the illustrations.
func writePlots(dir string, g *grid.Grid, sums []GroupSummary, rows []LengthStat, curves []Curve) ([]string, error) {
	type drawPlot func() (string, error) // a plot's name ("" when there is nothing to draw)
	plots := []drawPlot{func() (string, error) { return curvePlot(dir, curves) }}
	seq, _, text := byKind(sums, nil)
	for _, task := range tasks(sums) {
		loss := func() (string, error) { return lossPlot(dir, task, g) }
		if slices.ContainsFunc(text, func(s GroupSummary) bool { return s.Task == task }) { // curvePlot's, no exact match nor attention statistics
			plots = append(plots, loss)
			continue
		}
		plots = append(plots, func() (string, error) { return exactPlot(dir, task, sums, rows) }, loss,
			func() (string, error) { return distancePlot(dir, task, g) })
	}
	if len(seq) > 0 { // curves and the loss are a curve task's plots; its scheme's tables say nothing of it
		cfg := g.Cells[0].Config
		sinBase, ropeBase := schemeBase(g, "sinusoidal"), schemeBase(g, "rope")
		longest := 0
		for _, c := range g.Cells {
			longest = max(longest, 2*c.Config.Eval.Lengths[len(c.Config.Eval.Lengths)-1])
		}
		plots = append(plots,
			func() (string, error) { return learnedHeatmap(dir, g) }, // trained weights; the illustrations follow
			func() (string, error) { return sinusoidalHeatmap(dir, cfg.Model.DModel, sinBase, max(longest, 64)) },
			func() (string, error) { return dotVsOffset(dir, cfg.Model.DModel, sinBase, 2048) },
			func() (string, error) {
				return ropeScoreVsOffset(dir, cfg.Model.DModel/cfg.Model.Heads, ropeBase, 2048)
			},
			func() (string, error) { return similarityMatrix(dir, cfg.Model.DModel, sinBase, 2048) })
	}
	var names []string
	for _, draw := range plots {
		name, err := draw()
		if err != nil {
			return nil, err
		}
		if name != "" {
			names = append(names, name)
		}
	}
	return names, nil
}

func groupLabel(g config.Group) string {
	if g.Variant != "" {
		return g.Scheme + " " + g.Variant
	}
	return g.Scheme
}

// exactPlot: exact match against length, a line per group (mean over seeds) with a band from
// the minimum to the maximum over seeds, and a dashed line at the longest training length.
func exactPlot(dir, task string, sums []GroupSummary, rows []LengthStat) (string, error) {
	p := newPlot(task+": exact match against input length", "input length", "exact match (band: min–max over seeds)")
	p.Y.Min, p.Y.Max = 0, 1.02
	p.Legend.Top = true
	maxLen, maxX := 0, 0.0
	i := 0
	for _, s := range sums {
		if s.Task != task {
			continue
		}
		maxLen = max(maxLen, s.MaxLen)
		var line, lo, hi plotter.XYs
		for _, r := range rows {
			if r.Group != s.Group {
				continue
			}
			x := float64(r.Length)
			line = append(line, plotter.XY{X: x, Y: r.Scores[metric.ExactMatch].Mean})
			lo = append(lo, plotter.XY{X: x, Y: r.Scores[metric.ExactMatch].Min})
			hi = append(hi, plotter.XY{X: x, Y: r.Scores[metric.ExactMatch].Max})
			maxX = math.Max(maxX, x)
		}
		l, err := addSeries(p, i, s.Seeds, line, lo, hi)
		if err != nil {
			return "", err
		}
		p.Legend.Add(fmt.Sprintf("%s (n=%d)", groupLabel(s.Group), s.Seeds), l)
		i++
	}
	v, err := trainingLine(p, maxLen, 0, 1.02)
	if err != nil {
		return "", err
	}
	p.Legend.Add(fmt.Sprintf("longest training length (%d)", maxLen), v)
	p.X.Min, p.X.Max = 0, maxX+1
	name := "exact_vs_length_" + task
	return name, save(p, dir, name, 7*vg.Inch, 4.5*vg.Inch)
}

// addSeries adds series i to p: its line (a mean over seeds) in the series' colour and dashes,
// over a band from lo to hi (the minimum and maximum over seeds) when there are several seeds.
// It returns the line, for a legend.
func addSeries(p *plot.Plot, i, seeds int, line, lo, hi plotter.XYs) (*plotter.Line, error) {
	c := plotutil.Color(i)
	if seeds > 1 {
		band := append(slices.Clone(hi), lo...) // hi, then lo backwards
		slices.Reverse(band[len(hi):])
		poly, err := plotter.NewPolygon(band)
		if err != nil {
			return nil, err
		}
		r, gg, b, _ := c.RGBA()
		poly.Color = color.NRGBA{uint8(r >> 8), uint8(gg >> 8), uint8(b >> 8), 50}
		poly.LineStyle.Width = 0
		p.Add(poly)
	}
	l, err := plotter.NewLine(line)
	if err != nil {
		return nil, err
	}
	l.Color, l.Width, l.Dashes = c, vg.Points(1.5), seriesDashes(i)
	p.Add(l)
	if len(line) == 1 { // a single tested length: a line of one point draws nothing, so a dot
		sc, err := plotter.NewScatter(line)
		if err != nil {
			return nil, err
		}
		sc.Color, sc.Radius = c, vg.Points(3)
		p.Add(sc)
	}
	return l, nil
}

// trainingLine adds to p the dashed grey line that marks the (longest) training length x, from y
// lo to hi, and returns it for a legend.
func trainingLine(p *plot.Plot, x int, lo, hi float64) (*plotter.Line, error) {
	v, err := plotter.NewLine(plotter.XYs{{X: float64(x), Y: lo}, {X: float64(x), Y: hi}})
	if err != nil {
		return nil, err
	}
	v.Dashes, v.Color = []vg.Length{vg.Points(4), vg.Points(3)}, color.Gray{Y: 100}
	p.Add(v)
	return v, nil
}

// lossPlot: the training loss (mean over seeds at each logged step) per group, log scale.
func lossPlot(dir, task string, g *grid.Grid) (string, error) {
	type series struct {
		label string
		sum   map[int]float64
		n     map[int]int
	}
	var order []string
	byGroup := map[string]*series{}
	for i, r := range g.Runs {
		if r == nil || r.Result.Task != task || r.Result.Variant != "" || len(r.Metrics) == 0 {
			continue // an eval variant's training is its run's; a run without metrics has no curve
		}
		label := groupLabel(config.GroupOf(g.Cells[i]))
		s, ok := byGroup[label]
		if !ok {
			s = &series{label: label, sum: map[int]float64{}, n: map[int]int{}}
			byGroup[label] = s
			order = append(order, label)
		}
		for _, m := range r.Metrics {
			s.sum[m.Step] += m.Loss
			s.n[m.Step]++
		}
	}
	if len(order) == 0 {
		return "", nil
	}
	p := newPlot(task+": training loss (mean over seeds)", "step", "cross-entropy on output tokens")
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Legend.Top = true
	added := false
	for i, label := range order {
		s := byGroup[label]
		var xy plotter.XYs
		for _, st := range slices.Sorted(maps.Keys(s.sum)) {
			v := s.sum[st] / float64(s.n[st])
			if v > 0 {
				xy = append(xy, plotter.XY{X: float64(st), Y: v})
			}
		}
		if len(xy) == 0 {
			continue // nothing a log scale can show
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return "", err
		}
		l.Color, l.Width, l.Dashes = plotutil.Color(i), vg.Points(1.2), seriesDashes(i)
		p.Add(l)
		p.Legend.Add(label, l)
		added = true
	}
	if !added {
		return "", nil
	}
	name := "loss_" + task
	return name, save(p, dir, name, 7*vg.Inch, 4.5*vg.Inch)
}

// heatmap renders values[r][c] (rows along y, columns along x) as a raster image with a
// blue–white–red colour map symmetric around 0.
func heatmap(dir, name, title, xlabel, ylabel string, values [][]float64, xmax, ymax float64) (string, error) {
	lim := 0.0
	for _, row := range values {
		for _, v := range row {
			lim = math.Max(lim, math.Abs(v))
		}
	}
	if lim == 0 {
		lim = 1
	}
	cm := moreland.SmoothBlueRed()
	cm.SetMin(-lim)
	cm.SetMax(lim)
	h, w := len(values), len(values[0])
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for r, row := range values {
		for c, v := range row {
			col, err := cm.At(v)
			if err != nil {
				col = color.Black
			}
			img.Set(c, h-1-r, col) // row 0 at the bottom
		}
	}
	p := newPlot(fmt.Sprintf("%s (blue −%.3g … white 0 … red +%.3g)", title, lim, lim), xlabel, ylabel)
	p.Add(plotter.NewImage(img, 0, 0, xmax, ymax))
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, xmax, 0, ymax
	p.Y.Tick.Marker = wholeTicks{}
	return name, save(p, dir, name, 7*vg.Inch, 5*vg.Inch)
}

func sinusoidalHeatmap(dir string, d int, base float64, positions int) (string, error) {
	if d%2 != 0 {
		return "", nil
	}
	vals := make([][]float64, positions)
	for p := range vals {
		vals[p] = position.SinusoidalPE(float64(p), d, base)
	}
	return heatmap(dir, "pe_sinusoidal_table", fmt.Sprintf("sinusoidal PE, d=%d, base %g", d, base), "dimension", "position", vals, float64(d), float64(positions))
}

// learnedHeatmap draws the trained table of the first finished learned run.
func learnedHeatmap(dir string, g *grid.Grid) (string, error) {
	for _, r := range g.Runs {
		if r == nil || r.Result.Scheme != "learned" {
			continue
		}
		m, _, err := train.LoadModel(r.Dir)
		if errors.Is(err, os.ErrNotExist) {
			continue // its checkpoint was removed: the results stand, the table is gone
		}
		if err != nil {
			return "", err
		}
		tb, ok := m.Scheme.(position.Tabler)
		if !ok {
			return "", nil
		}
		lp := m.Scheme.(*position.Learned)
		t, err := tb.Table(lp.MaxPositions)
		if err != nil {
			return "", err
		}
		longest := 2 * r.Cell.Config.Eval.Lengths[len(r.Cell.Config.Eval.Lengths)-1]
		rows := t.Rows[:min(len(t.Rows), max(longest, 2*r.Result.MaxLen))]
		title := fmt.Sprintf("trained learned table (%s, seed %d; trained positions < %d)", r.Result.Task, r.Result.Seed, 2*r.Result.MaxLen)
		return heatmap(dir, "pe_learned_table", title, "dimension", "position", rows, float64(len(rows[0])), float64(len(rows)))
	}
	return "", nil
}

// dotVsOffset: ⟨PE(p₀), PE(p₀+k)⟩ against k, with p₀ in the middle, which by the identity
// Σᵢ cos(k·ωᵢ) depends on k only.
func dotVsOffset(dir string, d int, base float64, span int) (string, error) {
	if d%2 != 0 {
		return "", nil
	}
	p0 := float64(span)
	ref := position.SinusoidalPE(p0, d, base)
	var xy plotter.XYs
	for k := -span; k <= span; k++ {
		pe := position.SinusoidalPE(p0+float64(k), d, base)
		var dot float64
		for i := range pe {
			dot += pe[i] * ref[i]
		}
		xy = append(xy, plotter.XY{X: float64(k), Y: dot})
	}
	p := newPlot(fmt.Sprintf("sinusoidal: PE(p)·PE(p+k) against offset k (d=%d, p=%d)", d, span), "offset k", "dot product")
	l, err := plotter.NewLine(xy)
	if err != nil {
		return "", err
	}
	l.Color = plotutil.Color(0)
	p.Add(l)
	name := "pe_dot_vs_offset"
	return name, save(p, dir, name, 7*vg.Inch, 4*vg.Inch)
}

// ropeScoreVsOffset: ⟨R(m)q, R(n)k⟩ against m−n for fixed random q, k, from two different
// absolute positions of m: the curves coincide because the score depends on m−n only.
func ropeScoreVsOffset(dir string, dh int, base float64, span int) (string, error) {
	s, err := position.New(position.Spec{Kind: "rope"}.With("base", base), position.Dims{DModel: dh, Heads: 1, Dtype: tensor.Float64})
	if err != nil {
		return "", nil // an odd head dimension has no rope plot
	}
	r := s.(*position.RoPE)
	rng := rand.New(rand.NewPCG(1, 2))
	q, k := make([]float64, dh), make([]float64, dh)
	for i := range q {
		q[i], k[i] = rng.NormFloat64(), rng.NormFloat64()
	}
	p := newPlot(fmt.Sprintf("RoPE: R(m)q·R(n)k against m−n (d_head=%d, random q, k)", dh), "offset m − n", "score")
	p.Legend.Top = true
	for i, m := range []int{span, 3 * span} {
		rq := r.Rotate(q, float64(m))
		var xy plotter.XYs
		for off := -span; off <= span; off += 2 {
			rk := r.Rotate(k, float64(m-off))
			var dot float64
			for j := range rq {
				dot += rq[j] * rk[j]
			}
			xy = append(xy, plotter.XY{X: float64(off), Y: dot})
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return "", err
		}
		l.Color = plotutil.Color(i)
		if i == 1 {
			l.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
		}
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("query at m = %d", m), l)
	}
	name := "rope_score_vs_offset"
	return name, save(p, dir, name, 7*vg.Inch, 4*vg.Inch)
}

// similarityMatrix: ⟨PE(p), PE(q)⟩ for p, q < n (sampled every n/512 positions).
func similarityMatrix(dir string, d int, base float64, n int) (string, error) {
	if d%2 != 0 {
		return "", nil
	}
	stride := max(n/512, 1)
	m := n / stride
	pes := make([][]float64, m)
	for i := range pes {
		pes[i] = position.SinusoidalPE(float64(i*stride), d, base)
	}
	vals := make([][]float64, m)
	for i := range vals {
		vals[i] = make([]float64, m)
		for j := range vals[i] {
			var dot float64
			for t := range pes[i] {
				dot += pes[i][t] * pes[j][t]
			}
			vals[i][j] = dot
		}
	}
	title := fmt.Sprintf("sinusoidal similarity PE(p)·PE(q), p, q < %d, d=%d", n, d)
	return heatmap(dir, "pe_similarity_matrix", title, "position q", "position p", vals, float64(n), float64(n))
}

// seriesDashes tells series apart once plotutil's seven colours repeat: the first seven lines
// are solid, the next seven dashed, and so on, so no two series of a plot look alike.
func seriesDashes(i int) []vg.Length {
	return plotutil.Dashes(i / len(plotutil.SoftColors))
}
