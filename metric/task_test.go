package metric

import (
	"testing"

	"github.com/posformer/posformer/data"
)

// TestPerTask: a task's metrics and headline follow the kind it declares (data.DeclareKind):
// lm's are bits per byte, a sequence task's exact match, or token accuracy in the slots format.
func TestPerTask(t *testing.T) {
	for _, c := range []struct{ task, format, headline, first string }{
		{"lm", data.FormatNext, BitsPerByte, BitsPerByte},
		{"copy", data.FormatNext, ExactMatch, ExactMatch},
		{"copy", data.FormatSlots, TokenAccuracy, ExactMatch},
	} {
		ms := For(c.task)
		if got := Headline(c.task, c.format).Name; got != c.headline || len(ms) == 0 || ms[0].Name != c.first {
			t.Errorf("%s (%s): headline %q, metrics %s; want headline %s, first %s", c.task, c.format, got, Names(ms, ","), c.headline, c.first)
		}
	}
}
