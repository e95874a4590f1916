package report

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestWholeTicks: over many axis ranges, every tick is a whole number, every label is that number
// without decimals, the labels step evenly, and between 2 and 9 of them are labelled.
func TestWholeTicks(t *testing.T) {
	for _, r := range [][2]float64{{0, 25}, {0.6, 24.4}, {1, 12}, {0, 1.02}, {0, 3}, {-2048, 2048}, {0, 64}, {0, 2048}, {0, 130}, {13, 13.5}, {0, 100000}} {
		ticks := wholeTicks{}.Ticks(r[0], r[1])
		var labelled []float64
		for _, tk := range ticks {
			if tk.Value != math.Trunc(tk.Value) || tk.Value < r[0] || tk.Value > r[1] {
				t.Errorf("%v: tick at %v", r, tk.Value)
			}
			if tk.Label != "" {
				if strings.Contains(tk.Label, ".") || tk.Label != strings.TrimSuffix(strings.TrimSuffix(tk.Label, ".0"), ".00") {
					t.Errorf("%v: label %q", r, tk.Label)
				}
				labelled = append(labelled, tk.Value)
			}
		}
		if r[1]-r[0] >= 1 && (len(labelled) < 2 || len(labelled) > 9) {
			t.Errorf("%v: %d labels %v", r, len(labelled), labelled)
		}
		for i := 2; i < len(labelled); i++ {
			if labelled[i]-labelled[i-1] != labelled[1]-labelled[0] {
				t.Errorf("%v: uneven labels %v", r, labelled)
			}
		}
	}
}

// TestPlotsTickWholeLengths: the plots of a real report label their length, position and token
// axes with whole numbers: no "2.50" or "25.00" tick label in their SVGs, the exact-match axis's
// fractions in [0, 1] aside.
func TestPlotsTickWholeLengths(t *testing.T) {
	dir := fixture(t)
	writeReport(t, dir)
	decimal := regexp.MustCompile(`>-?[0-9]+\.[0-9]+<`)
	for _, name := range []string{"attended_distance_copy", "exact_vs_length_copy", "pe_sinusoidal_table", "pe_dot_vs_offset", "rope_score_vs_offset", "pe_similarity_matrix"} {
		b, err := os.ReadFile(filepath.Join(dir, "report", name+".svg"))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range decimal.FindAllString(string(b), -1) {
			v, _ := strconv.ParseFloat(strings.Trim(m, "<>"), 64)
			if name != "exact_vs_length_copy" || v < 0 || v > 1 {
				t.Errorf("%s.svg has the decimal label %s", name, m)
			}
		}
	}
}
