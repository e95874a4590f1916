package rundir

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/posformer/posformer/internal/tfevents"
)

// TestEventFilesAreRunFiles: TensorBoard's event files, as package tfevents names them, are run
// files, so -force removes them (and only them: a name that merely resembles one is the user's).
func TestEventFilesAreRunFiles(t *testing.T) {
	if EventsPrefix != tfevents.Prefix {
		t.Fatalf("EventsPrefix %q, tfevents.Prefix %q", EventsPrefix, tfevents.Prefix)
	}
	name := tfevents.Name(time.Unix(1700000000, 0), "node1")
	if !IsRunFile(name) || IsRunFile("my.events.out.tfevents.1.h") || IsRunFile("events.txt") {
		t.Error("IsRunFile on event file names")
	}
	dir := filepath.Join(t.TempDir(), "run")
	entries := makeDir(t, dir, "config.yaml", name, "notes.txt")
	if err := Clear(dir, entries); err != nil {
		t.Fatal(err)
	}
	left, _ := os.ReadDir(dir)
	if len(left) != 1 || left[0].Name() != "notes.txt" {
		t.Errorf("-force left %v, want only notes.txt", left)
	}
}

// TestSameConfigIgnoresTFEvents: tfevents, like out, does not make another config: it only
// chooses whether the run writes an event file; nor does it enter the fingerprint.
func TestSameConfigIgnoresTFEvents(t *testing.T) {
	a := []byte("seed: 1\nout: runs\ntask:\n    name: copy\n")
	b := []byte("seed: 1\nout: runs\ntfevents: false\ntask:\n    name: copy\n")
	c := []byte("seed: 2\nout: runs\ntfevents: false\ntask:\n    name: copy\n")
	if !SameConfig(a, b) || SameConfig(a, c) {
		t.Error("SameConfig")
	}
	if Fingerprint(a) != Fingerprint(b) || Fingerprint(a) == Fingerprint(c) {
		t.Errorf("fingerprints %q, %q, %q", Fingerprint(a), Fingerprint(b), Fingerprint(c))
	}
}
