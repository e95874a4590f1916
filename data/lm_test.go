package data

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestLMBuiltinCorpus(t *testing.T) {
	task, err := New("lm", Options{})
	if err != nil {
		t.Fatal(err)
	}
	lm := task.(*LM)
	if lm.SHA256 != BuiltinCorpusSHA256 || lm.Corpus != BuiltinCorpusPath {
		t.Fatalf("corpus %s %s", lm.Corpus, lm.SHA256)
	}
	total := 0
	for sp := range lm.Streams {
		if lm.Docs[sp] == 0 || len(lm.Streams[sp]) < 10000 {
			t.Errorf("split %d: %d documents, %d bytes", sp, lm.Docs[sp], len(lm.Streams[sp]))
		}
		for _, tok := range lm.Streams[sp] {
			if tok < FirstSymbol || tok >= lm.Vocab() {
				t.Fatalf("split %d: token %d outside [%d, %d)", sp, tok, FirstSymbol, lm.Vocab())
			}
		}
		total += len(lm.Streams[sp])
	}
	// Every byte of the archive's documents is in exactly one split.
	raw, err := gunzip(builtinCorpus)
	if err != nil {
		t.Fatal(err)
	}
	if total >= len(raw) || total < len(raw)*9/10 {
		t.Errorf("the splits hold %d bytes of a %d-byte tar stream", total, len(raw))
	}
	t.Logf("documents %v, bytes train %d validation %d test %d", lm.Docs, len(lm.Streams[0]), len(lm.Streams[1]), len(lm.Streams[2]))
}

func TestLMCorpusRefused(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "other.tar.gz")
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte("not a tar"))
	zw.Close()
	os.WriteFile(other, buf.Bytes(), 0o644)
	fifo := filepath.Join(dir, "fifo.tar.gz")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		opt  Options
		want []string
	}{
		{Options{CorpusSHA256: strings.Repeat("0", 64)}, []string{"task.corpus: data/corpus/gostd.tar.gz has SHA-256 " + BuiltinCorpusSHA256, "git checkout -- data/corpus/gostd.tar.gz"}},
		{Options{Corpus: filepath.Join(dir, "missing.tar.gz"), CorpusSHA256: BuiltinCorpusSHA256}, []string{"task.corpus: open ", "no such file", "remove task.corpus"}},
		{Options{Corpus: other}, []string{"task.corpus_sha256: give the SHA-256 of " + other}},
		{Options{Corpus: other, CorpusSHA256: BuiltinCorpusSHA256}, []string{"task.corpus: " + other + " has SHA-256 ", "set task.corpus_sha256 to the new hash"}},
		{Options{Symbols: 5}, []string{"task.symbols: the lm task's tokens are the corpus's bytes"}},
		// a FIFO with no writer blocked the open forever; /dev/zero was read for 64 MiB
		{Options{Corpus: fifo, CorpusSHA256: BuiltinCorpusSHA256}, []string{"task.corpus: " + fifo + " is a named pipe (FIFO), not a regular file", "remove task.corpus"}},
		{Options{Corpus: "/dev/zero", CorpusSHA256: BuiltinCorpusSHA256}, []string{"task.corpus: /dev/zero is a character device, not a regular file"}},
	} {
		done := make(chan error, 1)
		go func() { _, err := New("lm", c.opt); done <- err }()
		var err error
		select {
		case err = <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%+v: still reading after 10 s", c.opt)
		}
		if err == nil {
			t.Errorf("%+v: no error", c.opt)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%+v: %v\nwant %q", c.opt, err, w)
			}
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: more than one line: %q", c.opt, err)
		}
	}
}

// Windows score every prediction of a split exactly once, with contexts of at most L tokens, and
// the sliding window gives every scored token but the first L at least L−S tokens of context.
func TestLMWindowsScoreEachTokenOnce(t *testing.T) {
	lm := &LM{}
	for _, n := range []int{2, 3, 17, 64, 65, 1000} {
		lm.Streams[SplitTest] = make([]int, n)
		for _, L := range []int{1, 2, 7, 16, 64, 999, 2000} {
			for _, S := range []int{0, 1, 3, 8, 16} {
				if S > L {
					continue
				}
				seen := make([]int, n) // prediction of token j (1 ≤ j < n)
				for _, w := range lm.Windows(SplitTest, L, S) {
					if w.Len > L || w.Start < 0 || w.Start+w.Len >= n+1 || w.Scored < 1 || w.Scored > w.Len {
						t.Fatalf("n %d L %d S %d: bad window %+v", n, L, S, w)
					}
					for j := w.Start + w.Len - w.Scored + 1; j <= w.Start+w.Len; j++ {
						seen[j]++
						ctx := j - w.Start // tokens before j inside the window
						if S > 0 && j > L && ctx < L-S+1 {
							t.Fatalf("n %d L %d S %d: token %d scored with %d tokens of context", n, L, S, j, ctx)
						}
					}
				}
				for j := 1; j < n; j++ {
					if seen[j] != 1 {
						t.Fatalf("n %d L %d S %d: token %d scored %d times", n, L, S, j, seen[j])
					}
				}
			}
		}
	}
}

func TestLMTrainBatchDeterministic(t *testing.T) {
	task, err := New("lm", Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := Train{Task: task, MinLen: 32, MaxLen: 32, BatchSize: 4, Seed: 3}
	a, err := s.Batch(7)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := s.Batch(7)
	c, _ := s.Batch(8)
	if a.T != 32 || a.B != 4 || !equalInts(a.Inputs, b.Inputs) || equalInts(a.Inputs, c.Inputs) {
		t.Fatalf("batch 7 twice differs, or batch 8 equals it: %v", a.T)
	}
	for i := 0; i < a.B; i++ {
		row := a.Inputs[i*32 : (i+1)*32]
		next := a.Targets[i*32 : (i+1)*32]
		for j := 0; j+1 < 32; j++ {
			if next[j] != row[j+1] || a.Weights[i*32+j] != 1 {
				t.Fatalf("row %d: target %d is not the next input", i, j)
			}
		}
	}
}

func equalInts(a, b []int) bool { return slices.Equal(a, b) }
