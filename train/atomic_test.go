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

// TestAtomicWriteFullDisk: a write that fails part-way leaves the old file whole, no temporary
// file, and an error that says the disk is full and what to do.
func TestAtomicWriteFullDisk(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "results.json")
	if err := rundir.WriteFileAtomic(path, []byte("old\n")); err != nil {
		t.Fatal(err)
	}
	fullDiskAfter(t, "results.json", 1)
	err := rundir.WriteFileAtomic(path, bytes.Repeat([]byte("new\n"), 1000))
	if err == nil || !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "the disk is full") ||
		!strings.Contains(err.Error(), path) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("error %v: want one line wrapping ENOSPC that names the file and says the disk is full", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old\n" {
		t.Fatalf("the old file was damaged: %q", b)
	}
	noTempFiles(t, dir)
}

// TestAtomicWriteReplaces: the new content replaces the old one, with mode 0644, and the
// directory holds nothing else.
func TestAtomicWriteReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.md")
	for _, content := range []string{"first\n", "second, longer\n", ""} {
		if err := rundir.WriteFileAtomic(path, []byte(content)); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(path); err != nil || string(b) != content {
			t.Fatalf("read back %q, %v; want %q", b, err, content)
		}
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
	noTempFiles(t, dir)
	if err := rundir.WriteFileAtomic(filepath.Join(dir, "missing", "x"), nil); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("writing into a missing directory: %v; want an error naming the path", err)
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
	m, err := cfg.WithDefaults().NewModel(task)
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
