package main

import (
	"fmt"
	"math/bits"
	"runtime"
	"runtime/debug"

	"github.com/posformer/posformer/internal/memlimit"
	"github.com/posformer/posformer/position"
)

// `train pe` predicts the memory of what it allocates (a scheme's parameters, then its table of
// -positions rows) and refuses, in one line naming the flags, before allocating what the
// process's limits (internal/memlimit: an address-space limit, a cgroup's) leave no room for:
// under `ulimit -v` a table past the room ended the process with Go's "fatal error: out of
// memory" and pages of stack. Within the room it sets the Go runtime's soft memory limit to the
// room, so the collector frees garbage (the rows' growth) before the heap outgrows it rather
// than when it has doubled, and collects the parameters' draw at once (collect).
type peBudget struct {
	room, base int64  // what the limits leave at the start; what the runtime holds then
	limit      string // the limit's words
	limited    bool   // there is a limit
}

// newPEBudget measures the room before pe allocates anything.
func newPEBudget() peBudget {
	room, what, ok := memlimit.Room()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return peBudget{room: room, base: int64(ms.Sys - ms.HeapReleased), limit: what, limited: ok}
}

// arena is the step in which the Go heap maps address space: a large block takes whole arenas.
const arena = 64 << 20

// paramBytes is what a scheme of p float64 parameters holds at once: the values New draws and
// their copy in the tensor, or the tensor and the float64 copy that Table reads (nn.Float64s),
// each block in whole arenas.
func paramBytes(p int) int64 { return 2 * ((8*int64(p) + arena - 1) / arena * arena) }

// tableBytes is the memory of a table of n rows of cols float64 values (position.Table): each
// row its own slice, which the schemes build by append (its capacity then up to the next power of
// two) or slice from a copy of their parameters (counted by paramBytes), its 24-byte header in
// Rows, and Rows grown by append (the old array and the new, 1.25 times it, live at once), and an
// arena the heap maps beyond them.
func tableBytes(n, cols int) int64 {
	capacity := int64(1) << bits.Len(uint(max(cols, 1)-1))
	return int64(n)*(8*capacity+24) + 3*24*int64(n) + arena
}

// fits refuses need bytes for what when the room is smaller, naming the fix, and otherwise sets
// the soft memory limit to the runtime's start plus the room.
func (b peBudget) fits(what string, need int64, fix string) error {
	if !b.limited {
		return nil
	}
	if need > b.room {
		return fmt.Errorf("pe: %s would take about %s, more than the %s that %s leaves; %s", what, mbytes(need), mbytes(b.room), b.limit, fix)
	}
	debug.SetMemoryLimit(b.base + b.room)
	return nil
}

// collect frees the garbage of a step (the parameters' draw, the one-row table's copy of them)
// before the next allocates, so paramBytes bounds every step, not their sum.
func (b peBudget) collect() {
	if b.limited {
		runtime.GC()
	}
}

// mbytes is a size for a message: MB below a gigabyte, else GB.
func mbytes(b int64) string {
	if b >= 1e9 {
		return fmt.Sprintf("%.2f GB", float64(b)/1e9)
	}
	return fmt.Sprintf("%.0f MB", float64(b)/1e6)
}

// columns is the number of columns of a scheme's table, read from its one-row table, which is
// dropped on return (a row may hold a copy of all the parameters: collect then frees it).
func columns(tb position.Tabler) (int, error) {
	one, err := tb.Table(1)
	return len(one.Columns), err
}
