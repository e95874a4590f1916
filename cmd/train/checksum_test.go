package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/posformer/posformer/train"
)

// TestFlippedBitRefused: one flipped bit anywhere in checkpoint.bin (bytes 1000 and 5000, as the
// hostile tester chose, and the checksum itself) is refused by every reader of the weights: the
// loader (train.LoadModel), and through the CLI and a real process inspect, export, report (the plot of
// a learned table loads the model) and -resume re-evaluating the run; one line naming the file and saying
// what to do. The intact file loads, and so does a checkpoint written before checksums (the
// trailer cut off), unless bytes follow its data.
func TestFlippedBitRefused(t *testing.T) {
	base := t.TempDir()
	// A learned run: report loads its model for the plot of the trained table.
	cfg := writeFile(t, filepath.Join(base, "cfg.yaml"), strings.Replace(tinyConfig, "kind: rope", "kind: learned", 1))
	out := filepath.Join(base, "runs")
	if err := runCaught("-config", cfg, "-out", out); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(out, "copy_learned_s1")
	path := filepath.Join(dir, "checkpoint.bin")
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := train.LoadModel(dir); err != nil {
		t.Fatalf("the intact checkpoint: %v", err)
	}
	const want = "is damaged: its bytes do not match the checksum written with them"
	for _, at := range []int{1000, 5000, len(good) - 1} {
		bad := []byte(string(good))
		bad[at] ^= 0x10
		writeFile(t, path, string(bad))
		if _, _, err := train.LoadModel(dir); err == nil || !strings.Contains(err.Error(), path+" "+want) {
			t.Errorf("LoadModel with byte %d flipped: %v", at, err)
		}
		for _, args := range [][]string{
			{"inspect", dir, "-length", "2"},
			{"export", dir, "-o", filepath.Join(base, "m.safetensors")},
			{"report", dir},
			{"-config", cfg, "-out", out, "-resume", "-set", "eval.lengths=1..6"},
		} {
			if err := runCaught(args...); err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s with byte %d flipped: %v", args[0], at, err)
			}
			if at != 1000 {
				continue // one real process per command
			}
			_, stderr, code := runChild(t, args...)
			oneLineError(t, args[0]+" with a flipped bit", stderr, code, path, want, "train it again")
		}
	}
	if _, err := os.Stat(filepath.Join(base, "m.safetensors")); err == nil {
		t.Error("export wrote the damaged weights")
	}
	// Before checksums: the gob encoding alone loads; with bytes after it, it is damaged.
	// It loads with a warning that it cannot be verified (a stripped trailer reads the same),
	// once per file, through the loader, the CLI and a real process (issue 35 point 9).
	old := good[:len(good)-len("posformer-sha256\n")-32]
	writeFile(t, path, string(old))
	var warned []string
	orig := train.Warn
	train.Warn = func(msg string) { warned = append(warned, msg) }
	defer func() { train.Warn = orig }()
	const unverified = "has no checksum (written before posformer wrote them, or its trailer was removed): it cannot be verified"
	if _, _, err := train.LoadModel(dir); err != nil {
		t.Errorf("a checkpoint written before checksums: %v", err)
	}
	train.LoadModel(dir)
	if len(warned) != 1 || !strings.Contains(warned[0], path+" "+unverified) {
		t.Errorf("a checkpoint without its trailer, loaded twice: warnings %q, want one naming it", warned)
	}
	if err := runCaught("export", dir, "-o", filepath.Join(base, "old.safetensors")); err != nil {
		t.Errorf("export of a checkpoint written before checksums: %v", err)
	}
	if !testing.Short() {
		_, stderr, code := runChild(t, "inspect", dir, "-length", "2")
		if code != 0 || strings.Count(stderr, "train: warning: checkpoint "+path+" "+unverified) != 1 {
			t.Errorf("inspect of a checkpoint without its trailer: exit %d, stderr %q; want 0 and one warning", code, stderr)
		}
	}
	writeFile(t, path, string(old)+"posformer-sha256X"+strings.Repeat("0", 32))
	if _, _, err := train.LoadModel(dir); err == nil || !strings.Contains(err.Error(), "49 bytes follow its data") {
		t.Errorf("a checkpoint whose trailer's magic is damaged: %v", err)
	}
}
