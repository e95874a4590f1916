//go:build !unix

package ops

import "time"

// cpuTime is not measured here: the benchmarks that report a rate per CPU second report none.
func cpuTime() time.Duration { return 0 }
