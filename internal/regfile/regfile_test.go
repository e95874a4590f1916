package regfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestRefusesWhatIsNotAFile: a FIFO with no writer (whose plain open blocks forever), a
// directory and a device are refused at once with one line naming the path and what it is; a
// regular file and a link to one are read.
func TestRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for path, what := range map[string]string{fifo: "a named pipe (FIFO)", dir: "a directory", "/dev/null": "a character device"} {
		for name, read := range map[string]func(string) error{
			"Open":     func(p string) error { f, err := Open(p); f.Close(); return err },
			"ReadFile": func(p string) error { _, err := ReadFile(p); return err },
		} {
			err := read(path)
			if !errors.Is(err, ErrNotRegular) || err.Error() != path+" is "+what+", not a regular file: give the path of a file" {
				t.Errorf("%s(%s): %v", name, path, err)
			}
		}
	}
	file := filepath.Join(dir, "a.yaml")
	if err := os.WriteFile(file, []byte("seed: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{file, link} {
		if b, err := ReadFile(p); err != nil || string(b) != "seed: 1\n" {
			t.Errorf("ReadFile(%s) = %q, %v", p, b, err)
		}
	}
	if _, err := ReadFile(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) || strings.Contains(err.Error(), "regular") {
		t.Errorf("a missing file: %v", err)
	}
}
