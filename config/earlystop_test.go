package config

import (
	"strings"
	"testing"

	"github.com/posformer/posformer/internal/testutil"
)

// TestEarlyStopEmptyRefused: an early_stop section written without a key ({} or no value) is
// ambiguous and refused with one line naming train.early_stop, however it is written (the file,
// -set, a sweep value); a section with a rule turns early stopping on, an absent one leaves it
// off, and other sections written empty still keep their defaults.
func TestEarlyStopEmptyRefused(t *testing.T) {
	const want = "train.early_stop: the section is written but sets nothing"
	for _, tc := range []struct {
		name string
		src  string
		sets []string
	}{
		{"file {}", strings.Replace(testutil.Minimal, "train:\n", "train:\n  early_stop: {}\n", 1), nil},
		{"file no value", strings.Replace(testutil.Minimal, "train:\n", "train:\n  early_stop:\n", 1), nil},
		{"-set {}", testutil.Minimal, []string{"train.early_stop={}"}},
		{"-set no value", testutil.Minimal, []string{"train.early_stop="}},
		{"sweep value", testutil.Minimal, []string{"train.log_every=1", "sweep={train.early_stop: [{patience: 2}, {}]}"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Read([]byte(tc.src), "min.yaml", tc.sets)
			if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("got %v; want one line containing %q", err, want)
			}
		})
	}
	off, _, err := Read([]byte(testutil.Minimal), "min.yaml", nil)
	if err != nil || off.Train.EarlyStop.On() {
		t.Fatalf("no early_stop: on %v, %v; want off", off.Train.EarlyStop.On(), err)
	}
	on, _, err := Read([]byte(testutil.Minimal), "min.yaml", []string{"train.log_every=1", "train.early_stop={patience: 2}"})
	if err != nil || !on.Train.EarlyStop.On() || on.Train.EarlyStop.Patience != 2 {
		t.Fatalf("early_stop {patience: 2}: %+v, %v; want on", on.Train.EarlyStop, err)
	}
	if _, _, err := Read([]byte(testutil.Minimal), "min.yaml", []string{"eval={}", "model={}"}); err != nil {
		t.Fatalf("other sections written empty: %v; want their defaults", err)
	}
	// select: is a switch too: written empty it is refused, not read as no selection.
	for _, src := range []string{testutil.Minimal + "select: {}\n", testutil.Minimal + "select:\n"} {
		if _, _, err := Read([]byte(src), "min.yaml", nil); err == nil || !strings.Contains(err.Error(), "select: the section is written but sets nothing") {
			t.Errorf("%q: got %v; want select refused as written but empty", src, err)
		}
	}
}
