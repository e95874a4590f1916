package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestClaimsNotARegularFileOneFix (U11): `train claims` given a FIFO or a directory as its
// claims file, or a claims file whose table is a FIFO, ends in one line that says what is wrong
// and its fix once (it said "give the path of a file: give the path of a claims file"), as a
// real process that does not block on the FIFO.
func TestClaimsNotARegularFileOneFix(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	base := t.TempDir()
	fifo, dir := filepath.Join(base, "c.yaml"), filepath.Join(base, "d.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(dir, 0o755)
	table := filepath.Join(base, "t.csv")
	if err := syscall.Mkfifo(table, 0o644); err != nil {
		t.Fatal(err)
	}
	withTable := writeFile(t, filepath.Join(base, "w.yaml"), "title: t\ntables: [{name: t, csv: t.csv}]\nstatistic: {metric: exact_match, past_training: 2, learned: 0.9}\n"+
		"claims:\n  - {id: r, kind: ranking, a: {task: copy, scheme: kerple}, b: {task: copy, scheme: alibi}}\n")
	for _, c := range []struct{ arg, want, fix string }{
		{fifo, fifo + " is a named pipe (FIFO), not a regular file: give the path of a claims file; nothing was written", "give the path"},
		{dir, dir + " is a directory, not a regular file: give the path of a claims file; nothing was written", "give the path"},
		{withTable, table + " is a named pipe (FIFO), not a regular file; correct the file (no grid: exports it); nothing was written", "give the path"},
	} {
		stderr, code := runChildWithin(t, 20*time.Second, "claims", c.arg)
		oneLineError(t, "claims "+c.arg, stderr, code, c.want)
		if n := strings.Count(stderr, c.fix); n > 1 {
			t.Errorf("claims %s: %q says %q %d times", c.arg, stderr, c.fix, n)
		}
	}
}
