package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

const memoryConfig = `
task: {name: copy, min_len: 1, max_len: 4}
model: {d_model: 64, heads: 4, layers: 2}
position: {kind: rope}
train: {steps: 2, batch_size: 8, val_every: -1}
eval: {examples: 128, batch_size: 128}
`

var predictedPeak = regexp.MustCompile(`predicted peak memory ([0-9.]+) (MB|GB)`)

// peakRun runs the CLI in a child process on memoryConfig with the given eval.lengths and returns
// the peak memory it printed as its prediction and the child's measured peak resident set
// (VmHWM), both in bytes.
func peakRun(t *testing.T, lengths string) (predicted, measured int64) {
	t.Helper()
	dir := t.TempDir()
	cfg := writeFile(t, filepath.Join(dir, "cfg.yaml"), memoryConfig)
	cmd := child("-config", cfg, "-out", filepath.Join(dir, "out"), "-set", "eval.lengths="+lengths)
	cmd.Env = append(cmd.Env, "POSFORMER_PRINT_HWM=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("eval.lengths %s: %v\n%s", lengths, err, stderr.String())
	}
	m := predictedPeak.FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("the run printed no memory prediction:\n%s", stderr.String())
	}
	x, _ := strconv.ParseFloat(m[1], 64)
	unit := 1e6
	if m[2] == "GB" {
		unit = 1e9
	}
	h := hwmLine.FindStringSubmatch(stderr.String())
	if h == nil {
		t.Fatalf("the child reported no peak memory:\n%s", stderr.String())
	}
	kb, _ := strconv.ParseInt(h[1], 10, 64)
	return int64(x * unit), kb << 10
}

var hwmLine = regexp.MustCompile(`(?m)^VmHWM:\s+(\d+) kB$`)

// printHWM writes the process's peak resident memory (the VmHWM line of /proc/self/status),
// which the child prints when its run is done (TestMain). rusage's Maxrss would not do: a
// child started by vfork inherits its parent's peak, the test binary's.
func printHWM(w io.Writer) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			fmt.Fprintln(w, l)
		}
	}
}

// TestMemoryBoundedAcrossLengths: a process evaluating every length 1..N holds no more memory
// than one evaluating length N alone (each length's graphs are freed before the next one's are
// built), for two values of N, and stays within the memory the run predicted from its config.
// A bound on memory, not a timing.
func TestMemoryBoundedAcrossLengths(t *testing.T) {
	if testing.Short() {
		t.Skip("starts four processes")
	}
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/self/status")
	}
	for _, n := range []int{16, 32} {
		N := strconv.Itoa(n)
		predAll, all := peakRun(t, "1.."+N)
		predOne, one := peakRun(t, N)
		t.Logf("lengths 1..%d: peak %d MB (predicted %d MB); length %d alone: %d MB (predicted %d MB)", n, all>>20, predAll>>20, n, one>>20, predOne>>20)
		if predAll != predOne {
			t.Errorf("N=%d: the prediction depends on the lengths below the longest: %d vs %d bytes", n, predAll, predOne)
		}
		if all > predAll {
			t.Errorf("lengths 1..%d: peak resident memory %d bytes, more than the predicted %d", n, all, predAll)
		}
		if slack := one/10 + 4<<20; all > one+slack {
			t.Errorf("lengths 1..%d: peak %d bytes, more than length %d alone (%d) + %d: memory grows with the number of lengths", n, all, n, one, slack)
		}
	}
}
