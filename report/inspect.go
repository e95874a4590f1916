package report

import (
	"fmt"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/posformer/posformer/internal/table"
	"github.com/posformer/posformer/rundir"

	"github.com/posformer/posformer/inspect"
	"github.com/posformer/posformer/train"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// InspectDir is where `train inspect` writes its files for input length L in a run directory.
func InspectDir(runDir string, L int) string {
	return filepath.Join(runDir, "inspect", fmt.Sprintf("len-%d", L))
}

// WriteInspection writes what inspect.Show measured under InspectDir: per layer a heatmap of
// every head's attention weights for the first example (layer-N.png and .svg), attention.csv
// and examples.txt. It returns the directory and the names of the files it wrote.
func WriteInspection(in *inspect.Inspection) (string, []string, error) {
	dir := InspectDir(in.Dir, in.Length)
	if err := rundir.Inside(in.Dir, dir); err != nil {
		return "", nil, fmt.Errorf("inspect: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, fmt.Errorf("inspect: cannot create %s: %w; move what is in its way, or make the run directory writable", dir, err)
	}
	var files []string
	for l := range in.Stats.First {
		name := fmt.Sprintf("layer-%d", l+1)
		if err := attentionHeatmaps(dir, name, in, l); err != nil {
			return "", nil, err
		}
		files = append(files, name+".png", name+".svg")
	}
	if err := rundir.WriteFileAtomic(filepath.Join(dir, "attention.csv"), attentionCSV(in)); err != nil {
		return "", nil, err
	}
	text, err := ExamplesText(in)
	if err != nil {
		return "", nil, err
	}
	if err := rundir.WriteFileAtomic(filepath.Join(dir, "examples.txt"), []byte(text)); err != nil {
		return "", nil, err
	}
	return dir, append(files, "attention.csv", "examples.txt"), nil
}

// attentionCSV: one row per layer, head and query position (layers and heads counted from 1,
// positions from 0): the attended distance and entropy averaged over the examples, and whether
// the query predicts the answer.
func attentionCSV(in *inspect.Inspection) []byte {
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	var recs [][]string
	for l, heads := range in.Stats.Distance {
		for h, qs := range heads {
			for q, d := range qs {
				recs = append(recs, []string{strconv.Itoa(l + 1), strconv.Itoa(h + 1), strconv.Itoa(q), strconv.FormatBool(q >= in.Length), g(d), g(in.Stats.Entropy[l][h][q])})
			}
		}
	}
	return table.CSV([]string{"layer", "head", "query", "answer", "distance", "entropy"}, recs)
}

// ExamplesText is examples.txt: the run, the exact match (and results.csv's at this length), then
// every example's input, target and prediction, whether it matched and its first wrong token.
func ExamplesText(in *inspect.Inspection) (string, error) {
	task, err := in.Config.NewTask()
	if err != nil {
		return "", err
	}
	c := in.Config
	var b strings.Builder
	fmt.Fprintf(&b, "run %s: %s, %s, seed %d, trained on lengths %d..%d\n", in.Dir, c.Task.Name, c.Position.Kind, c.Seed, c.Task.MinLen, c.Task.MaxLen)
	matched := 0
	for _, e := range in.Examples {
		if e.Matched() {
			matched++
		}
	}
	fmt.Fprintf(&b, "length %d: the first %d test examples of %d (eval.examples); exact match %d/%d = %s", in.Length, len(in.Examples), c.Eval.Examples, matched, len(in.Examples), strconv.FormatFloat(in.Exact, 'g', -1, 64))
	if in.HasResult {
		fmt.Fprintf(&b, "; results.csv: %s over %d", strconv.FormatFloat(in.ResultsExact, 'g', -1, 64), c.Eval.Examples)
	}
	b.WriteString("\n")
	how := "greedy decoding"
	if c.Task.Format == "slots" {
		how = "the argmax at every output slot (one pass)"
	}
	fmt.Fprintf(&b, "prediction: %s; [x] marks the first wrong token\n", how)
	for _, e := range in.Examples {
		status := "matched"
		if !e.Matched() {
			status = fmt.Sprintf("wrong from answer token %d", e.FirstWrong)
		}
		fmt.Fprintf(&b, "\n#%d %s\n  input      %s\n  target     %s\n  prediction %s\n", e.Index, status,
			train.FormatTokens(task, e.Input, -1), train.FormatTokens(task, e.Target, -1), train.FormatTokens(task, e.Prediction, e.FirstWrong))
	}
	return b.String(), nil
}

// indexTicks labels cell i of n (drawn over [i, i+1), or [n-i-1, n-i) when flipped) with i.
type indexTicks struct {
	n    int
	flip bool
}

func (t indexTicks) Ticks(lo, hi float64) []plot.Tick {
	step := 1
	for _, s := range []int{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000} {
		if step = s; t.n/s <= 8 {
			break
		}
	}
	var ticks []plot.Tick
	for i := 0; i < t.n; i++ {
		at := float64(i) + 0.5
		if t.flip {
			at = float64(t.n-i) - 0.5
		}
		label := ""
		if i%step == 0 {
			label = strconv.Itoa(i)
		}
		ticks = append(ticks, plot.Tick{Value: at, Label: label})
	}
	return ticks
}

// attentionHeatmaps draws one layer's heads for the first example: query down, key across, white
// (0) to dark blue (the head's largest weight), with the answer's first query and the end of the
// longest training sequence marked.
func attentionHeatmaps(dir, name string, in *inspect.Inspection, layer int) error {
	T := in.SeqLen
	p := in.Stats.First[layer]
	H := len(p) / (T * T)
	cols := 1 // the largest divisor of H up to 4, so every row of the grid is full
	for c := 2; c <= 4; c++ {
		if H%c == 0 {
			cols = c
		}
	}
	rows := H / cols
	cell := max(1, 256/T) // pixels per weight, so no scaling blurs the cells
	var grid [][]*plot.Plot
	leg := plot.NewLegend()
	for h := 0; h < H; h++ {
		w := p[h*T*T : (h+1)*T*T]
		top := 0.0
		for _, x := range w {
			top = max(top, x)
		}
		img := image.NewRGBA(image.Rect(0, 0, T*cell, T*cell))
		for i := 0; i < T; i++ {
			for j := 0; j < T; j++ {
				v := w[i*T+j] / max(top, 1e-300)
				c := color.RGBA{uint8(255 - v*(255-8)), uint8(255 - v*(255-48)), uint8(255 - v*(255-107)), 255}
				for y := i * cell; y < (i+1)*cell; y++ {
					for x := j * cell; x < (j+1)*cell; x++ {
						img.SetRGBA(x, y, c)
					}
				}
			}
		}
		pl := newPlot(fmt.Sprintf("layer %d, head %d (max %.2f)", layer+1, h+1, top), "key position", "query position")
		pl.Add(plotter.NewImage(img, 0, 0, float64(T), float64(T)))
		pl.X.Min, pl.X.Max, pl.Y.Min, pl.Y.Max = 0, float64(T), 0, float64(T)
		pl.X.Tick.Marker, pl.Y.Tick.Marker = indexTicks{n: T}, indexTicks{n: T, flip: true}
		type mark struct {
			at    int
			label string
			col   color.Color
			dash  bool
		}
		marks := []mark{{in.Length, answerLabel(in), color.RGBA{230, 120, 0, 255}, false}}
		if in.TrainSeqLen < T {
			marks = append(marks, mark{in.TrainSeqLen, fmt.Sprintf("longest training sequence: positions 0..%d, above and left of the line", in.TrainSeqLen-1), color.RGBA{200, 0, 0, 255}, true})
		}
		for _, mk := range marks {
			x, y := float64(mk.at), float64(T-mk.at)
			var first *plotter.Line
			for _, seg := range []plotter.XYs{{{X: x, Y: 0}, {X: x, Y: float64(T)}}, {{X: 0, Y: y}, {X: float64(T), Y: y}}} {
				l, err := plotter.NewLine(seg)
				if err != nil {
					return err
				}
				l.Color, l.Width = mk.col, vg.Points(1)
				if mk.dash {
					l.Dashes = []vg.Length{vg.Points(3), vg.Points(2)}
				}
				pl.Add(l)
				if first == nil {
					first = l
				}
			}
			if h == 0 {
				leg.Add(mk.label, first)
			}
		}
		if h%cols == 0 {
			grid = append(grid, make([]*plot.Plot, cols))
		}
		grid[h/cols][h%cols] = pl
	}
	title := fmt.Sprintf("example #%d, input length %d", in.Examples[0].Index, in.Length)
	if in.Positions != nil {
		title += " (randomized positions; the marks count tokens)"
	}
	grid[0][0].Title.Text = title + "\n" + grid[0][0].Title.Text
	return saveFigure(dir, name, grid, leg, vg.Length(cols)*3.4*vg.Inch, vg.Length(rows)*3.6*vg.Inch)
}

// answerLabel names the input/answer boundary of the heatmaps in the run's task format. The marks
// are drawn between cells (the ticks label cell centres), so each label says on which side of its
// line the cells it names lie.
func answerLabel(in *inspect.Inspection) string {
	if in.Config.Task.Format == "slots" {
		return fmt.Sprintf("answer slots: positions from %d, below and right of the line", in.Length)
	}
	return fmt.Sprintf("answer: query %d, the first below the line, predicts its first token", in.Length)
}
