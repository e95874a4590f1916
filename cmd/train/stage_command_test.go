package main

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/posformer/posformer/internal/interrupt"
)

// TestCommandsNameTheirStage (U6): while a command runs, the stage a signal's line names is the
// command line (`train report DIR`), for every command that does not name its own stages
// (export, report, claims, pe, bench), cut short past 120 characters; inspect names its own.
func TestCommandsNameTheirStage(t *testing.T) {
	for name := range commands {
		ctx, tracker := interrupt.WithTracker(context.Background())
		seen := make(chan string, 1)
		old := commands[name]
		commands[name] = func(ctx context.Context, args []string, _, _ io.Writer) error {
			seen <- tracker.Stages()
			return nil
		}
		args := []string{name, "runs/x", "-o", strings.Repeat("y", 200)}
		err := dispatch(ctx, args, io.Discard, io.Discard)
		commands[name] = old
		if err != nil {
			t.Fatal(err)
		}
		var got string
		select {
		case got = <-seen:
		case <-time.After(time.Second):
			t.Fatalf("%s did not run", name)
		}
		want := "`train " + name + " runs/x -o " + strings.Repeat("y", 120-len("train "+name+" runs/x -o ")-1) + "…`"
		if ownStages[name] {
			want = ""
		}
		if got != want {
			t.Errorf("%s: stage %q, want %q", name, got, want)
		}
		if s := tracker.Stages(); s != "" {
			t.Errorf("%s: the stage %q outlives the command", name, s)
		}
	}
}
