package interrupt

import (
	"context"
	"testing"
	"time"
)

// TestSettled: with no stage saving, a signal ends the process at once (Settled returns without
// its grace; it waited 500 ms, long enough for a short export to finish and exit 0); a saving
// stage is waited for, then the grace.
func TestSettled(t *testing.T) {
	ctx, tr := WithTracker(context.Background())
	start := time.Now()
	tr.Settled(10*time.Second, nil)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("no stage saving: Settled took %v, want at once", d)
	}
	done := Saving(ctx)
	go func() { time.Sleep(100 * time.Millisecond); done() }()
	start = time.Now()
	tr.Settled(200*time.Millisecond, nil)
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("a stage saving: Settled returned after %v, before it and the grace ended", d)
	}
}
