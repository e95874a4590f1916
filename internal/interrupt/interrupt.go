// Package interrupt decides what a signal (SIGINT, SIGTERM) does to a command: the stages that
// save their work when their context is cancelled (training saves a checkpoint) announce
// themselves with Saving; in any other stage (parsing, opening a file, a long evaluation or
// inspection, writing a report) the signal ends the process at once, since what such a stage
// has not finished is redone by running the command again, and its files are written whole
// or not at all. A long stage names itself with Stage, so that the line a signal prints says
// where the command stopped.
package interrupt

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

type key struct{}

// Tracker counts the stages that are saving their work on a cancelled context, and names the
// stages under way (Stage).
type Tracker struct {
	saving atomic.Int32
	stages sync.Map // *string (one per Stage call) → the stage's name
}

// Stage names what the caller does, until done is called, for the line a signal prints
// (Tracker.Stages). Without a Tracker in ctx it does nothing.
func Stage(ctx context.Context, what string) (done func()) {
	t, _ := ctx.Value(key{}).(*Tracker)
	if t == nil {
		return func() {}
	}
	p := &what
	t.stages.Store(p, what)
	return func() { t.stages.Delete(p) }
}

// Stages names the stages under way, sorted and joined by "; " ("" for none).
func (t *Tracker) Stages() string {
	var s []string
	t.stages.Range(func(_, v any) bool {
		s = append(s, v.(string))
		return true
	})
	slices.Sort(s)
	return strings.Join(s, "; ")
}

// WithTracker returns ctx carrying a new Tracker.
func WithTracker(ctx context.Context) (context.Context, *Tracker) {
	t := &Tracker{}
	return context.WithValue(ctx, key{}, t), t
}

// Saving marks the caller, until done is called, as a stage that stops by itself and saves its
// work when ctx is cancelled, so a signal must let it finish. Without a Tracker in ctx (tests,
// library use) it does nothing.
func Saving(ctx context.Context) (done func()) {
	t, _ := ctx.Value(key{}).(*Tracker)
	if t == nil {
		return func() {}
	}
	t.saving.Add(1)
	return func() { t.saving.Add(-1) }
}

// Settled returns at once when no stage is saving (the signal ends the process now); else it
// waits until none is, then for grace, and returns: by then a stage that saved its work has
// returned with its own message, and whatever still runs did not watch the context. It returns
// early when stop is closed.
func (t *Tracker) Settled(grace time.Duration, stop <-chan struct{}) {
	if t.saving.Load() == 0 {
		return
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for t.saving.Load() > 0 {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
	}
	select {
	case <-stop:
	case <-time.After(grace):
	}
}
