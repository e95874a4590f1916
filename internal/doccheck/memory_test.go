package doccheck

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/configs"
	"github.com/posformer/posformer/setup"
)

// TestReadmePredictedMemory: the memory README.md says the default experiment predicts ("the
// 1,719 MB it predicted for two runs") is what `go run ./cmd/train` prints on its "predicted peak
// memory" line for that many runs at once, computed as grid.Run computes it (the largest cell's
// predicted peak times the runs at once, in decimal MB), so a change to the model, the default
// experiment or the prediction that moves it fails here.
func TestReadmePredictedMemory(t *testing.T) {
	readme := string(readFile(t, "../../README.md"))
	m := regexp.MustCompile(`([\d,]+) MB it\s+predicted for (\w+) runs`).FindStringSubmatch(readme)
	if m == nil {
		t.Fatal(`README.md has no "N MB it predicted for K runs": say what the default experiment predicts`)
	}
	jobs, ok := map[string]int{"one": 1, "two": 2, "three": 3, "four": 4}[m[2]]
	if !ok {
		n, err := strconv.Atoi(m[2])
		if err != nil {
			t.Fatalf("README.md: %q runs is not a number", m[2])
		}
		jobs = n
	}
	said, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))

	src, err := configs.FS.ReadFile("default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, cells, err := config.Read(src, "configs/default.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := setup.CheckGrid(c, cells)
	if err != nil {
		t.Fatal(err)
	}
	var peak int64
	for _, r := range g.Cells {
		peak = max(peak, r.Memory.Peak)
	}
	if peak == 0 {
		t.Fatal("no memory predicted for the default experiment's cells")
	}
	// As grid.Run prints it: "%.0f MB for %d at a time".
	want := fmt.Sprintf("%.0f", float64(peak*int64(min(jobs, len(g.Cells))))/1e6)
	if strconv.Itoa(said) != want {
		t.Errorf("README.md says the default experiment predicted %s MB for %d runs; the program predicts %s MB: write that", m[1], jobs, want)
	}
}
