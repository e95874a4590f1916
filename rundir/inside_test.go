package rundir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInside: a file reached through a symbolic link leading out of its directory (the file
// itself, a dangling link, a subdirectory) is refused; a link inside it, a directory that is
// itself a link, and a file not yet created are not.
func TestInside(t *testing.T) {
	base, outside := t.TempDir(), t.TempDir()
	dir := filepath.Join(base, "run")
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(outside, "precious"), []byte("mine"), 0o644)
	os.Symlink(filepath.Join(outside, "precious"), filepath.Join(dir, "metrics.jsonl"))
	os.Symlink(filepath.Join(outside, "new"), filepath.Join(dir, "dangling"))
	os.Symlink(outside, filepath.Join(dir, "report"))
	os.Symlink("sub", filepath.Join(dir, "inner"))
	os.Symlink(dir, filepath.Join(base, "alias")) // the directory itself through a link
	for _, p := range []string{"metrics.jsonl", "dangling", "report/report.md", "report", "../x"} {
		err := Inside(dir, filepath.Join(dir, p))
		if err == nil || !strings.Contains(err.Error(), "symbolic link") {
			t.Errorf("%s: %v", p, err)
		}
	}
	for _, p := range []string{"results.csv", "inner/x", "sub/new/deeper", "."} {
		if err := Inside(dir, filepath.Join(dir, p)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		if err := Inside(filepath.Join(base, "alias"), filepath.Join(base, "alias", p)); err != nil {
			t.Errorf("alias/%s: %v", p, err)
		}
	}
}

// TestAtomicWriteRefusesLinkOut: WriteFileAtomic refuses a path that is a link leading out of
// its directory, and leaves the file it leads to as it was.
func TestAtomicWriteRefusesLinkOut(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	target := filepath.Join(outside, "precious")
	os.WriteFile(target, []byte("mine"), 0o644)
	os.Symlink(target, filepath.Join(dir, "results.json"))
	if err := WriteFileAtomic(filepath.Join(dir, "results.json"), []byte("{}")); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("an atomic write over a link out: %v", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "mine" {
		t.Errorf("the file the link leads to holds %q", b)
	}
	if err := WriteFileAtomic(filepath.Join(dir, "other.json"), []byte("{}")); err != nil {
		t.Error(err)
	}
}
