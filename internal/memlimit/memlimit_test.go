package memlimit

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestCgroupLimit: the smallest limit of the cgroup and its ancestors, in a v2 tree (memory.max,
// "max" meaning none), a hybrid one (root/unified) and a v1 one (memory.limit_in_bytes, 2^63
// rounded meaning none); none without a limit file.
func TestCgroupLimit(t *testing.T) {
	write := func(root, rel, v string) {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(v+"\n"), 0o644)
	}
	v2 := t.TempDir()
	write(v2, "memory.max", "max")
	write(v2, "slurm/job1/memory.max", "4294967296")
	write(v2, "slurm/job1/step0/memory.max", "max")
	if b, what := cgroupLimit(v2, "0::/slurm/job1/step0\n"); b != 4<<30 || !strings.Contains(what, "job1/memory.max") {
		t.Errorf("v2: %d %q, want 4 GiB from job1", b, what)
	}
	hybrid := t.TempDir()
	write(hybrid, "unified/pod/memory.max", "536870912")
	if b, _ := cgroupLimit(hybrid, "0::/pod\n"); b != 512<<20 {
		t.Errorf("hybrid: %d, want 512 MiB", b)
	}
	v1 := t.TempDir()
	write(v1, "memory/memory.limit_in_bytes", "9223372036854771712")
	write(v1, "memory/kubepods/pod1/memory.limit_in_bytes", "2147483648")
	if b, _ := cgroupLimit(v1, "4:memory:/kubepods/pod1\n3:cpuset:/\n0::/\n"); b != 2<<30 {
		t.Errorf("v1: %d, want 2 GiB", b)
	}
	if b, _ := cgroupLimit(v1, "4:memory:/\n"); b != 0 {
		t.Errorf("v1 unlimited: %d", b)
	}
	if b, _ := cgroupLimit(t.TempDir(), "0::/\n"); b != 0 {
		t.Errorf("no files: %d", b)
	}
}

// TestLimitsReadsRlimit: an address-space limit set on this process is read back as one.
func TestLimitsReadsRlimit(t *testing.T) {
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &old); err != nil {
		t.Skip(err)
	}
	lim := syscall.Rlimit{Cur: 64 << 30, Max: old.Max}
	if old.Max < lim.Cur {
		t.Skipf("the hard limit %d is below 64 GiB", old.Max)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &lim); err != nil {
		t.Skip(err)
	}
	defer syscall.Setrlimit(syscall.RLIMIT_AS, &old)
	for _, l := range Limits() {
		if l.Virtual && l.Bytes == 64<<30 && strings.Contains(l.What, "ulimit -v 67108864") {
			return
		}
	}
	t.Errorf("Limits() = %+v, want the 64 GiB address-space limit", Limits())
}
