package ops

import (
	"sync"
	"sync/atomic"
	"testing"
)

// TestFanout: every chunk runs exactly once, for chunk counts below, at and above the number of
// helpers, from several goroutines at once, with fanouts nested inside chunks (which find the
// helpers busy and run on their caller), on 1 to 12 workers.
func TestFanout(t *testing.T) {
	for _, w := range []int{1, 2, 3, 12} {
		withWorkers(t, w, func() {
			var wg sync.WaitGroup
			for g := 0; g < 4; g++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for _, n := range []int{0, 1, 2, 3, 9, 10, 17} {
						counts := make([]atomic.Int32, n)
						var inner atomic.Int32
						fanout(n, func(i int) {
							counts[i].Add(1)
							fanout(3, func(int) { inner.Add(1) })
						})
						for i := range counts {
							if c := counts[i].Load(); c != 1 {
								t.Errorf("workers=%d n=%d: chunk %d ran %d times", w, n, i, c)
							}
						}
						if got := inner.Load(); got != int32(3*n) {
							t.Errorf("workers=%d n=%d: %d nested chunks ran, want %d", w, n, got, 3*n)
						}
					}
				}()
			}
			wg.Wait()
		})
	}
}

// TestFanoutPanic: a panic in the caller's own chunk reaches the caller after the helpers'
// chunks have finished, and leaves the helpers free for the next call.
func TestFanoutPanic(t *testing.T) {
	withWorkers(t, 2, func() {
		var done atomic.Int32
		func() {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			fanout(2, func(i int) {
				if i == 0 {
					panic("chunk 0")
				}
				done.Add(1)
			})
		}()
		if done.Load() != 1 {
			t.Fatal("the helper's chunk had not finished when the panic reached the caller")
		}
		for _, h := range helperList(1) {
			if h.busy.Load() {
				t.Fatal("a helper is still claimed after the panic")
			}
		}
	})
}

// TestTakeBack: a posted job that its helper has not started runs on the caller, once, and
// the helper then runs the next job it is given (its own goroutine started late, as a helper
// whose thread the system had descheduled).
func TestTakeBack(t *testing.T) {
	h := &helper{wake: make(chan struct{}, 1), done: make(chan struct{}, 1)}
	var ran [3]atomic.Int32
	h.busy.Store(true)
	h.post(func(i int) { ran[i].Add(1) }, 1)
	h.takeBack()
	h.wait()
	if ran[1].Load() != 1 {
		t.Fatalf("the job taken back ran %d times, want 1", ran[1].Load())
	}
	go h.loop()
	for i := 0; i < 100; i++ {
		h.busy.Store(true)
		h.post(func(i int) { ran[i].Add(1) }, 2)
		h.wait()
	}
	if ran[1].Load() != 1 || ran[2].Load() != 100 {
		t.Fatalf("jobs ran %d and %d times, want 1 and 100", ran[1].Load(), ran[2].Load())
	}
}
