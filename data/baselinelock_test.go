package data

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// slowTask is a task whose baseline waits for gate, counting its computations.
type slowTask struct {
	Task
	gate  chan struct{}
	calls *atomic.Int32
}

func (s slowTask) Baseline(L int) Baseline {
	s.calls.Add(1)
	<-s.gate
	return Baseline{Token: 0.5, Exact: 1 / float64(L)}
}

// TestBaselineLockNotHeld: BaselineOf computes a baseline outside its cache's lock: while one
// task's slow baseline is being computed, another task's is looked up at once, and the
// lookups of the slow one made meanwhile wait for that one computation (it runs once) and all
// get its value. Run with -race.
func TestBaselineLockNotHeld(t *testing.T) {
	cp, err := New("copy", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var slowCalls, fastCalls atomic.Int32
	slow := slowTask{Task: cp, gate: make(chan struct{}), calls: &slowCalls}
	open := make(chan struct{})
	close(open)
	fast := slowTask{Task: cp, gate: open, calls: &fastCalls}

	const n = 4
	got := make([]Baseline, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], _ = BaselineOf(slow, 7)
		}()
	}
	for slowCalls.Load() == 0 {
		time.Sleep(time.Millisecond) // until the slow baseline is being computed
	}
	done := make(chan Baseline)
	go func() {
		b, _ := BaselineOf(fast, 7)
		done <- b
	}()
	select {
	case b := <-done:
		if b.Token != 0.5 || fastCalls.Load() != 1 {
			t.Errorf("the other task's baseline: %+v after %d computations", b, fastCalls.Load())
		}
	case <-time.After(10 * time.Second): // a deadlock guard, not a speed target: the lookup takes microseconds
		close(slow.gate)
		t.Fatal("another task's baseline waited for the slow one: BaselineOf holds its lock while computing")
	}
	close(slow.gate)
	wg.Wait()
	for i, b := range got {
		if b != (Baseline{Token: 0.5, Exact: 1.0 / 7}) {
			t.Errorf("lookup %d got %+v", i, b)
		}
	}
	if c := slowCalls.Load(); c != 1 {
		t.Errorf("the slow baseline was computed %d times for %d concurrent lookups, want once", c, n)
	}
	if b, _ := BaselineOf(slow, 7); b.Token != 0.5 || slowCalls.Load() != 1 {
		t.Errorf("a later lookup: %+v, %d computations (want the cached value)", b, slowCalls.Load())
	}
}

// panicOnce panics on its first baseline, then gives one.
type panicOnce struct {
	Task
	calls *atomic.Int32
}

func (p panicOnce) Baseline(L int) Baseline {
	if p.calls.Add(1) == 1 {
		panic("first baseline")
	}
	return Baseline{Token: 0.25, Exact: 0.25}
}

// TestBaselinePanicNotCached: a baseline whose computation panicked is not cached: the panic
// reaches its caller, and the next lookup computes it again.
func TestBaselinePanicNotCached(t *testing.T) {
	cp, err := New("copy", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int32
	p := panicOnce{Task: cp, calls: &calls}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the first lookup did not panic")
			}
		}()
		BaselineOf(p, 3)
	}()
	if b, ok := BaselineOf(p, 3); !ok || b.Token != 0.25 || calls.Load() != 2 {
		t.Errorf("after a panic: %+v, %v, %d computations; want it computed again", b, ok, calls.Load())
	}
}
