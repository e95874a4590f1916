package grid

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/internal/regfile"
	"github.com/posformer/posformer/rundir"
	"github.com/posformer/posformer/train"
	"go.yaml.in/yaml/v3"
)

// A grid with select: trains each group's tuning runs in <grid>/select/; the tuning run of the
// chosen value on a tuning seed is, but for its name, the grid cell of that seed: the same
// training and evaluation config, so the same bits. The grid copies it (CellOptions.CopyFrom)
// instead of training it twice, and builds no model for it.

// adopt fills the run directory of the cell config c with the finished run in src (copyRun)
// when the directory holds nothing but its lock (with force, after clearing what posformer
// wrote there), holding the directory's lock as train.Run does; otherwise, or when src is not
// the same run, it returns nil, nil and the cell is trained (train.Run) as usual.
func adopt(src string, c config.Config, force bool) (*train.Result, error) {
	c = c.WithDefaults() // what train.Run writes as the run's config.yaml
	resolved, err := yaml.Marshal(c)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(c.Out, c.Name)
	entries, release, err := rundir.Open(dir)
	if err != nil {
		return nil, err
	}
	defer release()
	if len(entries) > 0 {
		if !force {
			return nil, nil
		}
		if err := rundir.Clear(dir, entries); err != nil {
			return nil, err
		}
	}
	return copyRun(src, dir, c.Name, resolved)
}

// copyRun fills the empty, locked run directory dir (config resolved, named name) with the
// finished run in src, if src holds a run of the same config but for its name: its checkpoints,
// metrics and diagnostics are copied, its results written again under the new name (results.json
// last, as a run writes it). It returns nil, nil when src is not such a run (the caller then
// trains); dir must hold nothing but its lock.
func copyRun(src, dir, name string, resolved []byte) (*train.Result, error) {
	old, err := regfile.ReadFile(filepath.Join(src, "config.yaml"))
	if err != nil || !rundir.SameBut(old, resolved, "name", "out") {
		return nil, nil
	}
	res, err := train.ReadResult(src)
	if err != nil {
		return nil, nil
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return nil, fmt.Errorf("copying the finished run %s: %w", src, err)
	}
	if err := rundir.WriteFileAtomic(filepath.Join(dir, "config.yaml"), resolved); err != nil {
		return nil, err
	}
	for _, e := range entries {
		n := e.Name()
		switch {
		case n == "config.yaml" || n == rundir.LockFile || rundir.IsTemp(n) || rundir.Derived[n] || !rundir.IsRunFile(n):
			// placed here, the lock, litter, views of the old run, and what posformer did not write
		case e.IsDir(): // an eval variant's results
			if err := copyVariant(filepath.Join(src, n), filepath.Join(dir, n), name); err != nil {
				return nil, err
			}
		case n == "results.json" || n == "results.csv" || n == "timing.json":
			// written below from res
		default:
			if err := copyFile(filepath.Join(src, n), filepath.Join(dir, n)); err != nil {
				return nil, err
			}
		}
	}
	res.Name, res.Dir = name, dir
	if err := train.WriteResults(dir, res); err != nil {
		return nil, err
	}
	return res, nil
}

// copyVariant copies an eval variant's result directory, its results renamed.
func copyVariant(src, dst, name string) error {
	res, err := train.ReadResult(src)
	if err != nil {
		return fmt.Errorf("copying the finished run's variant %s: %w", src, err)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return fmt.Errorf("run directory: %w", err)
	}
	if err := copyFile(filepath.Join(src, rundir.DiagnosticsFile), filepath.Join(dst, rundir.DiagnosticsFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	events, _ := filepath.Glob(filepath.Join(src, rundir.EventsPrefix+"*")) // the variant's curves by length
	for _, e := range events {
		if err := copyFile(e, filepath.Join(dst, filepath.Base(e))); err != nil {
			return err
		}
	}
	res.Name, res.Dir = name, dst
	return train.WriteResults(dst, res)
}

// copyFile copies a file's bytes atomically (rundir.WriteFileAtomic's temporary file and rename).
func copyFile(src, dst string) error {
	b, err := regfile.ReadFile(src)
	if err != nil {
		return err
	}
	return rundir.WriteFileAtomic(dst, b)
}
