package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/position"
)

// TestEveryLengthRuledTaskRuns: every registered task that cannot build length 1 (passkey,
// flip_flop, mqar: the data.LengthChecked hook), which TestEveryTaskAndSchemeRunsInAGrid leaves
// out, trains in a grid over every scheme that does not read digits, at its shortest lengths, and
// is evaluated beyond them; every cell appears in the report. The lengths come from the task's
// own rule, so a new task with one is trained here without naming it.
func TestEveryLengthRuledTaskRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("trains one tiny run per length-ruled task and scheme")
	}
	var kinds []string
	for _, k := range position.Kinds() {
		if !position.ReadsTokens(k) {
			kinds = append(kinds, "{kind: "+k+"}")
		}
	}
	ran := 0
	for _, name := range data.Names() {
		task, err := data.New(name, data.Options{})
		if err != nil || data.ReadsCorpus(name) || data.CheckLength(task, 1) == nil {
			continue
		}
		ran++
		lo, hi, beyond := ruledLengths(t, task)
		src := fmt.Sprintf(`
name: ruled_%s
task: {name: %s, min_len: %d, max_len: %d}
model: {d_model: 8, heads: 2, layers: 1, d_ff: 8}
train: {steps: 2, batch_size: 2, val_every: 0}
eval: {lengths: %s, examples: 2}
sweep:
  position: [%s]
`, name, name, lo, hi, strings.ReplaceAll(fmt.Sprint(append([]int{lo}, beyond...)), " ", ", "), strings.Join(kinds, ", "))
		base := t.TempDir()
		cfg := filepath.Join(base, "ruled.yaml")
		if err := os.WriteFile(cfg, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := run(context.Background(), []string{"-config", cfg, "-out", base, "-jobs", "2"}, &out, io.Discard); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, src)
		}
		t.Logf("%s: trained on %d..%d, tested at %d and %v, with %d schemes", name, lo, hi, lo, beyond, len(kinds))
		for _, k := range kinds {
			k = strings.TrimSuffix(strings.TrimPrefix(k, "{kind: "), "}")
			if row := "| " + name + " | " + k + " |"; !strings.Contains(out.String(), row) {
				t.Errorf("the report has no row %q", row)
			}
		}
		if !strings.Contains(out.String(), fmt.Sprintf("%d runs in", len(kinds))) {
			t.Errorf("%s: want %d runs:\n%s", name, len(kinds), out.String())
		}
	}
	if ran == 0 {
		t.Fatal("no registered task has a rule on its lengths (passkey, flip_flop and mqar have)")
	}
}

// ruledLengths are a task's shortest training lengths lo..hi that it builds (up to four), and two
// lengths beyond hi that it builds, the last at most 16 past lo.
func ruledLengths(t *testing.T, task data.Task) (lo, hi int, beyond []int) {
	t.Helper()
	for lo = 1; data.CheckLength(task, lo) != nil; lo++ {
		if lo > 4096 {
			t.Fatalf("%s builds no length up to 4096", task.Name())
		}
	}
	for hi = lo; hi < lo+3 && data.CheckLength(task, hi+1) == nil; hi++ {
	}
	for L := hi + 1; L <= lo+16 && len(beyond) < 2; L++ {
		if data.CheckLength(task, L) == nil {
			beyond = append(beyond, L)
		}
	}
	if len(beyond) == 0 {
		t.Fatalf("%s builds no length in %d..%d", task.Name(), hi+1, lo+16)
	}
	return lo, hi, beyond
}
