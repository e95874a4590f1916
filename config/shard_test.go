package config

import (
	"strings"
	"testing"
)

func TestShardFromEnv(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want Shard
		err  string
	}{
		{map[string]string{}, allShards, ""},
		{map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "4"}, Shard{3, 4, "SLURM_ARRAY_TASK_ID"}, ""},
		{map[string]string{"SLURM_ARRAY_TASK_ID": "8", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "8"}, Shard{7, 8, "SLURM_ARRAY_TASK_ID"}, ""},
		{map[string]string{"JOB_COMPLETION_INDEX": "0", "POSFORMER_SHARDS": "5"}, Shard{0, 5, "JOB_COMPLETION_INDEX"}, ""},
		{map[string]string{"SLURM_ARRAY_TASK_ID": "3"}, Shard{}, "SLURM_ARRAY_TASK_COUNT"},
		{map[string]string{"SLURM_ARRAY_TASK_ID": "9", "SLURM_ARRAY_TASK_COUNT": "4"}, Shard{}, "outside the array"},
		{map[string]string{"JOB_COMPLETION_INDEX": "1"}, Shard{}, "POSFORMER_SHARDS"},
		{map[string]string{"JOB_COMPLETION_INDEX": "x", "POSFORMER_SHARDS": "2"}, Shard{}, "not a number"},
	} {
		got, err := ShardFromEnv(func(k string) string { return tc.env[k] })
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%v: got %v, %v; want an error containing %q", tc.env, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%v: got %+v, %v; want %+v", tc.env, got, err, tc.want)
		}
	}
}

// TestShardsPartitionCells: n shards select every cell exactly once.
func TestShardsPartitionCells(t *testing.T) {
	cells := make([]Cell, 23)
	for i := range cells {
		cells[i].Index = i
	}
	for n := 1; n <= 7; n++ {
		seen := map[int]int{}
		for i := 0; i < n; i++ {
			for _, c := range cells {
				if (Shard{Index: i, Count: n}).Has(c.Index) {
					seen[c.Index]++
				}
			}
		}
		for i := range cells {
			if seen[i] != 1 {
				t.Fatalf("n=%d: cell %d selected %d times", n, i, seen[i])
			}
		}
	}
	for _, bad := range []string{"3/3", "-1/2", "1", "a/b", "0/0"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q): want an error", bad)
		}
	}
}
