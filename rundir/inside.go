package rundir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Resolve is path made absolute with the symbolic links of its existing part resolved (a
// dangling link too: to where a file created through it would go); the part not yet created
// is joined as written. Two paths name one file when their Resolve are equal.
func Resolve(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	return resolve(abs, 0)
}

func resolve(abs string, depth int) (string, error) {
	if depth > 40 {
		return "", fmt.Errorf("%s: too many levels of symbolic links", abs)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r, nil
	}
	if info, err := os.Lstat(abs); err == nil && info.Mode()&os.ModeSymlink != 0 {
		target, err := os.Readlink(abs) // a dangling link: creating abs creates its target
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(abs), target)
		}
		return resolve(filepath.Clean(target), depth+1)
	}
	parent := filepath.Dir(abs)
	if parent == abs {
		return abs, nil
	}
	rp, err := resolve(parent, depth)
	if err != nil {
		return "", err
	}
	return filepath.Join(rp, filepath.Base(abs)), nil
}

// Within tells whether path (resolved) is dir (resolved) or lies under it.
func Within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// ErrOutside is the error of Inside.
var ErrOutside = errors.New("leads out of the directory it belongs to through a symbolic link")

// Inside refuses to write path when it, or a directory on the way to it, is a symbolic link
// leading out of dir (the directory the file belongs to: a run directory, a grid's, a claims
// file's): posformer writes only inside the directories it writes, never through a link to a
// file elsewhere. dir itself may be a link (a user's runs/ on another disk).
func Inside(dir, path string) error {
	rd, err := Resolve(dir)
	if err != nil {
		return err
	}
	rp, err := Resolve(path)
	if err != nil {
		return err
	}
	if !Within(rd, rp) {
		return fmt.Errorf("%s %w (%s): posformer writes only inside %s; remove the link (or move it away), then run again", path, ErrOutside, rp, dir)
	}
	return nil
}
