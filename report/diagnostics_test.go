package report

import (
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/posformer/posformer/grid"
)

// fixture copies cmd/train's tiny finished run (it has diagnostics.json) into a temporary run
// directory.
func fixture(t *testing.T) string {
	t.Helper()
	src := filepath.Join("..", "cmd", "train", "testdata", "inspect", "run")
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// writeReport loads the grid or run in dir and writes its report.
func writeReport(t *testing.T, dir string) {
	t.Helper()
	g, err := grid.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Write(g); err != nil {
		t.Fatal(err)
	}
}

func pngSize(t *testing.T, path string) (int, int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img.Bounds().Dx(), img.Bounds().Dy()
}

// TestReportDiagnostics: a run with diagnostics.json gets the attended-distance plot (one panel
// per layer, the legend beside them) and a table of its decoded failures past the training range
// from diagnostics.json alone; a run without diagnostics.json
// still reports and says the data is absent. Every plot with a legend is wider than its plot
// area: the legend is drawn beside the data, not over it.
func TestReportDiagnostics(t *testing.T) {
	dir := fixture(t)
	writeReport(t, dir)
	md, _ := os.ReadFile(filepath.Join(dir, "report", "report.md"))
	for _, want := range []string{"![attended_distance_copy](attended_distance_copy.png)", "#### copy: decoded failures just past the training range",
		"| learned | 1 | 5 | `hbddg` | `hbddg` | `h[d]ddd` | 1 |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	if n := strings.Count(string(md), "| learned | 1 |"); n != FailuresPerScheme {
		t.Errorf("%d failure rows, want %d", n, FailuresPerScheme)
	}
	if w, h := pngSize(t, filepath.Join(dir, "report", "attended_distance_copy.png")); w <= 2*346 || h != 384 {
		t.Errorf("attended_distance_copy.png is %d × %d: want two 3.6 in panels and a legend beside them, 4 in high", w, h)
	}
	if w, _ := pngSize(t, filepath.Join(dir, "report", "exact_vs_length_copy.png")); w <= 672 {
		t.Errorf("exact_vs_length_copy.png is %d wide: the legend is not beside the 7 in plot", w)
	}

	os.Remove(filepath.Join(dir, "diagnostics.json"))
	os.RemoveAll(filepath.Join(dir, "report"))
	writeReport(t, dir)
	md, _ = os.ReadFile(filepath.Join(dir, "report", "report.md"))
	if !strings.Contains(string(md), "copy: the data is absent for 1 run(s) trained before posformer gathered diagnostics.json") || strings.Contains(string(md), "attended_distance") {
		t.Errorf("a run without diagnostics.json:\n%s", md)
	}
	if _, err := os.Stat(filepath.Join(dir, "report", "attended_distance_copy.png")); err == nil {
		t.Error("an attended-distance plot without data")
	}
}
