package setup

import (
	"strings"
	"testing"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/internal/testutil"
)

// TestT5BucketWarning: a t5 run trained on short inputs and tested on long ones is warned about
// (with the counts of position.T5BucketsUsed); one whose training reaches every bucket the test
// uses, and any other scheme, is not.
func TestT5BucketWarning(t *testing.T) {
	out := t.TempDir()
	// max_len 4: copy sequences of 2·4 = 8 tokens reach buckets 0..7; tests up to length 40
	// (80 tokens, distances up to 79) reach 29 of the 32.
	w := warnings(t, out, "position.kind=t5", "eval.lengths=1..40")
	if len(w) != 1 || !strings.Contains(w[0], "reach 8 of the 29 relative-distance buckets") || !strings.Contains(w[0], "21 buckets keep their initial bias") {
		t.Fatalf("warnings %q", w)
	}
	// max_distance 9 with 16 buckets: 8 exact buckets for distances 0..7, and every distance from
	// 9 on shares the last bucket, which 8-token training sequences (distance 7) do not reach...
	if w := warnings(t, out, "position.kind=t5", "position.num_buckets=16", "position.max_distance=9", "eval.lengths=1..40"); len(w) != 1 {
		t.Errorf("16 buckets up to 9: warnings %q, want one", w)
	}
	// ...while testing only up to the training length never warns.
	if w := warnings(t, out, "position.kind=t5", "eval.lengths=1..4"); len(w) != 0 {
		t.Errorf("testing within the training lengths: warnings %q", w)
	}
	if w := warnings(t, out, "position.kind=alibi", "eval.lengths=1..40"); len(w) != 0 {
		t.Errorf("alibi: warnings %q", w)
	}
}

// warnings are the warnings of testutil.Minimal resolved, writing under out, with 20 steps and
// the overrides sets, checked.
func warnings(t *testing.T, out string, sets ...string) []string {
	t.Helper()
	r, err := Check(testutil.TinyConfig(t, config.Read, out, sets...))
	if err != nil {
		t.Fatal(err)
	}
	return r.Warnings()
}
