package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoWriteThroughLinks: a run directory that is a symbolic link leading out of -out, and a
// run's inspect directory linked elsewhere, are refused with one line naming the link, through
// run and as a process; the directory they lead to is left empty (issue 35 point 3).
func TestNoWriteThroughLinks(t *testing.T) {
	cfg, out, dir := trainedTiny(t, tinyConfig)
	outside := t.TempDir()
	empty := func(what string) {
		t.Helper()
		if es, _ := os.ReadDir(outside); len(es) != 0 {
			t.Errorf("%s: %d files written through the link into %s", what, len(es), outside)
		}
	}
	os.MkdirAll(filepath.Join(dir, "inspect"), 0o755)
	os.Remove(filepath.Join(dir, "inspect"))
	if err := os.Symlink(outside, filepath.Join(dir, "inspect")); err != nil {
		t.Fatal(err)
	}
	err := runCaught("inspect", dir, "-length", "4", "-examples", "1")
	if err == nil || !strings.Contains(err.Error(), "leads out of the directory it belongs to through a symbolic link") {
		t.Errorf("inspect through a link: %v", err)
	}
	empty("inspect")

	out2 := filepath.Join(filepath.Dir(out), "out2")
	os.MkdirAll(out2, 0o755)
	if err := os.Symlink(outside, filepath.Join(out2, "copy_rope_s1")); err != nil {
		t.Fatal(err)
	}
	err = runCaught("-config", cfg, "-out", out2)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(out2, "copy_rope_s1")+" leads out of the directory") {
		t.Errorf("a run directory linked out of -out: %v", err)
	}
	empty("run")
	if testing.Short() {
		return
	}
	_, stderr, code := runChild(t, "-config", cfg, "-out", out2)
	oneLineError(t, "a run directory linked out of -out", stderr, code, "symbolic link", "remove the link")
	empty("run, a process")
}
