package rundir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// WriteData writes an atomic file's data to its temporary file. Tests (here and in package
// train) replace it to fail a write part-way, as a full disk does.
var WriteData = func(f *os.File, data []byte) (int, error) { return f.Write(data) }

// WriteFileAtomic writes data to a temporary file in the same directory, syncs it, renames it
// over path and syncs the directory (path a symbolic link leading out of it is refused: Inside), so a reader (or a run resumed after a crash or a power
// cut) sees the old file or the new one, never half of one. On failure the temporary file is
// removed and path is left as it was.
func WriteFileAtomic(path string, data []byte) (err error) {
	fail := func(err error) error {
		if errors.Is(err, syscall.ENOSPC) {
			return fmt.Errorf("writing %s: %w: the disk is full (the previous %s, if any, is intact); free some space or choose another -out, then run again (with -resume to continue a run)", path, err, filepath.Base(path))
		}
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := Inside(filepath.Dir(path), path); err != nil { // a link elsewhere is not replaced either
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fail(err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := tmp.Chmod(0o644); err != nil {
		return fail(err)
	}
	if _, err := WriteData(tmp, data); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fail(err)
	}
	syncDir(filepath.Dir(path))
	if killAfter != "" && filepath.Base(path) == killAfter {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
	}
	return nil
}

// killAfter is a file name (POSFORMER_KILL_AFTER=results.csv) after whose every atomic write the
// process SIGKILLs itself: the kill tests (cmd/train) stop a run at each write of its end with it.
var killAfter = os.Getenv("POSFORMER_KILL_AFTER")

// syncDir makes a rename in dir durable. It is best effort: some file systems cannot sync a
// directory, and the file itself is already synced.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	d.Close()
}
