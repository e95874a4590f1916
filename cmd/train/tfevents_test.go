package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/posformer/posformer/internal/tfevents"
)

// eventsIn reads the event files of dir (none: nil), failing on a damaged one.
func eventsIn(t *testing.T, dir string) (names []string, events []tfevents.Event) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if tfevents.IsName(e.Name()) {
			names = append(names, e.Name())
			ev, err := tfevents.Read(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range ev {
				x.WallTime = 0 // the only field that differs between two runs
				events = append(events, x)
			}
		}
	}
	return names, events
}

// TestTFEventsFlag: a real process writes the event file by default, none with -tfevents=false
// (which config.yaml records), and a value that is not a boolean is refused in one line by -set.
func TestTFEventsFlag(t *testing.T) {
	base := t.TempDir()
	cfg := writeFile(t, filepath.Join(base, "cfg.yaml"), tinyConfig)
	if _, stderr, code := runChild(t, "-config", cfg, "-out", filepath.Join(base, "on")); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if names, events := eventsIn(t, filepath.Join(base, "on", "copy_rope_s1")); len(names) != 1 || len(events) != 1+2+8 {
		t.Fatalf("the default run wrote %v holding %d events, want one file of 11 (version, 2 metrics lines, 8 lengths)", names, len(events))
	}
	if _, stderr, code := runChild(t, "-config", cfg, "-out", filepath.Join(base, "off"), "-tfevents=false"); code != 0 {
		t.Fatalf("-tfevents=false: exit %d\n%s", code, stderr)
	}
	dir := filepath.Join(base, "off", "copy_rope_s1")
	if names, _ := eventsIn(t, dir); len(names) != 0 {
		t.Fatalf("-tfevents=false wrote %v", names)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "config.yaml")); !strings.Contains(string(b), "\ntfevents: false\n") {
		t.Errorf("config.yaml does not record tfevents: false:\n%s", b)
	}
	_, stderr, code := runChild(t, "-config", cfg, "-out", filepath.Join(base, "bad"), "-set", "tfevents=maybe")
	oneLineError(t, "-set tfevents=maybe", stderr, code, "tfevents", "want true or false", `"maybe"`)
}

// TestTFEventsKillAtEnd: a real run SIGKILLed right after each write of its end (its evaluation's
// events already in the file) and resumed holds the events of an uninterrupted run, each step and
// length once, in the file it started.
func TestTFEventsKillAtEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts seven processes")
	}
	base := t.TempDir()
	cfg := writeFile(t, filepath.Join(base, "cfg.yaml"), endConfig)
	ref := filepath.Join(base, "ref")
	if _, stderr, code := runChild(t, "-config", cfg, "-out", ref); code != 0 {
		t.Fatalf("the reference run failed:\n%s", stderr)
	}
	_, want := eventsIn(t, filepath.Join(ref, "copy_rope_s1"))
	if len(want) != 1+2+6 {
		t.Fatalf("the reference run's events: %+v", want)
	}
	for _, name := range []string{"checkpoint.bin", "results.csv", "results.json"} {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(base, "kill-"+name)
			cmd := child("-config", cfg, "-out", out)
			cmd.Env = append(cmd.Env, "POSFORMER_KILL_AFTER="+name)
			err := cmd.Run()
			if ee, ok := err.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("the run was not killed after writing %s: %v", name, err)
			}
			dir := filepath.Join(out, "copy_rope_s1")
			killed, _ := eventsIn(t, dir)
			if _, stderr, code := runChild(t, "-config", cfg, "-out", out, "-resume"); code != 0 {
				t.Fatalf("-resume after a kill at %s: exit %d\n%s", name, code, stderr)
			}
			names, got := eventsIn(t, dir)
			if !reflect.DeepEqual(names, killed) || !reflect.DeepEqual(got, want) {
				t.Fatalf("killed after %s, resumed: files %v (killed: %v), events\n%+v\nwant\n%+v", name, names, killed, got, want)
			}
		})
	}
}
