// Package memlimit reads the memory limits a process runs under: its address-space limit
// (RLIMIT_AS, `ulimit -v`) and its cgroup's memory limit (cgroup v2 memory.max, v1
// memory.limit_in_bytes: what Slurm's --mem and a Kubernetes pod's memory limit set). It imports
// nothing of posformer.
package memlimit

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Limit is one limit: Bytes, and what sets it, for a message.
type Limit struct {
	Bytes int64
	What  string
	// Virtual tells an address-space limit (it counts every mapping, reserved or touched) from
	// a cgroup's (resident memory and page cache).
	Virtual bool
}

// Limits are the process's limits, none when it runs unlimited.
func Limits() []Limit {
	var out []Limit
	var r syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_AS, &r) == nil && r.Cur != ^uint64(0) && r.Cur < 1<<62 {
		out = append(out, Limit{Bytes: int64(r.Cur), What: "the address-space limit (ulimit -v " + strconv.FormatUint(r.Cur>>10, 10) + ")", Virtual: true})
	}
	self, _ := os.ReadFile("/proc/self/cgroup")
	if b, what := cgroupLimit("/sys/fs/cgroup", string(self)); b > 0 {
		out = append(out, Limit{Bytes: b, What: what})
	}
	return out
}

// cgroupLimit is the smallest memory limit of the process's cgroup and its ancestors under root
// (the cgroup file system's mount point), from /proc/self/cgroup's text: v2 (the "0::" line:
// memory.max, under root or root/unified) and v1 (the "memory" controller's line:
// memory.limit_in_bytes under root/memory). 0 when there is none.
func cgroupLimit(root, self string) (int64, string) {
	best, what := int64(0), ""
	try := func(dir, rel, file string) {
		for p := filepath.Join(dir, rel); ; p = filepath.Dir(p) {
			if b := readLimit(filepath.Join(p, file)); b > 0 && (best == 0 || b < best) {
				best, what = b, "the cgroup memory limit ("+filepath.Join(p, file)+")"
			}
			if len(p) <= len(dir) {
				return
			}
		}
	}
	for _, line := range strings.Split(self, "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		rel := filepath.Clean("/" + parts[2])
		switch {
		case parts[0] == "0" && parts[1] == "":
			try(root, rel, "memory.max")
			try(filepath.Join(root, "unified"), rel, "memory.max")
		case strings.Contains(","+parts[1]+",", ",memory,"):
			try(filepath.Join(root, "memory"), rel, "memory.limit_in_bytes")
		}
	}
	return best, what
}

// readLimit reads a cgroup limit file: its bytes, or 0 for "max", a missing file or a value
// meaning no limit (v1 writes about 2^63 rounded to pages).
func readLimit(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	s := strings.TrimSpace(string(b))
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v <= 0 || v >= 1<<62 {
		return 0
	}
	return v
}

// Virtual is the process's address space now (VmSize of /proc/self/status), 0 when unknown:
// what an address-space limit already holds, the Go runtime's own reservations included (about
// 1 GB on linux/amd64 before the heap holds anything).
func Virtual() int64 { return status("VmSize:") }

// status is a kB field of /proc/self/status in bytes, 0 when unknown.
func status(field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// Slack is what an address-space limit must keep free beyond a prediction besides what the
// process has mapped already: the heap grows in 64 MiB arenas, and each thread the runtime
// starts later maps its stack (8 MiB in a cgo build).
const Slack = 64 << 20

// Room is what the tightest of the process's limits leaves for more memory now: an
// address-space limit less what the process maps (Virtual) and Slack, a cgroup limit less the
// process's resident memory; with the words naming it. ok is false when there is no limit.
func Room() (room int64, what string, ok bool) {
	for _, l := range Limits() {
		r := l.Bytes - resident()
		if l.Virtual {
			r = l.Bytes - Virtual() - Slack
		}
		if !ok || r < room {
			room, what, ok = max(r, 0), l.What, true
		}
	}
	return room, what, ok
}

// resident is the process's resident memory now (VmRSS), 0 when unknown.
func resident() int64 { return status("VmRSS:") }
