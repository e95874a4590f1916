package report

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"fmt"
	"image"
	"image/color"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// depthVariant names an eval variant that places a needle: "eval=depth25" (depth 0.25 with the
// run's own scheme options), "eval=yarn_depth25" (the same under the variant's other options,
// labelled "yarn").
var depthVariant = regexp.MustCompile(`(?:^|,)eval=(?:([A-Za-z0-9-]+)_)?depth(\d+)$`)

// DepthCell is one panel's cell of a depth heatmap: the mean over seeds of a score at a length
// and a depth (a fraction), and the number of seeds.
type DepthCell struct {
	Length int
	Depth  float64
	Mean   float64
	Seeds  int
}

// DepthGrid reads a per-seed table (claims.Export's CSV: task, scheme, variant, seed, length and
// the metric's column) and returns, per panel, the mean over seeds of the metric at every length
// and depth of the rows whose variant is a depth variant (depthVariant); a panel is a scheme, or
// "scheme + label" for a labelled variant. Panels come in the table's order.
func DepthGrid(table []byte, metric string) (panels []string, cells map[string][]DepthCell, err error) {
	recs, err := csv.NewReader(bytes.NewReader(table)).ReadAll()
	if err != nil || len(recs) < 2 {
		return nil, nil, fmt.Errorf("depth heatmap: a per-seed table with a header and rows, got %d records (%v)", len(recs), err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, h := range []string{"scheme", "variant", "length", metric} {
		if _, ok := col[h]; !ok {
			return nil, nil, fmt.Errorf("depth heatmap: the table has no column %s (header %v)", h, recs[0])
		}
	}
	type key struct {
		panel  string
		length int
		depth  float64
	}
	sum, n := map[key]float64{}, map[key]int{}
	for i, r := range recs[1:] {
		m := depthVariant.FindStringSubmatch(r[col["variant"]])
		if m == nil {
			continue
		}
		panel := r[col["scheme"]]
		if m[1] != "" {
			panel += " + " + m[1]
		}
		pct, _ := strconv.Atoi(m[2])
		L, errL := strconv.Atoi(r[col["length"]])
		x, errX := strconv.ParseFloat(r[col[metric]], 64)
		if errL != nil || errX != nil {
			return nil, nil, fmt.Errorf("depth heatmap: row %d: length %q, %s %q", i+2, r[col["length"]], metric, r[col[metric]])
		}
		k := key{panel, L, float64(pct) / 100}
		sum[k] += x
		n[k]++
		if !slices.Contains(panels, panel) {
			panels = append(panels, panel)
		}
	}
	if len(panels) == 0 {
		return nil, nil, fmt.Errorf("depth heatmap: no row has a depth variant (eval=depthNN)")
	}
	cells = map[string][]DepthCell{}
	for k, s := range sum {
		cells[k.panel] = append(cells[k.panel], DepthCell{Length: k.length, Depth: k.depth, Mean: s / float64(n[k]), Seeds: n[k]})
	}
	for _, p := range panels {
		slices.SortFunc(cells[p], func(a, b DepthCell) int { return cmp.Or(cmp.Compare(a.Depth, b.Depth), a.Length-b.Length) })
	}
	return panels, cells, nil
}

// cellPx is the side of a heatmap cell in the image's pixels.
const cellPx = 64

// DepthHeatmap draws DepthGrid's panels side by side as name.png and name.svg in dir: in each,
// the lengths along x (one column each, in order), the depths along y (0 at the top: the needle
// first), every cell coloured from 0 (blue) to 1 (red) and its mean written in it.
func DepthHeatmap(dir, name, title, metricLabel string, panels []string, cells map[string][]DepthCell) error {
	var lengths []int
	var depths []float64
	for _, p := range panels {
		for _, c := range cells[p] {
			if !slices.Contains(lengths, c.Length) {
				lengths = append(lengths, c.Length)
			}
			if !slices.Contains(depths, c.Depth) {
				depths = append(depths, c.Depth)
			}
		}
	}
	slices.Sort(lengths)
	slices.Sort(depths)
	cm := moreland.SmoothBlueRed()
	cm.SetMin(0)
	cm.SetMax(1)
	row := make([]*plot.Plot, len(panels))
	for i, panel := range panels {
		// img: cellPx × cellPx pixels a cell (so that scaling blurs only the edges), len(depths)
		// rows × len(lengths) columns, depth 0 at the top.
		img := image.NewRGBA(image.Rect(0, 0, len(lengths)*cellPx, len(depths)*cellPx))
		fill := func(x, y int, c color.Color) {
			for i := range cellPx {
				for j := range cellPx {
					img.Set(x*cellPx+i, y*cellPx+j, c)
				}
			}
		}
		for x := range lengths {
			for y := range depths {
				fill(x, y, color.Gray{Y: 200}) // no data
			}
		}
		var labels plotter.XYLabels
		for _, c := range cells[panel] {
			x, y := slices.Index(lengths, c.Length), slices.Index(depths, c.Depth)
			col, err := cm.At(c.Mean)
			if err != nil {
				return fmt.Errorf("depth heatmap %s: %s at %d, depth %g: %w", name, panel, c.Length, c.Depth, err)
			}
			fill(x, y, col)
			labels.XYs = append(labels.XYs, plotter.XY{X: float64(x) + 0.5, Y: float64(len(depths)-1-y) + 0.5})
			labels.Labels = append(labels.Labels, fmt.Sprintf("%.2f", c.Mean))
		}
		p := newPlot(panel, "context length (bytes)", "")
		if i == 0 {
			p.Y.Label.Text = "needle depth"
		}
		p.Add(plotter.NewImage(img, 0, 0, float64(len(lengths)), float64(len(depths))))
		l, err := plotter.NewLabels(labels)
		if err != nil {
			return err
		}
		for j := range l.TextStyle {
			l.TextStyle[j].XAlign, l.TextStyle[j].YAlign = -0.5, -0.5
			if m := cells[panel][j].Mean; m < 0.2 || m > 0.8 {
				l.TextStyle[j].Color = color.White // on the dark ends of the colour map
			}
		}
		p.Add(l)
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, float64(len(lengths)), 0, float64(len(depths))
		var xt, yt []plot.Tick
		for x, L := range lengths {
			xt = append(xt, plot.Tick{Value: float64(x) + 0.5, Label: strconv.Itoa(L)})
		}
		for y, d := range depths {
			yt = append(yt, plot.Tick{Value: float64(len(depths)-1-y) + 0.5, Label: strconv.FormatFloat(d, 'g', -1, 64)})
		}
		p.X.Tick.Marker, p.Y.Tick.Marker = plot.ConstantTicks(xt), plot.ConstantTicks(yt)
		row[i] = p
	}
	leg := plot.NewLegend()
	leg.Add(fmt.Sprintf("%s: blue 0 … white 0.5 … red 1", metricLabel))
	if title != "" {
		leg.Add(strings.TrimSpace(title))
	}
	w := vg.Length(len(panels)) * 3.2 * vg.Inch
	return saveFigure(dir, name, [][]*plot.Plot{row}, leg, w, 3.4*vg.Inch)
}
