package ops

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// This file runs the chunks of parallel work (parallel, splitGemm, blasParts) on persistent
// helper goroutines instead of starting goroutines per call.
//
// A training step runs ~130 ops back to back, most of them split over the workers. Starting a
// goroutine per chunk, and parking the caller until they finish, cost a futex wake-up of an idle
// thread per op (and left the caller's core idle): ~6% of a step's CPU time in runtime.futex, and
// chunks that started late. Here the caller runs chunk 0 itself and hands the others to helpers
// that, after a job, keep polling for the next one for helperSpin before they sleep, so the ops of
// one step find them awake. A helper that is busy (a nested call from inside a chunk, or another
// goroutine's work) is not waited for: its chunk runs on the caller. A chunk that its helper has
// not started when the caller has run its own is taken back and run by the caller (takeBack): a
// helper that sleeps, or whose thread the operating system has descheduled, costs no more than
// running that chunk serially. Which goroutine runs a chunk never changes a result: chunks split
// independent items, and fn gets the chunk's index.

// helperSpin is how long an idle helper keeps polling for work before it sleeps. Between the
// ops of a step the gap is a few microseconds; a longer one is serial work of the caller's (an
// op too small to split, Gorgonia's bookkeeping, the data between steps), where a polling helper
// only burns a core that another thread could use (15% of the reference step's CPU time at
// 200 µs), and a sleeping one costs its next job a wake-up, which takeBack bounds.
const helperSpin = 20 * time.Microsecond

// spinCheck is how many polls (an atomic load each) go between looks at the clock and offers of
// the P to other goroutines, which cost tens to hundreds of polls each.
const spinCheck = 1024

type helper struct {
	busy atomic.Bool // claimed by a caller, from before its job is posted until it saw it done

	posted   atomic.Uint64 // job sequence number, advanced by the caller
	taken    atomic.Uint64 // the last job started, by the helper or taken back by the caller
	finished atomic.Uint64 // advanced when the job is done, by whichever ran it
	fn       func(int)
	arg      int

	wake chan struct{} // capacity 1: a token per post (a stale one costs one extra check)
	done chan struct{} // capacity 1: a token per job the helper finished (drained by wait)
}

var helpers struct {
	mu   sync.Mutex
	list atomic.Pointer[[]*helper]
}

// helperList returns at least n helpers (fewer only if n < 0), starting new ones as needed.
func helperList(n int) []*helper {
	if l := helpers.list.Load(); l != nil && len(*l) >= n {
		return *l
	}
	helpers.mu.Lock()
	defer helpers.mu.Unlock()
	var l []*helper
	if p := helpers.list.Load(); p != nil {
		l = *p
	}
	for len(l) < n {
		h := &helper{wake: make(chan struct{}, 1), done: make(chan struct{}, 1)}
		go h.loop()
		l = append(l[:len(l):len(l)], h)
	}
	helpers.list.Store(&l)
	return l
}

// loop runs the helper's jobs: poll for the next one for helperSpin, then sleep until woken.
func (h *helper) loop() {
	var seen uint64
	for {
		start := time.Now()
		for i := 1; h.posted.Load() == seen; i++ {
			if i%spinCheck != 0 {
				continue
			}
			if time.Since(start) < helperSpin {
				runtime.Gosched() // let any other goroutine that wants this P have it
				continue
			}
			if h.posted.Load() == seen {
				<-h.wake // a token left by an earlier post only makes this loop check again
			}
			start = time.Now()
		}
		seen = h.posted.Load()
		if !h.taken.CompareAndSwap(seen-1, seen) {
			continue // its caller took it back (takeBack)
		}
		h.fn(h.arg)
		h.fn = nil
		h.finished.Store(seen)
		select { // always: a waiter's flag and this check are not a fence under every emulator
		case h.done <- struct{}{}:
		default:
		}
	}
}

// post hands fn(arg) to the helper, which the caller has claimed. A job is posted only when
// the one before it was started (taken) and finished, so job p finds taken == p-1.
func (h *helper) post(fn func(int), arg int) {
	h.fn, h.arg = fn, arg
	h.posted.Add(1)
	select { // always: the helper may be about to sleep (see loop)
	case h.wake <- struct{}{}:
	default:
	}
}

// takeBack runs the posted job on the caller if the helper has not started it; wait then
// returns at once. A panic of the job reaches the caller with the job marked finished.
func (h *helper) takeBack() {
	want := h.posted.Load()
	if !h.taken.CompareAndSwap(want-1, want) {
		return // the helper runs it
	}
	fn, arg := h.fn, h.arg
	h.fn = nil
	defer h.finished.Store(want)
	fn(arg)
}

// wait blocks until the posted job is done, then releases the helper.
func (h *helper) wait() {
	want := h.posted.Load()
	for i := 0; h.finished.Load() != want; i++ {
		if i < 4096 {
			if i%64 == 63 {
				runtime.Gosched()
			}
			continue
		}
		if h.finished.Load() != want {
			<-h.done // every job the helper finishes leaves a token, so this cannot miss the one it waits for
		}
	}
	select { // drop a wake-up that raced with the last check
	case <-h.done:
	default:
	}
	h.busy.Store(false)
}

// fanout runs fn(0), ..., fn(n-1), each exactly once, and returns when all are done: fn(0) and
// any chunk no helper is free for on the calling goroutine, the others on up to workers()−1
// helpers, or on the caller when their helper has not started them once the caller's own
// chunks are done. The helpers are waited for even if a chunk on the caller panics.
func fanout(n int, fn func(i int)) {
	if n <= 1 {
		if n == 1 {
			fn(0)
		}
		return
	}
	hs := helperList(workers() - 1)
	hs = hs[:min(len(hs), workers()-1)]
	var buf [8]*helper
	claimed := buf[:0] // the helpers running a chunk for this call
	var inlineBuf [8]int
	inline := inlineBuf[:0] // the chunks left to the caller
	next := 0
	for i := 1; i < n; i++ {
		for next < len(hs) && !hs[next].busy.CompareAndSwap(false, true) {
			next++
		}
		if next == len(hs) {
			inline = append(inline, i)
			continue
		}
		claimed = append(claimed, hs[next])
		hs[next].post(fn, i)
		next++
	}
	defer func() {
		for _, h := range claimed {
			h.wait()
		}
	}()
	fn(0)
	for _, i := range inline {
		fn(i)
	}
	for _, h := range claimed {
		h.takeBack()
	}
}

// Parallel runs fn over [0, n) in contiguous chunks on the calling goroutine and the helpers,
// as the ops do (one chunk per worker when n·costPerItem is large enough to pay for the hand-off;
// costPerItem is a rough count of float operations per item). fn gets its chunk's index, below
// the number of workers. For code outside this package with independent items (the optimiser).
func Parallel(n, costPerItem int, fn func(chunk, lo, hi int)) { parallel(n, costPerItem, fn) }
