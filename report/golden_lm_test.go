package report

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/posformer/posformer/train"
	"github.com/posformer/posformer/train/config"
)

// lmFixture is a grid of lm runs (the built-in corpus): alibi and sinusoidal, two seeds.
const lmFixture = `name: lmgrid
task: {name: lm, min_len: 1, max_len: 16}
model: {d_model: 16, heads: 2, layers: 1, d_ff: 32}
train: {steps: 10, batch_size: 4}
eval: {lengths: [8, 16, 32, 64], examples: 10}
sweep:
  position: [{kind: alibi}, {kind: sinusoidal}]
  seed: [1, 2]
`

// lmBits: alibi's bits per byte fall with the context at every length, sinusoidal's rise past
// the training length 16; the sliding window's differ past it.
func lmBits(c config.Config, L int) (windows, sliding float64) {
	x := 3 - 0.2*math.Log2(float64(L)/8) + 0.05*float64(c.Seed)
	if c.Position.Kind == "sinusoidal" && L > 16 {
		x += 0.5 * math.Log2(float64(L)/16)
	}
	if L > 16 {
		return x, x - 0.1
	}
	return x, x
}

// TestReportGoldenLM: a grid of lm runs headlines bits per byte against context length, in the
// table the CLI prints (Report.Headline) and in report.md's Summary, and leaves out exact match
// (the summary's exact-match columns, 'Exact match by length') and the decoded failures, which
// mean nothing for lm; compared with testdata/golden_lm (-update rewrites them).
func TestReportGoldenLM(t *testing.T) {
	g := fixtureGrid(t, t.TempDir(), lmFixture, func(config.Config, int) float64 { return 0 })
	g = rewriteResults(t, g, func(c config.Config, r *train.Result) {
		for i, l := range r.Lengths {
			w, s := lmBits(c, l.Length)
			r.Lengths[i].BitsPerByte, r.Lengths[i].SlidingBitsPerByte = w, s
			r.Lengths[i].Perplexity, r.Lengths[i].SlidingPerplexity = math.Exp2(w), math.Exp2(s)
		}
	})
	rep, err := Write(g)
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(rep.Dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for what, text := range map[string]string{"the CLI's table": rep.Headline, "report.md": string(md)} {
		for _, want := range []string{"| scheme | seeds | 8 | 16 | 32 | 64 |", "| alibi | 2 | 3.075 | 2.875 | 2.675 / 2.575 | 2.475 / 2.375 |"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s lacks %q:\n%s", what, want, text)
			}
		}
		for _, banned := range []string{"exact", "Exact", "failures"} {
			if strings.Contains(text, banned) {
				t.Errorf("%s mentions %q:\n%s", what, banned, text)
			}
		}
	}
	compareGolden(t, rep.Dir, g.Dir, "golden_lm", "TestReportGoldenLM")
}
