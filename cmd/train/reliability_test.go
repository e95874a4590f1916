package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/gob"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/rundir"
	"github.com/posformer/posformer/train"
)

// endConfig is a tiny run that checkpoints only at its end, so every file of its end is written
// once: checkpoint.bin, diagnostics.json, timing.json, results.csv, results.json.
const endConfig = `
task: {name: copy, min_len: 1, max_len: 3}
model: {d_model: 16, heads: 2, layers: 1, d_ff: 32}
position: {kind: rope}
train: {steps: 12, batch_size: 4, checkpoint_every: -1, val_every: 6}
eval: {lengths: "1..6", examples: 8}
`

// endFiles are the files a run writes at its end, in the order it writes them, and the files
// whose bytes a resumed run must reproduce.
var (
	endFiles  = []string{"checkpoint.bin", rundir.DiagnosticsFile, "timing.json", "results.csv", "results.json"}
	sameBytes = []string{"checkpoint.bin", rundir.DiagnosticsFile, "results.csv", "results.json"}
)

// TestKillAtEveryEndWrite SIGKILLs a real run right after each write of its end (the process
// kills itself after writing the named file, POSFORMER_KILL_AFTER), then runs -resume: it must
// complete the run, every file present and, but for timing.json's wall-clock figures, byte for
// byte the files of an uninterrupted run. -resume of a killed run also shows the directory lock
// was released by the kernel.
func TestKillAtEveryEndWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("starts eleven processes")
	}
	base := t.TempDir()
	cfg := writeFile(t, filepath.Join(base, "cfg.yaml"), endConfig)
	ref := filepath.Join(base, "ref")
	if _, stderr, code := runChild(t, "-config", cfg, "-out", ref); code != 0 {
		t.Fatalf("the reference run failed:\n%s", stderr)
	}
	for _, name := range endFiles {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(base, "kill-"+name)
			cmd := child("-config", cfg, "-out", out)
			cmd.Env = append(cmd.Env, "POSFORMER_KILL_AFTER="+name)
			err := cmd.Run()
			ee, ok := err.(*exec.ExitError)
			if !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("the run was not killed after writing %s: %v", name, err)
			}
			if _, stderr, code := runChild(t, "-config", cfg, "-out", out, "-resume"); code != 0 {
				t.Fatalf("-resume after a kill at %s: exit %d\n%s", name, code, stderr)
			}
			for _, f := range sameBytes {
				want, _ := os.ReadFile(filepath.Join(ref, "copy_rope_s1", f))
				got, err := os.ReadFile(filepath.Join(out, "copy_rope_s1", f))
				if err != nil || !bytes.Equal(got, want) || len(want) == 0 {
					t.Errorf("killed after %s, resumed: %s differs from the uninterrupted run's (%v)", name, f, err)
				}
			}
			a, _ := os.ReadFile(filepath.Join(ref, "copy_rope_s1", "config.yaml"))
			b, _ := os.ReadFile(filepath.Join(out, "copy_rope_s1", "config.yaml"))
			if !rundir.SameConfig(a, b) || len(a) == 0 {
				t.Errorf("killed after %s, resumed: config.yaml differs from the uninterrupted run's but for out:", name)
			}
			if _, err := os.Stat(filepath.Join(out, "copy_rope_s1", "timing.json")); err != nil {
				t.Errorf("killed after %s, resumed: no timing.json: %v", name, err)
			}
		})
	}
}

// TestRunDirLock: while a process holds a run directory's lock (here the test, as a training
// process would), a run into it, -resume or -force, is refused with one line naming the
// holder's pid, and nothing in the directory changes.
func TestRunDirLock(t *testing.T) {
	base := t.TempDir()
	cfg := writeFile(t, filepath.Join(base, "cfg.yaml"), tinyConfig)
	out := filepath.Join(base, "out")
	if err := run(context.Background(), []string{"-config", cfg, "-out", out}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(out, "copy_rope_s1")
	f, err := os.OpenFile(filepath.Join(dir, rundir.LockFile), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	pid := strconv.Itoa(os.Getpid())
	results, _ := os.ReadFile(filepath.Join(dir, "results.json"))
	for _, flag := range []string{"-resume", "-force"} {
		_, stderr, code := runChild(t, "-config", cfg, "-out", out, flag)
		oneLineError(t, flag+" into a locked run directory", stderr, code, "is in use", "process "+pid, rundir.LockFile)
	}
	if now, _ := os.ReadFile(filepath.Join(dir, "results.json")); !bytes.Equal(now, results) {
		t.Error("a refused run changed results.json")
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	if _, stderr, code := runChild(t, "-config", cfg, "-out", out, "-resume"); code != 0 {
		t.Errorf("-resume once the lock is released: exit %d\n%s", code, stderr)
	}
}

// TestForceOnlyRemovesPosformerFiles: -force refuses a directory posformer did not write (a
// user's files are kept), and in a run directory removes only the files posformer writes.
func TestForceOnlyRemovesPosformerFiles(t *testing.T) {
	base := t.TempDir()
	cfg := writeFile(t, filepath.Join(base, "cfg.yaml"), tinyConfig)
	out := filepath.Join(base, "out")
	foreign := filepath.Join(out, "copy_rope_s1")
	if err := os.MkdirAll(foreign, 0o755); err != nil {
		t.Fatal(err)
	}
	thesis := writeFile(t, filepath.Join(foreign, "thesis.tex"), "years of work\n")
	err := runCaught("-config", cfg, "-out", out, "-force")
	if err == nil || !strings.Contains(err.Error(), "not a posformer run directory") || !strings.Contains(err.Error(), "thesis.tex") {
		t.Fatalf("-force on a user's directory: %v; want a refusal naming it", err)
	}
	_, stderr, code := runChild(t, "-config", cfg, "-out", out, "-force")
	oneLineError(t, "-force on a user's directory", stderr, code, "not a posformer run directory", "-force removes only what posformer wrote")
	if b, _ := os.ReadFile(thesis); string(b) != "years of work\n" {
		t.Fatal("-force deleted a user's file")
	}
	// A user's directory holding only names the run commands also write (report/, inspect/,
	// model.safetensors) and no config.yaml is not a run either.
	os.Remove(thesis)
	ownReport := writeFile(t, filepath.Join(foreign, "report"), "my report\n")
	writeFile(t, filepath.Join(foreign, rundir.ExportName), "my model\n")
	_, stderr, code = runChild(t, "-config", cfg, "-out", out, "-force")
	oneLineError(t, "-force on a user's report", stderr, code, "not a posformer run directory", "report")
	if b, _ := os.ReadFile(ownReport); string(b) != "my report\n" {
		t.Fatal("-force deleted a user's report")
	}
	os.Remove(ownReport)
	os.Remove(filepath.Join(foreign, rundir.ExportName))
	// A real run directory with a note of the user's: -force starts over and keeps the note.
	if err := runCaught("-config", cfg, "-out", out); err != nil {
		t.Fatal(err)
	}
	note := writeFile(t, filepath.Join(foreign, "NOTES"), "keep\n")
	stale := filepath.Join(foreign, rundir.VariantDir("old"))
	if err := os.Mkdir(stale, 0o755); err != nil { // an evaluation variant's results
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(stale, "results.json"), "{}\n")
	// What the commands on a finished run wrote from its old weights and results: an export, a
	// report and an inspection. Left beside the new run they would pass for its own.
	for _, args := range [][]string{{"export", foreign}, {"report", foreign}, {"inspect", foreign, "-length", "2", "-examples", "2"}} {
		if err := runCaught(args...); err != nil {
			t.Fatalf("%s: %v", args[0], err)
		}
	}
	if err := runCaught("-config", cfg, "-out", out, "-force", "-set", "train.steps=25"); err != nil {
		t.Fatalf("-force on a run directory: %v", err)
	}
	for _, old := range []string{rundir.ExportName, "report", "inspect"} {
		if _, err := os.Stat(filepath.Join(foreign, old)); err == nil {
			t.Errorf("-force left the old run's %s", old)
		}
	}
	if b, _ := os.ReadFile(note); string(b) != "keep\n" {
		t.Error("-force removed a file posformer did not write")
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("-force left an old evaluation variant's results")
	}
}

// TestResumeOutSpelledOtherwise: -resume finds the same run directory however -out spells it
// (a trailing slash, ./, an absolute path) and continues it rather than calling it another
// config.
func TestResumeOutSpelledOtherwise(t *testing.T) {
	base := t.TempDir()
	cfg := writeFile(t, filepath.Join(base, "cfg.yaml"), tinyConfig)
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	if err := os.Chdir(base); err != nil {
		t.Fatal(err)
	}
	if err := runCaught("-config", cfg, "-out", "out/x"); err != nil {
		t.Fatal(err)
	}
	for _, spelling := range []string{"out/x/", "./out/x", filepath.Join(base, "out", "x"), "out//x"} {
		if err := runCaught("-config", cfg, "-out", spelling, "-resume"); err != nil {
			t.Errorf("-resume -out %s: %v", spelling, err)
		}
	}
}

// TestResumeChecksTheTrainingConfig: -resume with a training field changed is refused with one
// line naming the field and both values; with only evaluation settings changed it evaluates the
// trained weights again (no training step: checkpoint.bin and metrics.jsonl keep their bytes)
// and writes the new results.
func TestResumeChecksTheTrainingConfig(t *testing.T) {
	base := t.TempDir()
	cfg := writeFile(t, filepath.Join(base, "cfg.yaml"), tinyConfig)
	out := filepath.Join(base, "out")
	if err := runCaught("-config", cfg, "-out", out); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(out, "copy_rope_s1")
	for _, c := range []struct{ set, want string }{
		{"train.steps=30", "train.steps (20 → 30)"},
		{"model.dtype=float64", "model.dtype (float32 → float64)"},
		{"train.lr=0.002", "train.lr (0.001 → 0.002)"},
	} {
		_, stderr, code := runChild(t, "-config", cfg, "-out", out, "-resume", "-set", c.set)
		oneLineError(t, "-resume -set "+c.set, stderr, code, "different config", c.want, "-force")
	}
	ck, _ := os.ReadFile(filepath.Join(dir, "checkpoint.bin"))
	metrics, _ := os.ReadFile(filepath.Join(dir, "metrics.jsonl"))
	if _, stderr, code := runChild(t, "-config", cfg, "-out", out, "-resume", "-set", "eval.lengths=1..10", "-set", "eval.examples=16"); code != 0 {
		t.Fatalf("-resume with other eval settings: exit %d\n%s", code, stderr)
	}
	res, err := train.ReadResult(dir)
	if err != nil || len(res.Lengths) != 10 || res.Lengths[0].N != 16 {
		t.Fatalf("re-evaluated results: %+v, %v; want 10 lengths of 16 examples", res, err)
	}
	ck2, _ := os.ReadFile(filepath.Join(dir, "checkpoint.bin"))
	metrics2, _ := os.ReadFile(filepath.Join(dir, "metrics.jsonl"))
	if !bytes.Equal(ck, ck2) || !bytes.Equal(metrics, metrics2) {
		t.Error("changing only eval settings trained again")
	}
}

// ckMirror is train's checkpoint as encoding/gob sees it (the fields these tests damage).
type ckMirror struct {
	Version int
	Names   []string
	Shapes  [][]int
	Weights [][]float64
	Step    int
	M, V    [][]float64
	Train   struct {
		Step     int
		Window   []float64
		LastLoss float64
		Tokens   int
		Config   string
	}
}

// TestDamagedOrForeignCheckpoint: a checkpoint damaged by hand (short or missing Adam moments,
// a wrong tensor name, missing weights) or copied from a run of another seed gives one line
// naming the problem on -resume, never a panic.
func TestDamagedOrForeignCheckpoint(t *testing.T) {
	base := t.TempDir()
	cfg := writeFile(t, filepath.Join(base, "cfg.yaml"), tinyConfig)
	out := filepath.Join(base, "out")
	if err := runCaught("-config", cfg, "-out", out, "-set", "train.steps=6", "-set", "train.checkpoint_every=5", "-set", "seed=2"); err != nil {
		t.Fatal(err)
	}
	if err := runCaught("-config", cfg, "-out", out, "-set", "train.steps=6", "-set", "train.checkpoint_every=5"); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(out, "copy_rope_s1")
	read := func(path string) ckMirror {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var ck ckMirror
		if err := gob.NewDecoder(f).Decode(&ck); err != nil {
			t.Fatal(err)
		}
		return ck
	}
	good := read(filepath.Join(dir, "checkpoint.bin"))
	foreign := read(filepath.Join(out, "copy_rope_s2", "checkpoint.bin"))
	for _, c := range []struct {
		name   string
		damage func(*ckMirror)
		want   string
	}{
		{"short moments", func(c *ckMirror) { c.M[3] = c.M[3][:1] }, "Adam's moments of"},
		{"missing moments", func(c *ckMirror) { c.V = nil }, "Adam's moments cover"},
		{"wrong name", func(c *ckMirror) { c.Names[2] = "block9.attn.wq" }, "it is from another config"},
		{"missing weights", func(c *ckMirror) { c.Weights = c.Weights[:2] }, "is damaged"},
		{"another seed", func(c *ckMirror) { *c = foreign }, "seed (2 → 1)"},
	} {
		ck := good
		ck.Names, ck.Weights = slices.Clone(good.Names), slices.Clone(good.Weights)
		ck.M, ck.V = slices.Clone(good.M), slices.Clone(good.V)
		c.damage(&ck)
		var buf bytes.Buffer
		if err := gob.NewEncoder(&buf).Encode(ck); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(buf.Bytes()) // the trailer SaveCheckpoint writes: the damage is past the checksum
		writeFile(t, filepath.Join(dir, "checkpoint.bin"), buf.String()+"posformer-sha256\n"+string(sum[:]))
		os.Remove(filepath.Join(dir, "results.json"))
		err := runCaught("-config", cfg, "-out", out, "-set", "train.steps=6", "-set", "train.checkpoint_every=5", "-resume")
		if err == nil || strings.HasPrefix(err.Error(), "PANIC") || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want one line saying %q", c.name, err, c.want)
		}
	}
	_, stderr, code := runChild(t, "-config", cfg, "-out", out, "-set", "train.steps=6", "-set", "train.checkpoint_every=5", "-resume")
	oneLineError(t, "a foreign checkpoint", stderr, code, "checkpoint.bin was trained with a different config", "seed (2 → 1)")
}

// TestConfigSizeBounded: -config /dev/zero (endless) and a file over 1 MiB are refused at once,
// one line naming the file, through the CLI and a real process; /dev/zero as a device, not a
// file (TestSpecialFilesRefused), before a byte is read.
func TestConfigSizeBounded(t *testing.T) {
	big := writeFile(t, filepath.Join(t.TempDir(), "big.yaml"), "# "+strings.Repeat("x", config.MaxConfigBytes)+"\n")
	for path, want := range map[string]string{"/dev/zero": "is a character device, not a regular file", big: "too large for a config"} {
		err := runCaught("-config", path, "-out", t.TempDir())
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
			t.Errorf("-config %s: %v; want a refusal naming the file", path, err)
		}
		_, stderr, code := runChild(t, "-config", path, "-out", t.TempDir())
		oneLineError(t, "-config "+path, stderr, code, path, want, "-config")
	}
}

// failingWriter fails every write, as a full or closed stdout does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// TestStdoutWriteErrors: a table that cannot be written (stdout on a full device, or closed)
// is an error and a non-zero exit, not a silent exit 0.
func TestStdoutWriteErrors(t *testing.T) {
	base := t.TempDir()
	cfg := writeFile(t, filepath.Join(base, "cfg.yaml"), tinyConfig)
	err := run(context.Background(), []string{"-config", cfg, "-out", filepath.Join(base, "a")}, failingWriter{}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "writing the output to stdout failed") {
		t.Errorf("a run whose table cannot be written: %v; want an error", err)
	}
	if err := run(context.Background(), []string{"pe", "-scheme", "sinusoidal", "-positions", "4", "-dim", "4"}, failingWriter{}, io.Discard); err == nil {
		t.Error("pe with a failing stdout exits without an error")
	}
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full")
	}
	defer full.Close()
	cmd := child("-config", cfg, "-out", filepath.Join(base, "b"))
	cmd.Stdout = full
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	code := cmd.ProcessState.ExitCode()
	oneLineError(t, "stdout on /dev/full", stderr.String(), code, "writing the output to stdout failed", "no space left on device")
	_ = err
	closed := child("pe", "-scheme", "sinusoidal", "-positions", "4", "-dim", "4")
	closed.Stdout = nil
	if r, w, perr := os.Pipe(); perr == nil { // a stdout whose reader is gone
		r.Close()
		closed.Stdout = w
		if err := closed.Run(); err == nil {
			t.Error("pe into a closed pipe exits 0")
		}
		w.Close()
	}
}

// TestGridResumeOutSpelledOtherwise: a grid's -resume finds its grid.yaml the same however -out
// spells the directory.
func TestGridResumeOutSpelledOtherwise(t *testing.T) {
	base := t.TempDir()
	cfg := writeFile(t, filepath.Join(base, "grid.yaml"), strings.Replace(tinyConfig, "steps: 20", "steps: 4", 1)+"sweep:\n  seed: [1, 2]\n")
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	if err := os.Chdir(base); err != nil {
		t.Fatal(err)
	}
	// One shard of two: the grid.yaml check is the same, without the report's plots.
	if err := runCaught("-config", cfg, "-out", "out", "-jobs", "1", "-shard", "0/2"); err != nil {
		t.Fatal(err)
	}
	for _, spelling := range []string{"out/", "./out", filepath.Join(base, "out")} {
		if err := runCaught("-config", cfg, "-out", spelling, "-resume", "-jobs", "1", "-shard", "0/2"); err != nil {
			t.Errorf("grid -resume -out %s: %v", spelling, err)
		}
	}
}

// TestForeignCheckpointKeepsResults: a finished run whose checkpoint.bin was replaced by another
// run's (seed 5's) is refused by -resume even when only evaluation settings changed, and the
// refusal keeps its results (they were removed before the checkpoint was checked); inspect and
// export refuse the foreign weights too, rather than show or write them under this run's name.
func TestForeignCheckpointKeepsResults(t *testing.T) {
	base := t.TempDir()
	cfg := writeFile(t, filepath.Join(base, "cfg.yaml"), tinyConfig)
	out := filepath.Join(base, "out")
	for _, seed := range []string{"1", "5"} {
		if err := runCaught("-config", cfg, "-out", out, "-set", "seed="+seed); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(out, "copy_rope_s1")
	foreign, err := os.ReadFile(filepath.Join(out, "copy_rope_s5", "checkpoint.bin"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "checkpoint.bin"), string(foreign))
	results, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runChild(t, "-config", cfg, "-out", out, "-resume", "-set", "eval.lengths=1..6")
	oneLineError(t, "-resume with a foreign checkpoint", stderr, code, "cannot resume", "checkpoint.bin was trained with a different config", "seed (5 → 1)")
	for _, f := range []string{"results.json", "results.csv", "timing.json", "diagnostics.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("a refused -resume removed %s", f)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "results.json")); string(b) != string(results) {
		t.Error("a refused -resume changed results.json")
	}
	_, stderr, code = runChild(t, "inspect", dir, "-length", "2")
	oneLineError(t, "inspect of a foreign checkpoint", stderr, code, "inspect: ", "was trained with another config than", "seed (5 → 1)", "train the run again with -force")
	_, stderr, code = runChild(t, "export", dir)
	oneLineError(t, "export of a foreign checkpoint", stderr, code, "export: ", "was trained with another config than", "seed (5 → 1)")
	if _, err := os.Stat(filepath.Join(dir, rundir.ExportName)); err == nil {
		t.Error("export wrote the foreign weights")
	}
}

// TestReevaluationDropsOldViews: -resume with only evaluation settings changed evaluates the
// weights again and removes what inspect and report made of the old evaluation (with the old
// rope_scaling, say), keeping the export of the unchanged weights.
func TestReevaluationDropsOldViews(t *testing.T) {
	base := t.TempDir()
	cfg := writeFile(t, filepath.Join(base, "cfg.yaml"), tinyConfig)
	out := filepath.Join(base, "out")
	if err := runCaught("-config", cfg, "-out", out); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(out, "copy_rope_s1")
	for _, args := range [][]string{{"export", dir}, {"report", dir}, {"inspect", dir, "-length", "6", "-examples", "2"}} {
		if err := runCaught(args...); err != nil {
			t.Fatalf("%s: %v", args[0], err)
		}
	}
	if err := runCaught("-config", cfg, "-out", out, "-resume", "-set", "position.rope_scaling=ntk"); err != nil {
		t.Fatal(err)
	}
	for _, old := range []string{"inspect", "report"} {
		if _, err := os.Stat(filepath.Join(dir, old)); err == nil {
			t.Errorf("the re-evaluation left %s/ of the old evaluation", old)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, rundir.ExportName)); err != nil {
		t.Errorf("the re-evaluation removed the export of the unchanged weights: %v", err)
	}
}

// TestReevaluationWritesBeforeRemoving: a -resume that re-evaluates a finished run (other
// eval.lengths) keeps the old results and config.yaml until the new results are written: when
// the disk fills while it writes results.json (an injected ENOSPC, through run) or the process is
// killed after each write of the re-evaluation, the run is left finished with its old results or
// its new ones, never without results, and -resume then ends with the new ones (issue 35 point 4).
func TestReevaluationWritesBeforeRemoving(t *testing.T) {
	base := t.TempDir()
	cfg := writeFile(t, filepath.Join(base, "cfg.yaml"), tinyConfig)
	out := filepath.Join(base, "out")
	if err := runCaught("-config", cfg, "-out", out); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(out, "copy_rope_s1")
	oldResults, _ := os.ReadFile(filepath.Join(dir, "results.json"))
	oldConfig, _ := os.ReadFile(filepath.Join(dir, "config.yaml"))
	lengths := func() int {
		t.Helper()
		res, err := train.ReadResult(dir)
		if err != nil {
			t.Fatalf("the run has no results: %v", err)
		}
		return len(res.Lengths)
	}
	again := []string{"-config", cfg, "-out", out, "-resume", "-set", "eval.lengths=1..10"}

	orig := rundir.WriteData
	rundir.WriteData = func(f *os.File, b []byte) (int, error) {
		if strings.Contains(filepath.Base(f.Name()), "results.json") {
			return 0, syscall.ENOSPC
		}
		return orig(f, b)
	}
	err := runCaught(again...)
	rundir.WriteData = orig
	if err == nil || !strings.Contains(err.Error(), "the disk is full") {
		t.Fatalf("a full disk during the re-evaluation: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "results.json")); !bytes.Equal(got, oldResults) {
		t.Error("the failed re-evaluation lost the old results.json")
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "config.yaml")); !bytes.Equal(got, oldConfig) {
		t.Error("the failed re-evaluation wrote the new config.yaml beside the old results")
	}
	if err := runCaught(again...); err != nil || lengths() != 10 {
		t.Fatalf("-resume after the full disk: %v", err)
	}
	if testing.Short() {
		return
	}
	for i, name := range []string{rundir.DiagnosticsFile, "results.csv", "results.json", "config.yaml"} {
		set := fmt.Sprintf("eval.lengths=1..%d", 11+i) // each time another evaluation
		cmd := child("-config", cfg, "-out", out, "-resume", "-set", set)
		cmd.Env = append(cmd.Env, "POSFORMER_KILL_AFTER="+name)
		if err := cmd.Run(); err == nil {
			t.Fatalf("the re-evaluation was not killed after %s", name)
		}
		if n := lengths(); n != 10+i && n != 11+i { // the old results or the new ones
			t.Errorf("killed after %s: results of %d lengths", name, n)
		}
		if _, stderr, code := runChild(t, "-config", cfg, "-out", out, "-resume", "-set", set); code != 0 || lengths() != 11+i {
			t.Fatalf("-resume after a kill at %s: exit %d, %d lengths\n%s", name, code, lengths(), stderr)
		}
	}
}
