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
