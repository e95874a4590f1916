package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/posformer/posformer/data"
)

// TestInspectWritesTokensAsText: `train inspect` writes a task's tokens as a reader reads them:
// addition's digits as 0..9 and its operator as + (not as letters), passkey's prompt as its
// bytes with \xNN for the newlines (not as token ids). Real processes: a run of 2 steps is
// trained and inspected by the CLI; examples.txt is compared with its golden copy
// (testdata/inspect/golden/tokens/TASK.txt, rewritten with -update).
func TestInspectWritesTokensAsText(t *testing.T) {
	for _, c := range []struct{ task, position, want string }{
		{"addition", "{kind: abacus, max_offset: 4, max_positions: 20}", "+"},
		{"passkey", "{kind: rope}", `The pass key is `},
	} {
		task, err := data.New(c.task, data.Options{})
		if err != nil {
			t.Fatal(err)
		}
		L := 5
		for data.CheckLength(task, L) != nil { // passkey's shortest prompt
			L++
		}
		base := t.TempDir()
		cfg := writeFile(t, filepath.Join(base, "tokens.yaml"), fmt.Sprintf(`
name: tokens
task: {name: %s, min_len: %d, max_len: %d}
model: {d_model: 8, heads: 2, layers: 1, d_ff: 8, dtype: float64}
position: %s
train: {steps: 2, batch_size: 2, val_every: 0}
eval: {lengths: "%d", examples: 2}
`, c.task, L, L, c.position, L))
		if _, stderr, code := runChild(t, "-config", cfg, "-out", base); code != 0 {
			t.Fatalf("%s: training exited %d:\n%s", c.task, code, stderr)
		}
		run := filepath.Join(base, "tokens")
		stdout, stderr, code := runChild(t, "inspect", run, "-length", strconv.Itoa(L), "-examples", "2")
		if code != 0 {
			t.Fatalf("%s: inspect exited %d:\n%s", c.task, code, stderr)
		}
		ex, err := os.ReadFile(filepath.Join(run, "inspect", fmt.Sprintf("len-%d", L), "examples.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(stdout, string(ex)) {
			t.Errorf("%s: stdout is not examples.txt:\n%s", c.task, stdout)
		}
		text := strings.ReplaceAll(string(ex), run, "RUN_DIR")
		if !strings.Contains(text, "  input      ") || !strings.Contains(text, c.want) {
			t.Errorf("%s: examples.txt does not write the input as text (%q):\n%s", c.task, c.want, text)
		}
		golden(t, "tokens/"+c.task+".txt", text)
	}
}
