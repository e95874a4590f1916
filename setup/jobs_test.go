package setup

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/internal/memlimit"
)

// TestCheckJobs: -jobs N is refused when N times the largest run's predicted peak does not fit
// under the process's limit, in one line naming -jobs and the largest N that fits
// (testdata/jobs.golden, under a cgroup limit of 3.5 runs' peaks); a number that fits, one
// run at a time, no limit, and a shard with fewer cells than -jobs pass.
func TestCheckJobs(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // the prediction counts the cores
	orig := processLimits
	defer func() { processLimits = orig }()
	src := "name: gj\ntask: {name: copy, min_len: 1, max_len: 40}\nmodel: {d_model: 128, heads: 4, layers: 2}\ntrain: {steps: 2, batch_size: 64}\neval: {lengths: \"1..40\", examples: 64}\nsweep: {seed: [1, 2, 3, 4, 5, 6]}\n"
	grid, cells, err := config.Read([]byte(src), "gj.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := CheckGrid(grid, cells)
	if err != nil {
		t.Fatal(err)
	}
	peak := g.Cells[0].Memory.Peak
	processLimits = func() []memlimit.Limit {
		return []memlimit.Limit{{Bytes: peak*7/2 + 1, What: "the cgroup memory limit (/sys/fs/cgroup/x/memory.max)"}}
	}
	golden, err := os.ReadFile(filepath.Join("testdata", "jobs.golden"))
	if err != nil {
		t.Fatal(err)
	}
	if err := g.CheckJobs(6, config.Shard{}); err == nil || err.Error()+"\n" != string(golden) {
		t.Errorf("-jobs 6:\n got: %v\nwant: %s", err, golden)
	}
	if err := g.CheckJobs(4, config.Shard{}); err == nil || !strings.HasSuffix(err.Error(), "use -jobs 3 or fewer") {
		t.Errorf("-jobs 4: %v", err)
	}
	for _, ok := range []struct {
		jobs  int
		shard config.Shard
	}{{3, config.Shard{}}, {1, config.Shard{}}, {6, config.Shard{Index: 0, Count: 2}}} { // the shard has 3 cells
		if err := g.CheckJobs(ok.jobs, ok.shard); err != nil {
			t.Errorf("-jobs %d, shard %v: %v", ok.jobs, ok.shard, err)
		}
	}
	processLimits = func() []memlimit.Limit { return nil }
	if err := g.CheckJobs(6, config.Shard{}); err != nil {
		t.Errorf("no limit: %v", err)
	}
}
