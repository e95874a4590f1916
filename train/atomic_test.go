package train

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/rundir"
	"github.com/posformer/posformer/setup"
)

// fullDiskAfter makes atomic writes of files named name fail like a full disk, half-way through
// their data, from the nth such write on (1-based); it returns how many were attempted.
func fullDiskAfter(t *testing.T, name string, n int) *int {
	t.Helper()
	var count int
	orig := rundir.WriteData
	rundir.WriteData = func(f *os.File, b []byte) (int, error) {
		if strings.HasPrefix(filepath.Base(f.Name()), "."+name+".tmp") {
			count++
			if count >= n {
				k, _ := f.Write(b[:len(b)/2])
				return k, &os.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
			}
		}
		return f.Write(b)
	}
	t.Cleanup(func() { rundir.WriteData = orig })
	return &count
}

// noTempFiles fails if a temporary file of an atomic write is left in dir.
func noTempFiles(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

// TestRunFullDiskThenResume: the disk fills up at the second checkpoint. The run stops with the
// disk-full error, its first checkpoint intact (state after step 5); once there is room again,
// -resume finishes it bit-identical to a run that never failed.
func TestRunFullDiskThenResume(t *testing.T) {
	dir := t.TempDir()
	sets := []string{"train.checkpoint_every=5"}
	if _, err := Run(context.Background(), tinyConfig(t, filepath.Join(dir, "clean"), sets...), Options{}); err != nil {
		t.Fatal(err)
	}
	cfg := tinyConfig(t, filepath.Join(dir, "full"), sets...)
	attempts := fullDiskAfter(t, "checkpoint.bin", 2)
	_, err := Run(context.Background(), cfg, Options{})
	if err == nil || !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "the disk is full") {
		t.Fatalf("got %v; want the disk-full error", err)
	}
	if *attempts != 2 {
		t.Fatalf("%d checkpoint writes, want the run to stop at the failing second one", *attempts)
	}
	runDir := filepath.Join(dir, "full", "copy_rope_s1")
	noTempFiles(t, runDir)
	if _, err := os.Stat(filepath.Join(runDir, "results.json")); err == nil {
		t.Fatal("results written by a failed run")
	}
	task, _ := data.New("copy", data.Options{})
	m, err := setup.NewModel(cfg.WithDefaults(), task)
	if err != nil {
		t.Fatal(err)
	}
	var st trainState
	if err := LoadCheckpoint(filepath.Join(runDir, "checkpoint.bin"), m, nil, &st); err != nil || st.Step != 5 {
		t.Fatalf("checkpoint after the failure: step %d, %v; want the intact one of step 5", st.Step, err)
	}

	rundir.WriteData = func(f *os.File, b []byte) (int, error) { return f.Write(b) } // room again
	if _, err := Run(context.Background(), cfg, Options{}); err == nil || !strings.Contains(err.Error(), "-resume") {
		t.Fatalf("re-running without Resume: %v; want a refusal mentioning -resume", err)
	}
	if _, err := Run(context.Background(), cfg, Options{Resume: true}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"checkpoint.bin", "results.json", "results.csv"} {
		a, _ := os.ReadFile(filepath.Join(dir, "clean", "copy_rope_s1", f))
		b, _ := os.ReadFile(filepath.Join(runDir, f))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s differs from the run that never failed", f)
		}
	}
}
