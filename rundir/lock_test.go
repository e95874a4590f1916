package rundir

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// holderEnv, when set to a directory, makes this test binary a process that locks that
// directory, prints "locked", and holds the lock until its standard input closes
// (TestLockHeldByAnotherProcess starts it).
const holderEnv = "POSFORMER_RUNDIR_LOCK_HOLDER"

func TestMain(m *testing.M) {
	if dir := os.Getenv(holderEnv); dir != "" {
		release, err := Lock(dir)
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("locked")
		bufio.NewReader(os.Stdin).ReadString('\n') // until the parent closes the pipe
		release()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestLockHeldByAnotherProcess: while another process holds a run directory's lock, Lock refuses
// with one line naming the directory, the holder's pid and the lock file and saying what to do;
// once that process ends, however it ends, the directory can be locked again.
func TestLockHeldByAnotherProcess(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run") // Lock creates it
	for _, end := range []string{"release", "kill"} {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), holderEnv+"="+dir)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		if strings.TrimSpace(line) != "locked" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the holder process said %q", line)
		}
		_, err = Lock(dir)
		want := fmt.Sprintf("run directory %s is in use: process %d is training in it (it holds %s); wait for it to finish or stop it, then run again (with -resume to continue)",
			dir, cmd.Process.Pid, filepath.Join(dir, LockFile))
		if err == nil || err.Error() != want {
			t.Errorf("Lock while process %d holds the lock: %v\nwant: %s", cmd.Process.Pid, err, want)
		}
		if end == "release" {
			stdin.Close()
		} else {
			cmd.Process.Kill() // the kernel releases a killed process's lock
		}
		cmd.Wait()
		release, err := Lock(dir)
		if err != nil {
			t.Fatalf("after the holder ended (%s): %v", end, err)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, LockFile)); strings.TrimSpace(string(b)) != fmt.Sprint(os.Getpid()) {
			t.Errorf("the lock file holds %q, want this process's pid %d", b, os.Getpid())
		}
		release()
	}
}

// TestLockOnePerDirectory: in one process too, a second Lock of a locked directory is refused
// until the first is released; other directories are independent.
func TestLockOnePerDirectory(t *testing.T) {
	base := t.TempDir()
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	release, err := Lock(a)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Lock(a); err == nil || !strings.Contains(err.Error(), "is in use") {
		t.Errorf("a second lock of %s: %v; want it refused", a, err)
	}
	releaseB, err := Lock(b)
	if err != nil {
		t.Fatalf("another directory: %v", err)
	}
	releaseB()
	release()
	again, err := Lock(a)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	again()
	if err := os.WriteFile(filepath.Join(base, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Lock(filepath.Join(base, "file", "run")); err == nil || !strings.Contains(err.Error(), "choose a writable -out") {
		t.Errorf("a run directory under a file: %v; want the -out advice", err)
	}
}
