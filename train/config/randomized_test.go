package config

import (
	"strings"
	"testing"

	"github.com/posformer/posformer/internal/testutil"
)

// TestRandomizedRangeChecks: max_random must cover the longest test sequence, and a learned
// table must have max_random rows; the errors name the field.
func TestRandomizedRangeChecks(t *testing.T) {
	for _, tc := range []struct {
		sets  []string
		field string
	}{
		// copy at length 8 is 16 tokens.
		{[]string{"position.randomized=true", "position.max_random=15"}, "position.max_random"},
		{[]string{"position.kind=learned", "position.randomized=true", "position.max_random=64", "position.max_positions=32"}, "position.max_positions"},
		{[]string{"position.kind=kerple", "position.randomized=true"}, "position.randomized"},
		{[]string{"position.kind=t5", "position.max_distance=-3"}, "position.max_distance: must be positive, got -3"},
	} {
		_, err := Parse([]byte(testutil.Minimal), "min.yaml", append([]string{"out=" + t.TempDir()}, tc.sets...))
		if err == nil || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%v: %v, want an error naming %s", tc.sets, err, tc.field)
		}
	}
	if _, err := Parse([]byte(testutil.Minimal), "min.yaml", []string{"position.randomized=true", "position.max_random=16"}); err != nil {
		t.Errorf("max_random 16 covers the 16 tokens of length 8: %v", err)
	}
}
