package config

import (
	"strings"
	"testing"

	"github.com/posformer/posformer/internal/testutil"
)

// TestWhenComparesValues (U3): a variant's when: condition reads its value as the field's type,
// as the sweep that wrote the field reads it, not as text: 1e-3 is 0.001, 0.430 is 0.43, 01 is 1,
// False is false. A different value does not hold, and a value the field cannot hold is refused
// naming the condition.
func TestWhenComparesValues(t *testing.T) {
	base := strings.Replace(testutil.Minimal, "train:\n", "train:\n  lr: 0.001\n", 1)
	cfg, _, err := Read([]byte(base), "min.yaml", []string{"seed=1", "position={kind: rope, log_scaling: 0.43}"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cond string
		want bool
	}{
		{"train.lr=1e-3", true}, {"train.lr=0.0010", true}, {"train.lr=0.003", false},
		{"position.log_scaling=0.430", true}, {"position.log_scaling=0.5", false},
		{"seed=01", true}, {"seed=2", false},
		{"position.randomized=False", true}, {"position.randomized=true", false},
		{"position.kind=rope", true}, {"position.kind=alibi", false},
	} {
		ok, err := holds(cfg, tc.cond)
		if err != nil || ok != tc.want {
			t.Errorf("%s: %v, %v; want %v", tc.cond, ok, err, tc.want)
		}
		if got := (EvalVariant{Name: "v", When: []string{tc.cond}}).Applies(cfg); got != tc.want {
			t.Errorf("a variant when: [%s] applies: %v, want %v", tc.cond, got, tc.want)
		}
	}
	if _, err := holds(cfg, "train.lr=fast"); err == nil || !strings.Contains(err.Error(), `"fast" is not a value of the field's type, float64; write one`) {
		t.Errorf("train.lr=fast: %v; want refused", err)
	}
}
