package train

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTorchShowBadInput: `python/posformer_torch.py show` on bad input (a missing file, no file,
// a file that is no export, a truncated export, a token outside the vocabulary or not a number)
// prints one line on stderr naming the problem (and the file it read), no traceback, and exits non-zero; on a good
// export it prints the logits and exits 0.
func TestTorchShowBadInput(t *testing.T) {
	needTorch(t)
	dir := t.TempDir()
	export, err := exportTo(finishedRun(t, dir), "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(export)
	if err != nil {
		t.Fatal(err)
	}
	truncated := filepath.Join(dir, "truncated.safetensors")
	notExport := filepath.Join(dir, "notes.txt")
	for path, data := range map[string][]byte{truncated: b[:len(b)/2], notExport: []byte("hello\n")} {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	missing := filepath.Join(dir, "missing.safetensors")
	// A learned table of 8 rows (the longest training sequence): 9 tokens need a ninth.
	learnedCfg := tinyConfig(t, t.TempDir(), "position.kind=learned", "position.max_positions=8", "train.steps=3", "train.val_every=-1", "eval.lengths=1..2", "eval.examples=2")
	if _, err := Run(context.Background(), learnedCfg, Options{}); err != nil {
		t.Fatal(err)
	}
	learned, err := exportTo(filepath.Join(learnedCfg.Out, learnedCfg.Name), "")
	if err != nil {
		t.Fatal(err)
	}
	show := func(args ...string) (stdout, stderr string, code int) {
		cmd := exec.Command(torchPython, append([]string{torchModule, "show"}, args...)...)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return o.String(), e.String(), code
	}
	for _, c := range []struct {
		name string
		args []string
		want []string // what the one line must say
	}{
		{"a missing file", []string{missing}, []string{missing, "No such file"}},
		{"no file", nil, []string{"required: file"}},
		{"not an export", []string{notExport}, []string{notExport, "not a safetensors file", "train export"}},
		{"a truncated export", []string{truncated}, []string{truncated, "truncated", "export the run again"}},
		{"a token outside the vocabulary", []string{export, "1", "99"}, []string{export + ": tokens [99]", "vocabulary 0..9", "below 10"}},
		{"a token that is not a number", []string{export, "x"}, []string{"invalid int value: 'x'"}},
		{"more tokens than a learned table has rows", []string{learned, "1", "2", "3", "4", "5", "6", "7", "8", "9"}, []string{learned + ": position.max_positions", "8 rows", "position 8"}},
	} {
		_, stderr, code := show(c.args...)
		if code == 0 || strings.Count(stderr, "\n") != 1 || strings.Contains(stderr, "Traceback") {
			t.Errorf("%s: exit %d, stderr %q; want a non-zero exit and one line", c.name, code, stderr)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: %q does not say %q", c.name, stderr, w)
			}
		}
	}
	if stdout, stderr, code := show(export, "1", "2"); code != 0 || stderr != "" || !strings.Contains(stdout, "token 2 at 1: next ") {
		t.Errorf("a good export: exit %d, stderr %q, stdout %q", code, stderr, stdout)
	}
}
