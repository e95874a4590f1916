package report

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/posformer/posformer/grid"
	"github.com/posformer/posformer/metric"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/train"
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
// table the CLI prints (Report.Headline), in report.md's Summary and in summary.csv and
// by_length.csv, and leaves out exact match (the summary's exact-match columns, 'Exact match by
// length', the CSVs' exact_* columns), the decoded failures and the plots of the schemes'
// tables, which mean nothing for lm; compared with testdata/golden_lm (-update rewrites them).
func TestReportGoldenLM(t *testing.T) {
	g := fixtureGrid(t, t.TempDir(), lmFixture, func(config.Config, int) float64 { return 0 })
	g = rewriteResults(t, g, func(c config.Config, r *train.Result) {
		for i, l := range r.Lengths {
			w, s := lmBits(c, l.Length)
			sc := r.Lengths[i].Scores
			sc[metric.BitsPerByte], sc[metric.SlidingBitsPerByte] = w, s
			sc["perplexity"], sc["sliding_perplexity"] = math.Exp2(w), math.Exp2(s)
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
	for _, name := range []string{"summary.csv", "by_length.csv"} {
		b, err := os.ReadFile(filepath.Join(rep.Dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "bpb_mean") || strings.Contains(string(b), "exact") {
			t.Errorf("%s has no bits per byte, or exact match:\n%s", name, b)
		}
	}
	if len(rep.Plots) != 1 || rep.Plots[0] != "lm_bits_per_byte" {
		t.Errorf("plots %v, want only lm_bits_per_byte", rep.Plots)
	}
	compareGolden(t, rep.Dir, g.Dir, "golden_lm", "TestReportGoldenLM")
}

// mixedGrid is the fixture grid of src: copy learned in range (exact match 1 to length 16, 0
// past it), lm with lmBits's bits per byte, and the runs diverged picks diverged at step 3 (no
// scores) instead.
func mixedGrid(t *testing.T, src string, diverged func(config.Config) bool) *grid.Grid {
	g := fixtureGrid(t, t.TempDir(), src, func(c config.Config, L int) float64 {
		if c.Task.Name == "copy" && L <= 16 {
			return 1
		}
		return 0
	})
	return rewriteResults(t, g, func(c config.Config, r *train.Result) {
		if diverged(c) {
			r.Lengths = nil
			r.Diverged = &train.Divergence{Step: 3, Reason: "the loss is 2.1e+03, past 100 × ln(vocabulary) = 5.5e+02 (it exploded)", Fix: "lower train.lr (1e+09)"}
			return
		}
		for i, l := range r.Lengths {
			if c.Task.Name == "lm" {
				sc := r.Lengths[i].Scores
				sc[metric.BitsPerByte], sc[metric.SlidingBitsPerByte] = lmBits(c, l.Length)
			}
		}
	})
}

// TestReportMixedLM: a grid that mixes lm with an exact-match task keeps both: summary.csv and
// by_length.csv hold the other task's exact match (and no lm row, whose exact match is no
// score), lm_summary.csv and lm_by_length.csv the lm groups' bits per byte (report.md links
// them), and the plots include exact match against length and the schemes' tables as well as
// bits per byte.
func TestReportMixedLM(t *testing.T) {
	src := strings.Replace(lmFixture, "name: lmgrid\n", "name: mixed\n", 1) + "  task.name: [lm, copy]\n"
	g := mixedGrid(t, src, func(config.Config) bool { return false })
	rep, err := Write(g)
	if err != nil {
		t.Fatal(err)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(rep.Dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, name := range []string{"summary.csv", "by_length.csv"} {
		if s := read(name); !strings.Contains(s, "\ncopy,alibi,") || strings.Contains(s, "\nlm,") || !strings.Contains(s, "exact") {
			t.Errorf("%s: want copy's exact match and no lm row:\n%s", name, s)
		}
	}
	if s := read("lm_summary.csv"); !strings.Contains(s, "lm,alibi,,2,16,bits_per_byte,2.875,") || strings.Contains(s, "\ncopy,") {
		t.Errorf("%s: want the lm groups' bits per byte only:\n%s", "lm_summary.csv", s)
	}
	if s := read("lm_by_length.csv"); !strings.Contains(s, "lm,sinusoidal,,64,false,2,3.47") || strings.Contains(s, "\ncopy,") {
		t.Errorf("%s: want the lm groups' bits per byte only:\n%s", "lm_by_length.csv", s)
	}
	if md := read("report.md"); !strings.Contains(md, "[lm_summary.csv](lm_summary.csv)") || !strings.Contains(md, "Exact match by length") {
		t.Errorf("report.md links no lm CSV or lost exact match:\n%s", md)
	}
	// The exact-match sections and the terminal's headline leave the lm groups out: their exact
	// match is no score and they decode no answers.
	md := read("report.md")
	for _, bad := range []string{"| lm |", "#### lm:", "lm: exact match"} {
		if strings.Contains(md, bad) {
			t.Errorf("report.md holds %q: lm groups in an exact-match section:\n%s", bad, md)
		}
	}
	if !strings.Contains(md, "| copy |") || !strings.Contains(md, "#### copy: exact match by input length") {
		t.Errorf("report.md lost copy's exact-match tables:\n%s", md)
	}
	if strings.Contains(rep.Headline, "| lm |") || !strings.Contains(rep.Headline, "| copy |") {
		t.Errorf("headline: want copy's row and no lm row:\n%s", rep.Headline)
	}
	for _, want := range []string{"lm_bits_per_byte", "exact_vs_length_copy", "pe_sinusoidal_table"} {
		if !slices.Contains(rep.Plots, want) {
			t.Errorf("plots %v lack %s", rep.Plots, want)
		}
	}
}

// TestReportLMDiverged: a grid of lm runs stays an lm report when its runs diverged (they have
// no bits per byte): with every run diverged, the CLI's table and report.md's Summary say so,
// naming the groups and the fix, with no exact-match table, and summary.csv keeps a row of empty
// values per group (as the exact-match summary.csv does); with one scheme's runs diverged, the
// other's bits per byte are shown and the diverged scheme is named beside them. A grid mixing lm
// with copy whose lm runs all diverged names them in its lm section and lm_summary.csv.
func TestReportLMDiverged(t *testing.T) {
	mixed := strings.Replace(lmFixture, "name: lmgrid\n", "name: mixed\n", 1) + "  task.name: [lm, copy]\n"
	for _, tc := range []struct {
		name, src string
		diverged  func(c config.Config) bool
		want      []string // in the headline and report.md
		csv       string   // the lm summary's file
		rows      []string
	}{
		{"all", lmFixture, func(config.Config) bool { return true },
			[]string{"Every run diverged in training", "lm · alibi: 2 of 2 seeds", "lm · sinusoidal: 2 of 2 seeds", "diverged at step 3, the loss is", "lower train.lr"},
			"summary.csv", []string{"lm,alibi,,2,16,bits_per_byte,,,,,,,,,,,,,\n", "lm,sinusoidal,,2,16,bits_per_byte,,,,,,,,,,,,,\n"}},
		{"alibi", lmFixture, func(c config.Config) bool { return c.Position.Kind == "alibi" },
			[]string{"| sinusoidal | 2 |", "Diverged in training", "lm · alibi: 2 of 2 seeds", "lower train.lr"},
			"summary.csv", []string{"lm,alibi,,2,16,bits_per_byte,,,,,,,,,,,,,\n", "lm,sinusoidal,,2,16,bits_per_byte,2.875,"}},
		{"mixed", mixed, func(c config.Config) bool { return c.Task.Name == "lm" },
			[]string{"| copy |"},
			"lm_summary.csv", []string{"lm,alibi,,2,16,bits_per_byte,,,,,,,,,,,,,\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := mixedGrid(t, tc.src, tc.diverged)
			rep, err := Write(g)
			if err != nil {
				t.Fatal(err)
			}
			md, _ := os.ReadFile(filepath.Join(rep.Dir, "report.md"))
			sum, _ := os.ReadFile(filepath.Join(rep.Dir, tc.csv))
			if _, after, ok := strings.Cut(string(md), "## Plots\n"); ok && !strings.HasPrefix(after, "\n![") {
				t.Errorf("report.md has a Plots heading with no plot under it (plots %v):\n%s", rep.Plots, md)
			}
			if tc.name == "all" && (len(rep.Plots) != 0 || strings.Contains(string(md), "## Plots")) {
				t.Errorf("every run diverged: want no plot and no Plots heading, got plots %v:\n%s", rep.Plots, md)
			}
			for what, text := range map[string]string{"the CLI's table": rep.Headline, "report.md": string(md)} {
				for _, want := range tc.want {
					if !strings.Contains(text, want) {
						t.Errorf("%s lacks %q:\n%s", what, want, text)
					}
				}
				for _, banned := range []string{"exact", "Exact", "failures", "in range"} {
					if tc.name != "mixed" && strings.Contains(text, banned) {
						t.Errorf("%s mentions %q (an exact-match report):\n%s", what, banned, text)
					}
				}
			}
			if tc.name == "mixed" {
				_, sec, _ := strings.Cut(string(md), "## Bits per byte against context length (lm)")
				if !strings.Contains(sec, "Every run diverged in training, so there are no bits per byte to show (lm · alibi: 2 of 2 seeds; lm · sinusoidal: 2 of 2 seeds)") {
					t.Errorf("report.md's lm section does not name the diverged lm runs:\n%s", md)
				}
				if strings.Contains(rep.Headline, "| lm |") {
					t.Errorf("the headline holds lm:\n%s", rep.Headline)
				}
			}
			for _, row := range tc.rows {
				if !strings.HasPrefix(string(sum), "task,scheme,variant,seeds,max_len,metric,train_bpb_mean") || !strings.Contains(string(sum), "\n"+row) {
					t.Errorf("%s lacks the row %q:\n%s", tc.csv, row, sum)
				}
			}
		})
	}
}

// TestReportLMDivergedNamesLMRun: in a grid mixing lm with another task where every run diverged,
// the lm section's example of a diverged run is an lm run, though another task's run comes first.
func TestReportLMDivergedNamesLMRun(t *testing.T) {
	src := strings.Replace(lmFixture, "name: lmgrid\n", "name: mixed\n", 1) + "  task.name: [copy, lm]\n"
	rep, err := Write(mixedGrid(t, src, func(config.Config) bool { return true }))
	if err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(rep.Dir, "report.md"))
	_, sec, _ := strings.Cut(string(md), "## Bits per byte against context length (lm)")
	sec, _, _ = strings.Cut(sec, "\n## ")
	if _, run, ok := strings.Cut(sec, " Run "); !ok || !strings.HasPrefix(run, "position-alibi__seed-1__task.name-lm diverged at step 3") {
		t.Errorf("report.md's lm section does not name an lm run as the diverged example:\n%s", sec)
	}
}
