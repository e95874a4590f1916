package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestGridResumeReordered: a grid resumed with its sweep's values listed in another order (the
// same cells, each with its name and config) resumes: every finished run is kept as it is (its
// results.json not even rewritten), the log says so in one line, and grid.yaml takes the new
// order. As a shard (-shard i/n) it is refused in one line saying why: shards split the cells
// by their order. A sweep with other values is still another grid. Real processes.
func TestGridResumeReordered(t *testing.T) {
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	orig := writeFile(t, filepath.Join(dir, "grid.yaml"), claimsGrid) // position.kind [alibi, none] × seed [1, 2]
	if err := run(context.Background(), []string{"-config", orig, "-out", runs, "-jobs", "2"}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	grid := filepath.Join(runs, "mine")
	stamps := func() map[string]time.Time {
		m := map[string]time.Time{}
		files, _ := filepath.Glob(filepath.Join(grid, "*", "results.json"))
		for _, f := range files {
			st, err := os.Stat(f)
			if err != nil {
				t.Fatal(err)
			}
			m[f] = st.ModTime()
		}
		if len(m) != 4 {
			t.Fatalf("%d results, want 4", len(m))
		}
		return m
	}
	before := stamps()
	time.Sleep(10 * time.Millisecond) // a rewrite would show in the modification times

	reordered := writeFile(t, filepath.Join(dir, "reordered.yaml"), strings.NewReplacer("[alibi, none]", "[none, alibi]", "[1, 2]", "[2, 1]").Replace(claimsGrid))
	_, stderr, code := runChild(t, "-config", reordered, "-out", runs, "-jobs", "2", "-resume")
	want := "grid " + grid + ": the sweep lists its values in another order than grid.yaml (sweep.position.kind ([alibi, none] → [none, alibi]), sweep.seed ([1, 2] → [2, 1])), with the same 4 cells: resuming them\n"
	if code != 0 || !strings.HasPrefix(stderr, want) {
		t.Fatalf("resumed in another order: exit %d, stderr\n%s\nwant exit 0 and first\n%s", code, stderr, want)
	}
	after := stamps()
	for f, m := range before {
		if !after[f].Equal(m) {
			t.Errorf("%s was written again", f)
		}
	}
	if g, _ := os.ReadFile(filepath.Join(grid, "grid.yaml")); !strings.Contains(string(g), "position.kind: [none, alibi]") {
		t.Errorf("grid.yaml keeps the old order:\n%s", g)
	}

	// As a shard: refused, saying why.
	_, stderr, code = runChild(t, "-config", orig, "-out", runs, "-jobs", "2", "-resume", "-shard", "0/2")
	oneLineError(t, "a shard in another order", stderr, code,
		"train: cannot resume the grid in "+grid+" as shard 0/2 (from -shard): its grid.yaml has the same cells, but lists the sweep's values in another order (sweep.position.kind ([none, alibi] → [alibi, none]), sweep.seed ([2, 1] → [1, 2])), and shards split the cells by their order, so every shard of a grid must list them alike; write the sweep in grid.yaml's order, or resume without -shard")

	// Other values: another grid.
	other := writeFile(t, filepath.Join(dir, "other.yaml"), strings.Replace(claimsGrid, "[1, 2]", "[1, 3]", 1))
	_, stderr, code = runChild(t, "-config", other, "-out", runs, "-jobs", "2", "-resume")
	oneLineError(t, "other values", stderr, code, "its grid.yaml is a different grid (", "sweep.seed ([2, 1] → [1, 3])", "-force")

	// A field the cells do not show (select:'s candidates, which selection.json was chosen
	// from) changed beside the reordered sweep: another grid, and grid.yaml is left as it was.
	sel := strings.Replace(claimsGrid, "sweep:", "select: {field: train.lr, values: [0.001, 0.01]}\nsweep:", 1)
	selCfg := writeFile(t, filepath.Join(dir, "sel.yaml"), strings.Replace(sel, "name: mine", "name: sel", 1))
	if err := run(context.Background(), []string{"-config", selCfg, "-out", runs, "-jobs", "2"}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	gridYAML := filepath.Join(runs, "sel", "grid.yaml")
	kept, _ := os.ReadFile(gridYAML)
	changed := writeFile(t, filepath.Join(dir, "sel2.yaml"), strings.NewReplacer("name: mine", "name: sel", "[0.001, 0.01]", "[0.001, 0.1]", "[alibi, none]", "[none, alibi]").Replace(sel))
	_, stderr, code = runChild(t, "-config", changed, "-out", runs, "-jobs", "2", "-resume")
	oneLineError(t, "select: changed", stderr, code, "its grid.yaml is a different grid (select.values ([0.001, 0.01] → [0.001, 0.1])")
	if now, _ := os.ReadFile(gridYAML); string(now) != string(kept) {
		t.Errorf("a refused resume changed grid.yaml:\n%s", now)
	}
}
