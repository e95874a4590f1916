package rundir

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// tempFiles are the atomic writes' temporary files left in dir.
func tempFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range entries {
		if IsTemp(e.Name()) {
			left = append(left, e.Name())
		}
	}
	return left
}

// TestAtomicWriteFullDisk: a write that fails part-way, as on a full disk, leaves the old file
// whole, no temporary file, and one line that wraps ENOSPC, names the file and says what to do.
func TestAtomicWriteFullDisk(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "results.json")
	if err := WriteFileAtomic(path, []byte("old\n")); err != nil {
		t.Fatal(err)
	}
	orig := WriteData
	t.Cleanup(func() { WriteData = orig })
	WriteData = func(f *os.File, b []byte) (int, error) {
		k, _ := f.Write(b[:len(b)/2])
		return k, &os.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
	}
	err := WriteFileAtomic(path, bytes.Repeat([]byte("new\n"), 1000))
	if err == nil || !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "the disk is full") ||
		!strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "-resume") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("error %v: want one line wrapping ENOSPC that names the file, says the disk is full and what to do", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old\n" {
		t.Fatalf("the old file was damaged: %q", b)
	}
	if left := tempFiles(t, dir); len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// TestAtomicWriteReplaces: the new content replaces the old one, with mode 0644, and the
// directory holds nothing else; a missing directory is an error naming the path.
func TestAtomicWriteReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.md")
	for _, content := range []string{"first\n", "second, longer\n", ""} {
		if err := WriteFileAtomic(path, []byte(content)); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(path); err != nil || string(b) != content {
			t.Fatalf("read back %q, %v; want %q", b, err, content)
		}
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the directory holds %d entries, want the file alone", len(entries))
	}
	if err := WriteFileAtomic(filepath.Join(dir, "missing", "x"), nil); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("writing into a missing directory: %v; want an error naming the path", err)
	}
}

// TestAtomicWriteNeverHalf: a reader reading while the file is rewritten again and again sees
// one whole version or the other, never a mixture or a prefix.
func TestAtomicWriteNeverHalf(t *testing.T) {
	path := filepath.Join(t.TempDir(), "checkpoint.bin")
	versions := [][]byte{bytes.Repeat([]byte("a"), 1<<20), bytes.Repeat([]byte("b"), 1<<19)}
	if err := WriteFileAtomic(path, versions[0]); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	var reads, bad int
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			b, err := os.ReadFile(path)
			reads++
			if err != nil || !bytes.Equal(b, versions[0]) && !bytes.Equal(b, versions[1]) {
				bad++
			}
		}
	}()
	for i := 0; i < 40; i++ {
		if err := WriteFileAtomic(path, versions[(i+1)%2]); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	wg.Wait()
	if bad > 0 {
		t.Errorf("%d of %d reads saw neither whole version", bad, reads)
	}
	if reads < 2 {
		t.Errorf("only %d reads during the writes", reads)
	}
}
