package rundir

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/posformer/posformer/data"
)

// LockFile is the file in a run directory that the process training in it holds locked (flock),
// with its pid inside. The kernel releases the lock when the process ends, however it ends.
const LockFile = ".posformer.lock"

// Lock creates dir if needed and locks it for this process, or says which process holds it.
// release unlocks it (the file stays: removing it would race with the next process's lock).
func Lock(dir string) (release func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create the run directory %s: %w (choose a writable -out)", dir, err)
	}
	path := filepath.Join(dir, LockFile)
	if err := Inside(dir, path); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("cannot lock the run directory %s: %w (choose a writable -out)", dir, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		b, _ := os.ReadFile(path)
		f.Close()
		holder := "another process"
		if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); perr == nil {
			holder = fmt.Sprintf("process %d", pid)
		}
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("run directory %s is in use: %s is training in it (it holds %s); wait for it to finish or stop it, then run again (with -resume to continue)", dir, holder, path)
		}
		return nil, fmt.Errorf("cannot lock the run directory %s: %w", dir, err)
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// Open locks the run directory dir (Lock: created if needed) and lists its entries but the lock
// file.
func Open(dir string) (entries []os.DirEntry, release func(), err error) {
	if release, err = Lock(dir); err != nil {
		return nil, nil, err
	}
	all, err := os.ReadDir(dir)
	if err != nil {
		release()
		return nil, nil, fmt.Errorf("run directory: %w", err)
	}
	for _, e := range all {
		if e.Name() != LockFile {
			entries = append(entries, e)
		}
	}
	return entries, release, nil
}

// runFiles are the names posformer writes in a run directory (train inspect, export and report
// included); -force removes these and nothing
// else (a process killed inside an atomic write also leaves ".<name>.tmp*" files).
var runFiles = map[string]bool{
	"config.yaml": true, "metrics.jsonl": true, "results.json": true, "results.csv": true, "timing.json": true,
	"checkpoint.bin": true, "best.bin": true, DiagnosticsFile: true, "inspect": true,
	ExportName: true, "report": true, // train export's and train report's, from the old weights and results
}

// Derived are the run files the commands on a finished run write (inspect, export, report):
// names a user's own directory may hold too, so they count as posformer's only beside a
// config.yaml.
var Derived = map[string]bool{"inspect": true, ExportName: true, "report": true}

// IsTemp tells whether a name is an atomic write's temporary file (".<name>.tmp*").
func IsTemp(name string) bool { return strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp") }

// IsRunFile tells whether posformer writes an entry of this name: runFiles, the tasks' scores
// files (data.ScoresFiles), the eval variants' result directories (VariantDir) and TensorBoard's
// event files (EventsPrefix).
func IsRunFile(name string) bool {
	return runFiles[name] || slices.Contains(data.ScoresFiles(), name) || strings.HasPrefix(name, VariantDir("")) ||
		strings.HasPrefix(name, EventsPrefix)
}

// EventsPrefix starts the names of a run's TensorBoard event files (events.out.tfevents.<time>.<host>,
// package internal/tfevents).
const EventsPrefix = "events.out.tfevents."

// Clear removes what posformer wrote in a run directory (for -force), after checking that
// it is one: a directory with other entries and no config.yaml is refused.
func Clear(dir string, entries []os.DirEntry) error {
	var foreign []string
	hasConfig := false
	for _, e := range entries {
		hasConfig = hasConfig || e.Name() == "config.yaml"
	}
	for _, e := range entries {
		switch {
		case e.Name() == LockFile || IsTemp(e.Name()) || IsRunFile(e.Name()) && (hasConfig || !Derived[e.Name()]):
		default:
			foreign = append(foreign, e.Name())
		}
	}
	if !hasConfig && len(foreign) > 0 {
		return fmt.Errorf("-force: %s is not a posformer run directory (no config.yaml; it holds %s); -force removes only what posformer wrote: choose another -out or name, or remove it yourself", dir, strings.Join(foreign[:min(3, len(foreign))], ", "))
	}
	for _, e := range entries {
		if e.Name() != LockFile && (IsTemp(e.Name()) || IsRunFile(e.Name())) {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return fmt.Errorf("run directory: %w", err)
			}
		}
	}
	return nil
}

// SameConfig tells whether two resolved configs (a run's config.yaml, a grid's grid.yaml) are
// the same but for the top-level out: field, which names the same directory spelled another way
// (out/x/, ./out/x, an absolute path) when the files are found in it, and tfevents:, which only
// chooses whether the run writes an event file beside its results.
func SameConfig(a, b []byte) bool { return SameBut(a, b, "out", "tfevents") }

// SameBut tells whether two resolved configs are equal once the top-level lines of the given
// keys are left out.
func SameBut(a, b []byte, keys ...string) bool {
	drop := func(src []byte) []byte {
		var out []byte
	lines:
		for _, l := range bytes.SplitAfter(src, []byte("\n")) {
			for _, k := range keys {
				if bytes.HasPrefix(l, []byte(k+":")) {
					continue lines
				}
			}
			out = append(out, l...)
		}
		return out
	}
	return bytes.Equal(drop(a), drop(b))
}
