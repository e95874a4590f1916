package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const singleRun = `
name: one
task: {name: copy, min_len: 1, max_len: 3}
model: {d_model: 16, heads: 2, layers: 1, d_ff: 32}
train: {steps: 5, batch_size: 4}
eval: {lengths: "1..4", examples: 8}
`

// TestShardOfSingleRun: a config without sweep: is one run, a grid of one cell with index 0, so
// of two shard processes (the -shard flag or a Slurm array) only shard 0 trains it; the other
// says so in one line, exits 0 and writes nothing (it used to train the same run too, and be
// refused by the run's lock). A malformed -shard is refused for a single run as for a grid.
func TestShardOfSingleRun(t *testing.T) {
	base := t.TempDir()
	cfg := filepath.Join(base, "one.yaml")
	if err := os.WriteFile(cfg, []byte(singleRun), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(base, "out")
	for _, tc := range []struct {
		name string
		args []string
		env  []string
		want string
	}{
		{"flag", []string{"-shard", "1/2"}, nil, "train: shard 1/2 (from -shard) has nothing to run: the config has no sweep:, so it is one run, which shard 0/2 trains\n"},
		{"slurm", nil, []string{"SLURM_ARRAY_TASK_ID=4", "SLURM_ARRAY_TASK_MIN=1", "SLURM_ARRAY_TASK_COUNT=4"}, "train: shard 3/4 (from SLURM_ARRAY_TASK_ID) has nothing to run: the config has no sweep:, so it is one run, which shard 0/4 trains\n"},
	} {
		cmd := child(append([]string{"-config", cfg, "-out", out}, tc.args...)...)
		cmd.Env = append(cmd.Env, tc.env...)
		got, err := cmd.CombinedOutput()
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: exit %v, output %q; want exit 0 and %q", tc.name, err, got, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%s: the shard with nothing to run created %s", tc.name, out)
		}
	}
	cmd := child("-config", cfg, "-out", out, "-shard", "0/2")
	if got, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("shard 0/2: %v\n%s", err, got)
	}
	if _, err := os.Stat(filepath.Join(out, "one", "results.json")); err != nil {
		t.Fatalf("shard 0/2 did not train the run: %v", err)
	}
	cmd = child("-config", cfg, "-out", filepath.Join(base, "bad"), "-shard", "2/2")
	got, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(got), `-shard "2/2": want i/n with 0 ≤ i < n`) {
		t.Errorf("-shard 2/2 on a single run: exit %v, %q; want refused", err, got)
	}
}
