package config

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard selects the cells of a grid whose stable index ≡ Index (mod Count), so Count independent
// processes, each given another Index, run every cell exactly once.
type Shard struct {
	Index, Count int
	Source       string // where it came from: "-shard", "SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX" or "" (all cells)
}

// allShards is the shard that runs every cell.
var allShards = Shard{Index: 0, Count: 1}

// ParseShard reads "i/n" with 0 ≤ i < n.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("-shard %q: want i/n with 0 ≤ i < n, e.g. -shard 0/3", s)
	}
	return Shard{Index: i, Count: n, Source: "-shard"}, nil
}

// ShardFromEnv finds the shard of a Slurm array task or a Kubernetes Indexed Job:
//   - Slurm: SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_COUNT (the index is taken relative to
//     SLURM_ARRAY_TASK_MIN, default 0, so --array=1-8 works too);
//   - Kubernetes: JOB_COMPLETION_INDEX with the count in POSFORMER_SHARDS (an Indexed Job's
//     completions; the manifest in deploy/ sets it).
//
// It returns allShards when neither is set.
func ShardFromEnv(getenv func(string) string) (Shard, error) {
	num := func(key string) (int, error) {
		n, err := strconv.Atoi(getenv(key))
		if err != nil {
			return 0, fmt.Errorf("%s=%q is not a number", key, getenv(key))
		}
		return n, nil
	}
	idKey, countKey, fix := "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", ""
	if getenv(idKey) == "" {
		idKey, countKey, fix = "JOB_COMPLETION_INDEX", "POSFORMER_SHARDS", "; set it to the Indexed Job's completions"
	}
	if getenv(idKey) == "" {
		return allShards, nil
	}
	i, err := num(idKey)
	if err != nil {
		return Shard{}, err
	}
	lo := 0
	if idKey == "SLURM_ARRAY_TASK_ID" && getenv("SLURM_ARRAY_TASK_MIN") != "" {
		if lo, err = num("SLURM_ARRAY_TASK_MIN"); err != nil {
			return Shard{}, err
		}
	}
	n, err := strconv.Atoi(getenv(countKey))
	if err != nil || n < 1 {
		return Shard{}, fmt.Errorf("%s is set but %s=%q is not a positive number%s", idKey, countKey, getenv(countKey), fix)
	}
	switch {
	case i-lo >= 0 && i-lo < n:
		return Shard{Index: i - lo, Count: n, Source: idKey}, nil
	case idKey == "SLURM_ARRAY_TASK_ID":
		return Shard{}, fmt.Errorf("SLURM_ARRAY_TASK_ID=%d is outside the array %d..%d; use a contiguous --array=%d-%d", i, lo, lo+n-1, lo, lo+n-1)
	}
	return Shard{}, fmt.Errorf("JOB_COMPLETION_INDEX=%d is outside 0..%d (POSFORMER_SHARDS=%d)", i, n-1, n)
}

// Has: the cell of this stable index is this shard's (the zero value, like 0/1, has every cell).
func (s Shard) Has(index int) bool { return s.Count <= 1 || index%s.Count == s.Index }

func (s Shard) String() string {
	if s.Count <= 1 {
		return "all cells"
	}
	src := ""
	if s.Source != "" {
		src = " (from " + s.Source + ")"
	}
	return fmt.Sprintf("shard %d/%d%s", s.Index, s.Count, src)
}
