package train

import (
	"testing"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/position"
)

// TestSchemeVariant: the variant lists exactly the non-default options a scheme reads, written
// or swept, in Spec order; an option of another scheme (max_positions on rope) is not listed.
func TestSchemeVariant(t *testing.T) {
	for _, c := range []struct {
		sets []string
		want string
	}{
		{[]string{"position.kind=rope"}, ""},
		{[]string{"position.kind=rope", "position.rotary_fraction=0.25"}, "rotary_fraction=0.25"},
		{[]string{"position.kind=rope", "position.rotary_fraction=1"}, ""}, // the default, written
		{[]string{"position.kind=rope", "position.randomized=true", "position.max_random=64"}, "randomized=true,max_random=64"},
		{[]string{"position.kind=rope", "position.randomized=true"}, "randomized=true"},
		{[]string{"position.kind=rope", "position.rope_scaling=ntk"}, "rope_scaling=ntk"},
		{[]string{"position.kind=learned", "position.max_positions=64"}, "max_positions=64"},
		{[]string{"position.kind=t5", "position.num_buckets=16", "position.max_distance=20"}, "num_buckets=16,max_distance=20"},
		{[]string{"position.kind=none"}, ""},
	} {
		cfg := tinyConfig(t, t.TempDir(), c.sets...)
		if got := SchemeVariant(cfg.Position); got != c.want {
			t.Errorf("%v: %q, want %q", c.sets, got, c.want)
		}
	}
	// A config refuses another scheme's option; a spec built in Go that holds one lists it not.
	if got := SchemeVariant(config.Position{Spec: position.Spec{Kind: "learned"}}.With("max_positions", 64).With("rotary_fraction", 0.5)); got != "" {
		t.Errorf("learned with rope's rotary_fraction: %q", got)
	}
	cfg := tinyConfig(t, t.TempDir(), "position.kind=rope", "position.rotary_fraction=0.25")
	if got := ResultVariant(cfg, &Result{Variant: "eval=ntk"}); got != "rotary_fraction=0.25,eval=ntk" {
		t.Errorf("ResultVariant = %q", got)
	}
}
