package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const shardGrid = `
name: g
task: {name: copy, min_len: 1, max_len: 3}
model: {d_model: 16, heads: 2, layers: 1, d_ff: 32}
train: {steps: 40, batch_size: 8}
eval: {lengths: "1..6", examples: 16}
sweep:
  position.kind: [sinusoidal, rope, none]
  seed: [1, 2]
`

// TestShardsMergeToOneRun runs one grid as three shard processes at once and checks that the
// merged results equal a single-process run of the same grid, file by file.
func TestShardsMergeToOneRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs four training processes")
	}
	base := t.TempDir()
	cfg := filepath.Join(base, "grid.yaml")
	os.WriteFile(cfg, []byte(shardGrid), 0o644)
	if err := run(context.Background(), []string{"-config", cfg, "-out", filepath.Join(base, "one"), "-jobs", "1"}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for i := 0; i < 3; i++ {
		// Shard 1 learns its index from a Slurm array's environment, shard 2 from a Kubernetes
		// Indexed Job's, shard 0 from the flag.
		var cmd *exec.Cmd
		switch i {
		case 0:
			cmd = child("-config", cfg, "-out", filepath.Join(base, "three"), "-jobs", "1", "-shard", "0/3")
		case 1:
			cmd = child("-config", cfg, "-out", filepath.Join(base, "three"), "-jobs", "1")
			cmd.Env = append(cmd.Env, "SLURM_ARRAY_TASK_ID=2", "SLURM_ARRAY_TASK_MIN=1", "SLURM_ARRAY_TASK_COUNT=3")
		case 2:
			cmd = child("-config", cfg, "-out", filepath.Join(base, "three"), "-jobs", "1")
			cmd.Env = append(cmd.Env, "JOB_COMPLETION_INDEX=2", "POSFORMER_SHARDS=3")
		}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, &out)
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("shard %d: %v\n%s", i, err, outs[i])
		}
	}
	for i, want := range []string{"shard 0/3 (from -shard)", "shard 1/3 (from SLURM_ARRAY_TASK_ID)", "shard 2/3 (from JOB_COMPLETION_INDEX)"} {
		if !strings.Contains(outs[i].String(), want) {
			t.Errorf("shard %d does not say where its index came from (%q):\n%s", i, want, outs[i])
		}
	}
	var rep bytes.Buffer
	if err := run(context.Background(), []string{"report", filepath.Join(base, "three", "g")}, &rep, io.Discard); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(rep.String(), "missing") {
		t.Fatalf("cells missing after all shards finished:\n%s", rep.String())
	}
	one, three := filepath.Join(base, "one", "g"), filepath.Join(base, "three", "g")
	compared := sameResults(t, one, three, "one process", "three shards")
	if compared != 6*3+2 {
		t.Errorf("compared %d files, want %d", compared, 6*3+2)
	}
}

// TestReportNamesMissingCells: a report over a partly finished grid merges what is there and
// names what is not.
func TestReportNamesMissingCells(t *testing.T) {
	base := t.TempDir()
	cfg := filepath.Join(base, "grid.yaml")
	os.WriteFile(cfg, []byte(strings.Replace(shardGrid, "steps: 40", "steps: 5", 1)), 0o644)
	if err := run(context.Background(), []string{"-config", cfg, "-out", base, "-shard", "1/2"}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	var rep bytes.Buffer
	if err := run(context.Background(), []string{"report", filepath.Join(base, "g")}, &rep, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rep.String(), "3 of 6 cells missing") || !strings.Contains(rep.String(), "position.kind-sinusoidal__seed-1") {
		t.Fatalf("report does not name the missing cells:\n%s", rep.String())
	}
}
