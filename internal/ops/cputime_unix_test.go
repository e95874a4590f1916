//go:build unix

package ops

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user and system) the process has used: on a machine shared with
// other work, a rate per CPU second moves less with the scheduler than one per wall second.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
