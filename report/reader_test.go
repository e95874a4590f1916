package report

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReportReadsInOrder: report.md as a reader meets it. "±" is defined where it first appears,
// and the plots drawn from a scheme's formula (illustrations) come after every plot of the runs,
// under one line that says they are illustrations. Over the two report fixtures: the golden grid
// (three schemes, two seeds) and a single rope run.
func TestReportReadsInOrder(t *testing.T) {
	golden := filepath.Join(t.TempDir(), "golden")
	if err := os.CopyFS(golden, os.DirFS(filepath.Join("testdata", "grid"))); err != nil {
		t.Fatal(err)
	}
	run := fixture(t)
	for _, dir := range []string{golden, run} {
		writeReport(t, dir)
		src, err := os.ReadFile(filepath.Join(dir, "report", "report.md"))
		if err != nil {
			t.Fatal(err)
		}
		md := string(src)
		if i, def := strings.Index(md, "±"), strings.Index(md, "*a ± s*: the mean over seeds"); i < 0 || i != def+len("*a ") {
			t.Errorf("%s: the first ± (at byte %d) is not its definition (at %d)", dir, i, def)
		}
		const label = "Illustrations, not results:"
		if n := strings.Count(md, label); n != 1 {
			t.Errorf("%s: the illustrations' line appears %d times, want once", dir, n)
			continue
		}
		at := strings.Index(md, label)
		plots := regexp.MustCompile(`(?m)^!\[(\w+)\]`).FindAllStringSubmatchIndex(md, -1)
		var after int
		for _, p := range plots {
			name, pos := md[p[2]:p[3]], p[0]
			if illustrations[name] != (pos > at) {
				t.Errorf("%s: plot %s is on the wrong side of the illustrations' line (an illustration: %v)", dir, name, illustrations[name])
			}
			if pos > at {
				after++
			}
		}
		if after == 0 || after == len(plots) {
			t.Errorf("%s: %d of %d plots after the illustrations' line: want the runs' plots before, illustrations after", dir, after, len(plots))
		}
	}
}
