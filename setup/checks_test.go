package setup

import (
	"strings"
	"testing"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/internal/testutil"
)

// parseChecked reads testutil.Minimal with the overrides sets as the CLI reads a run: the data
// (config.Read), then what needs the model (Check).
func parseChecked(sets ...string) error {
	c, _, err := config.Read([]byte(testutil.Minimal), "min.yaml", sets)
	if err == nil {
		_, err = Check(c)
	}
	return err
}

// TestModelChecks: what needs the model is refused by Check with one line naming the field, led
// by the file and line that wrote it, or by the -set that gave it.
func TestModelChecks(t *testing.T) {
	for _, tc := range []struct {
		sets []string
		want string
	}{
		{[]string{"model.d_model=15", "model.heads=3"}, "-set model.heads=3: position.rotary_fraction: rope rotates pairs"},
		{[]string{"position.kind=learned", "position.max_positions=10"}, "position.max_positions: the learned table has 10 rows"},
		{[]string{"model.d_model=1000000"}, "-set model.d_model=1000000: model: d_model 1000000, d_ff 32 and 1 layer "},
	} {
		err := parseChecked(tc.sets...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: %v, want one line containing %q", tc.sets, err, tc.want)
		}
		if c, _, perr := config.Read([]byte(testutil.Minimal), "min.yaml", tc.sets); perr != nil {
			t.Errorf("%v: the data alone is refused: %v", tc.sets, perr)
		} else if _, err := Check(c); err == nil {
			t.Errorf("%v: checked without an error", tc.sets)
		}
	}
	// Heads that do not divide d_model are refused with the data (model.Config.Validate).
	if err := parseChecked("model.heads=3"); err == nil || err.Error() != "-set model.heads=3: model.heads: 3 heads do not divide model.d_model 16; pick heads among the divisors of d_model" {
		t.Errorf("model.heads=3: %v", err)
	}
	src := strings.Replace(testutil.Minimal, "  heads: 2\n", "  heads: 3\n", 1)
	if _, _, err := config.Read([]byte(src), "min.yaml", nil); err == nil || !strings.HasPrefix(err.Error(), "min.yaml:8: model.heads: 3 heads do not divide") {
		t.Errorf("heads written on line 8: %v, want the error at min.yaml:8", err)
	}
}

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
		err := parseChecked(append([]string{"out=" + t.TempDir()}, tc.sets...)...)
		if err == nil || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%v: %v, want an error naming %s", tc.sets, err, tc.field)
		}
	}
	if err := parseChecked("position.randomized=true", "position.max_random=16"); err != nil {
		t.Errorf("max_random 16 covers the 16 tokens of length 8: %v", err)
	}
}
