package report

import (
	"bytes"
	"fmt"
	"path/filepath"

	"github.com/posformer/posformer/rundir"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// legendPad is the space between the plots and a legend drawn beside them.
const legendPad = vg.Length(10)

// newPlot is a plot with its title and axis labels, its x axis ticked at whole numbers
// (wholeTicks), as most of a report's plots are.
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, xLabel, yLabel
	p.X.Tick.Marker = wholeTicks{}
	return p
}

// save writes a plot as name.png and name.svg in dir, each atomically, with its legend (if any)
// beside the plot area, never over the data.
func save(p *plot.Plot, dir, name string, w, h vg.Length) error {
	leg := p.Legend
	p.Legend = plot.NewLegend()
	defer func() { p.Legend = leg }()
	return saveFigure(dir, name, [][]*plot.Plot{{p}}, leg, w, h)
}

// saveFigure draws plots in a grid (rows of columns) of total size w × h, with leg to their
// right (the figure grows by the legend's width), as name.png and name.svg in dir, each written
// atomically.
func saveFigure(dir, name string, plots [][]*plot.Plot, leg plot.Legend, w, h vg.Length) error {
	leg.Top, leg.Left = true, true
	lw := leg.Rectangle(draw.Canvas{}).Size().X
	total := w
	if lw > 0 {
		total += lw + 2*legendPad
	}
	for _, ext := range []string{"png", "svg"} {
		c, err := draw.NewFormattedCanvas(total, h, ext)
		if err != nil {
			return fmt.Errorf("report: plot %s.%s: %w", name, ext, err)
		}
		dc := draw.New(c)
		area := draw.Crop(dc, 0, -(total - w), 0, 0)
		if len(plots) == 1 && len(plots[0]) == 1 {
			plots[0][0].Draw(area)
		} else {
			tiles := draw.Tiles{Rows: len(plots), Cols: len(plots[0]), PadX: vg.Points(12), PadY: vg.Points(12), PadTop: vg.Points(4)}
			for i, row := range plot.Align(plots, tiles, area) {
				for j, cv := range row {
					if plots[i][j] != nil {
						plots[i][j].Draw(cv)
					}
				}
			}
		}
		if lw > 0 {
			leg.Draw(draw.Crop(dc, w+legendPad, -legendPad, 0, -vg.Points(28)))
		}
		var buf bytes.Buffer
		if _, err := c.WriteTo(&buf); err != nil {
			return fmt.Errorf("report: plot %s.%s: %w", name, ext, err)
		}
		if err := rundir.WriteFileAtomic(filepath.Join(dir, name+"."+ext), buf.Bytes()); err != nil {
			return fmt.Errorf("report: plot %s.%s: %w", name, ext, err)
		}
	}
	return nil
}
