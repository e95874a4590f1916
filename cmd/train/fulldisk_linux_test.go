package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestFullDisk trains onto a real, tiny file system (a 100 KiB tmpfs, which needs root; the
// test skips otherwise, and train's TestAtomicWriteFullDisk covers the same failure with an
// injected one): the first checkpoint fits, the second does not. The CLI exits 1 with one line
// that says the disk is full, and the run directory keeps the first checkpoint whole, with no
// half-written file.
func TestFullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tiny tmpfs needs root; train's TestAtomicWriteFullDisk injects the failure instead")
	}
	disk := filepath.Join(t.TempDir(), "disk")
	if err := os.Mkdir(disk, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", disk, "tmpfs", 0, "size=100k"); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v); train's TestAtomicWriteFullDisk injects the failure instead", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(disk, 0); err != nil {
			t.Errorf("unmounting the test tmpfs %s: %v", disk, err)
		}
	})
	cfg := writeFile(t, filepath.Join(t.TempDir(), "cfg.yaml"), tinyConfig)
	_, stderr, code := runChild(t, "-config", cfg, "-out", disk)
	oneLineError(t, "a full disk", stderr, code, "checkpoint.bin", "no space left on device", "the disk is full", "-resume")
	runDir := filepath.Join(disk, "copy_rope_s1")
	entries, err := os.ReadDir(runDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("a temporary file was left behind: %s", e.Name())
		}
		if e.Name() == "results.json" {
			t.Error("results.json written although training failed")
		}
	}
	ck, err := loadRunModel(runDir)
	if err != nil {
		t.Fatalf("the last checkpoint was damaged: %v", err)
	}
	if step, finite := ck(); step != 5 || !finite {
		t.Errorf("checkpoint at step %d (finite %v), want the first one, after step 5", step, finite)
	}
}
