package fielderr

import (
	"errors"
	"fmt"
	"testing"
)

// TestLocatedError: an error reads "file:line: path: message", each part when known; a located
// error around a field's error writes the path once; errors.As finds the field's error, and its
// path, through wrapping.
func TestLocatedError(t *testing.T) {
	field := New("model.heads", "%d heads do not divide model.d_model %d", 3, 16)
	wrapped := fmt.Errorf("%w (the longest sequence has 40 tokens)", field)
	for _, tc := range []struct {
		err  error
		want string
	}{
		{field, "model.heads: 3 heads do not divide model.d_model 16"},
		{&Error{File: "g.yaml", Line: 7, Path: "model.heads", Err: wrapped}, "g.yaml:7: model.heads: 3 heads do not divide model.d_model 16 (the longest sequence has 40 tokens)"},
		{&Error{File: "-set model.heads=3", Path: "model.heads", Err: field}, "-set model.heads=3: model.heads: 3 heads do not divide model.d_model 16"},
		{&Error{File: "g.yaml", Path: "sweep", Err: field}, "g.yaml: sweep: model.heads: 3 heads do not divide model.d_model 16"},
		{Wrap("task.name", errors.New(`unknown task "cpy"`)), `task.name: unknown task "cpy"`},
		{&Error{File: "g.yaml", Err: errors.New("the config is empty")}, "g.yaml: the config is empty"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
	if got := PathOf(wrapped); got != "model.heads" {
		t.Errorf("PathOf through %%w: %q", got)
	}
	if got := PathOf(errors.New("model.heads: text alone")); got != "" {
		t.Errorf("PathOf of a plain error: %q, want none (the text is not read)", got)
	}
	if Wrap("x", nil) != nil {
		t.Error("Wrap of nil is not nil")
	}
}
