package setup

import (
	"strings"
	"testing"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/internal/memlimit"
)

// TestProcessLimitRefuses: a config whose predicted peak does not fit under the process's own
// limit (a cgroup's memory limit; an address-space limit, less what the process maps already)
// is refused by Check in one line naming the limit and the field to lower; one that fits, or
// no limit, passes (issue 35 point 6).
func TestProcessLimitRefuses(t *testing.T) {
	orig := processLimits
	defer func() { processLimits = orig }()
	var c config.Config
	src := "task: {name: copy, min_len: 1, max_len: 40}\nmodel: {d_model: 128, heads: 4, layers: 2}\ntrain: {steps: 2, batch_size: 64}\neval: {lengths: \"1..40\", examples: 64}\n"
	if err := config.Decode([]byte(src), "m.yaml", &c); err != nil {
		t.Fatal(err)
	}
	r, err := Check(c)
	if err != nil {
		t.Fatal(err)
	}
	peak := r.Memory.Peak
	for _, l := range []memlimit.Limit{
		{Bytes: peak / 2, What: "the cgroup memory limit (/sys/fs/cgroup/x/memory.max)"},
		{Bytes: memlimit.Virtual() + virtualSlack + peak/2, What: "the address-space limit (ulimit -v 12345)", Virtual: true},
	} {
		processLimits = func() []memlimit.Limit { return []memlimit.Limit{l} }
		_, err := Check(c)
		if err == nil || !strings.Contains(err.Error(), l.What) || !strings.Contains(err.Error(), "task.max_len") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s of half the peak: %v", l.What, err)
		}
		l.Bytes += peak
		processLimits = func() []memlimit.Limit { return []memlimit.Limit{l} }
		if _, err := Check(c); err != nil {
			t.Errorf("%s with room for the peak: %v", l.What, err)
		}
	}
	processLimits = func() []memlimit.Limit { return nil }
	if _, err := Check(c); err != nil {
		t.Errorf("no limit: %v", err)
	}
}
