package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/posformer/posformer/internal/memlimit"
)

// bigModel is predicted at 6.35 GB: more than any limit below leaves.
const bigModel = `
task: {name: copy, min_len: 1, max_len: 40}
model: {d_model: 512, heads: 8, layers: 6, d_ff: 2048}
position: {kind: rope}
train: {steps: 2, batch_size: 64}
eval: {lengths: "1..40", examples: 64}
`

// underUlimit is the test binary as the CLI (child) started by sh under ulimit -v kb.
func underUlimit(kb string, args ...string) *exec.Cmd {
	c := child(args...)
	c.Args = append([]string{"sh", "-c", `ulimit -v ` + kb + ` && exec "$0" "$@"`, c.Path}, args...)
	c.Path = "/bin/sh"
	return c
}

// TestAddressSpaceLimitRespected: under an address-space limit a config whose prediction does
// not fit beside what the process maps already is refused before anything is allocated, in one
// line naming the limit and the field to lower (it died with Go's "fatal error: out of memory"
// and 215 lines of stack), through run (this process's limit set for the call) and as a process
// under `ulimit -v 2000000`; a small run still runs there (issue 35 point 6).
func TestAddressSpaceLimitRespected(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, filepath.Join(dir, "big.yaml"), bigModel)
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &old); err != nil {
		t.Skip(err)
	}
	lim := syscall.Rlimit{Cur: uint64(memlimit.Virtual() + 1<<30), Max: old.Max}
	if lim.Cur > old.Cur || syscall.Setrlimit(syscall.RLIMIT_AS, &lim) != nil {
		t.Skip("cannot lower this process's address-space limit")
	}
	err := runCaught("-config", cfg, "-out", filepath.Join(dir, "out"))
	syscall.Setrlimit(syscall.RLIMIT_AS, &old)
	if err == nil || !strings.Contains(err.Error(), "the address-space limit (ulimit -v") || !strings.Contains(err.Error(), "task.max_len") {
		t.Errorf("run under an address-space limit: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
		t.Error("the refused run created its directory")
	}
	if testing.Short() {
		return
	}
	c := underUlimit("2000000", "-config", cfg, "-out", filepath.Join(dir, "out"))
	var e strings.Builder
	c.Stderr = &e
	err = c.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	oneLineError(t, "ulimit -v 2000000", e.String(), code, "more than the", "that the address-space limit (ulimit -v 2000000) of 2.05 GB leaves beside the", "lower task.max_len or train.batch_size")
	// a corpus whose loading does not fit: refused before it is unpacked (it died in the load)
	corpus, sum := writeCorpus(t, dir, 400, 60_000) // 24 MB: about 216 MB to load
	lm := writeFile(t, filepath.Join(dir, "lm.yaml"), "task: {name: lm, min_len: 64, max_len: 64, corpus: "+corpus+", corpus_sha256: "+sum+"}\n")
	c = underUlimit("1500000", "-config", lm, "-out", filepath.Join(dir, "lm"))
	e.Reset()
	c.Stderr = &e
	err = c.Run()
	code = 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	oneLineError(t, "a corpus under ulimit -v 1500000", e.String(), code, "task.corpus: loading "+corpus, "that the address-space limit (ulimit -v 1500000) leaves; use a smaller corpus")
	small := underUlimit("2000000", "-config", writeFile(t, filepath.Join(dir, "small.yaml"), tinyConfig), "-out", filepath.Join(dir, "small"))
	if out, err := small.CombinedOutput(); err != nil {
		t.Errorf("a small run under ulimit -v 2000000: %v\n%s", err, out)
	}
}

// sixRunsGrid is six runs, each predicted at 1.25 GB (on 2 cores).
const sixRunsGrid = "name: gj\ntask: {name: copy, min_len: 1, max_len: 40}\nmodel: {d_model: 128, heads: 4, layers: 2}\n" +
	"train: {steps: 2, batch_size: 64}\neval: {lengths: \"1..40\", examples: 64}\nsweep: {seed: [1, 2, 3, 4, 5, 6]}\n"

// TestJobsBeyondLimit: a grid's -jobs N whose N runs at once do not fit under the address-space
// limit (each run alone fits) is refused before anything is written, in one line naming -jobs
// and the largest N that fits (setup's TestCheckJobs holds the golden line, under a cgroup
// limit), through run (this process's limit lowered for the call) and a process under
// `ulimit -v 3000000`.
func TestJobsBeyondLimit(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, filepath.Join(dir, "gj.yaml"), sixRunsGrid)
	wants := []string{"-jobs 6: 6 runs at once need about 7.51 GB (6 × the largest run's predicted peak, 1.25 GB), more than the ",
		"that the address-space limit (ulimit -v", "; use -jobs "}
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &old); err != nil {
		t.Skip(err)
	}
	lim := syscall.Rlimit{Cur: uint64(memlimit.Virtual() + 2<<30), Max: old.Max}
	if lim.Cur > old.Cur || syscall.Setrlimit(syscall.RLIMIT_AS, &lim) != nil {
		t.Skip("cannot lower this process's address-space limit")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	err := runCaught("-config", cfg, "-out", filepath.Join(dir, "out"), "-jobs", "6")
	syscall.Setrlimit(syscall.RLIMIT_AS, &old)
	for _, w := range wants {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("run: %v does not say %q", err, w)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
		t.Error("the refused grid created its directory")
	}
	c := underUlimit("3000000", "-config", cfg, "-out", filepath.Join(dir, "out"), "-jobs", "6")
	c.Env = append(c.Env, "GOMAXPROCS=2")
	var e strings.Builder
	c.Stderr = &e
	err = c.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	oneLineError(t, "-jobs 6 under ulimit -v 3000000", e.String(), code, append(wants, "(ulimit -v 3000000)")...)
}
