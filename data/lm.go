package data

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	_ "embed"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"

	"github.com/posformer/posformer/internal/fielderr"
	"github.com/posformer/posformer/internal/memlimit"
	"github.com/posformer/posformer/internal/regfile"
)

// The lm task's built-in corpus: a fixed selection of the Go standard library's source (BSD
// licence; data/corpus/README.md says which files, from which Go version, and how build.go
// makes it again).
var (
	//go:embed corpus/gostd.tar.gz
	builtinCorpus []byte
)

// Built-in corpus identity: its path in the repository (for messages) and the SHA-256 of its
// uncompressed tar stream (`gunzip -c data/corpus/gostd.tar.gz | sha256sum`).
const (
	BuiltinCorpusPath   = "data/corpus/gostd.tar.gz"
	BuiltinCorpusSHA256 = "4dad61fea00b9f9af1893f307d76da90f03d81ac41641d005aab8c9e6ce5a42a"
)

// LM splits: every document goes to one of them, by the first byte of the SHA-256 of its name
// (splitOf), so adding or removing a document moves no other.
const (
	SplitTrain = iota
	SplitValidation
	SplitTest
)

// splitOf assigns a document to a split by its name: about 90% train, 5% validation, 5% test.
func splitOf(name string) int {
	h := sha256.Sum256([]byte(name))
	switch {
	case h[0] < 230:
		return SplitTrain
	case h[0] < 243:
		return SplitValidation
	}
	return SplitTest
}

const lmName = "lm"

// MaxCorpusBytes bounds a corpus's uncompressed size (the lm task holds it in memory as tokens).
const MaxCorpusBytes = 64 << 20

func init() {
	Register(lmName, func(opt Options) (Task, error) {
		if opt.Symbols != 0 && opt.Symbols != DefaultSymbols {
			return nil, fielderr.New("task.symbols", "the lm task's tokens are the corpus's bytes (%d symbols); remove task.symbols", 256)
		}
		if opt.Format == FormatSlots || opt.EndToken {
			return nil, fielderr.New("task.format", "the lm task predicts every next byte (the next-token format); remove task.format and task.end_token")
		}
		return LoadLM(opt.Corpus, opt.CorpusSHA256)
	})
	DeclareKind(lmName, KindText)
}

// LM is the language-modelling task: next-byte prediction on a corpus of documents, byte-level
// tokens (byte b is token FirstSymbol+b), each document in one split. A split is its documents
// concatenated in the archive's order into one stream. An example of length L is L consecutive
// tokens of a split; the model predicts every next token (SeqLen(L) = L, every position scored).
type LM struct {
	// Corpus is where the corpus came from (BuiltinCorpusPath or the path given); SHA256 its hash.
	Corpus, SHA256 string
	// Docs is the number of documents of each split, Streams their tokens.
	Docs    [3]int
	Streams [3][]int
}

func (*LM) Name() string        { return lmName }
func (*LM) Vocab() int          { return FirstSymbol + 256 }
func (*LM) OutputLen(L int) int { return 0 }

// LongestWindow is the longest training length the corpus allows: a training example of L
// tokens reads L+1 consecutive tokens of the training stream (its next tokens too).
func (t *LM) LongestWindow() int { return len(t.Streams[SplitTrain]) - 1 }

// Generate draws L consecutive tokens of the training stream (Input; no Output).
func (t *LM) Generate(rng *rand.Rand, L int) Example {
	return Example{Input: t.window(rng, L, 0)}
}

// window draws L+extra consecutive tokens of the training stream.
func (t *LM) window(rng *rand.Rand, L, extra int) []int {
	if L < 1 {
		panic(fmt.Sprintf("lm: length %d < 1", L))
	}
	s := t.Streams[SplitTrain]
	n := L + extra
	if n > len(s) {
		panic(fmt.Sprintf("lm: window of %d tokens from a training stream of %d", n, len(s)))
	}
	start := rng.IntN(len(s) - n + 1)
	return append([]int(nil), s[start:start+n]...)
}

// batch is B training windows of L tokens (and their next tokens), every position scored.
func (t *LM) batch(rng *rand.Rand, L, B int) Batch {
	b := Batch{B: B, T: L, L: L, Inputs: make([]int, B*L), Targets: make([]int, B*L), Weights: make([]float64, B*L)}
	for i := range B {
		w := t.window(rng, L, 1)
		copy(b.Inputs[i*L:], w[:L])
		copy(b.Targets[i*L:], w[1:])
	}
	for i := range b.Weights {
		b.Weights[i] = 1
	}
	return b
}

// Window is one evaluation window of a split's stream x: it reads x[Start : Start+Len] and
// predicts x[Start+1 : Start+Len+1], scoring only its last Scored predictions.
type Window struct{ Start, Len, Scored int }

// Windows cuts a split's stream of N tokens into the windows that score each of its N−1
// predictions (every token but the first) exactly once, with contexts of at most L tokens.
// stride 0: non-overlapping windows of L tokens (the last one shorter), every prediction of each
// scored, so a token's context is its place in its window (Press et al. 2022's main tables).
// stride S > 0: a sliding window, each window of L tokens ending S predictions after the last,
// scoring only those S (the first window scores all of its own), so every token but the first
// L has at least L−S tokens of context.
func (t *LM) Windows(split, L, stride int) []Window {
	n := len(t.Streams[split]) - 1 // predictions
	var out []Window
	if L < 1 || n < 1 {
		return nil
	}
	first := min(L, n)
	out = append(out, Window{Start: 0, Len: first, Scored: first})
	if stride <= 0 {
		for start := first; start < n; start += L {
			k := min(L, n-start)
			out = append(out, Window{Start: start, Len: k, Scored: k})
		}
		return out
	}
	for c := first; c < n; {
		e := min(c+stride, n) // predictions 1..e are covered after this window
		out = append(out, Window{Start: e - L, Len: L, Scored: e - c})
		c = e
	}
	return out
}

// WindowBatch lays windows of one length out as a Batch: every window's tokens and next tokens,
// weight 1 on its Scored last predictions.
func (t *LM) WindowBatch(split int, ws []Window) (Batch, error) {
	if len(ws) == 0 {
		return Batch{}, errors.New("lm: no windows")
	}
	x := t.Streams[split]
	T := ws[0].Len
	b := Batch{B: len(ws), T: T, L: T, Inputs: make([]int, len(ws)*T), Targets: make([]int, len(ws)*T), Weights: make([]float64, len(ws)*T)}
	for i, w := range ws {
		if w.Len != T || w.Start < 0 || w.Start+w.Len+1 > len(x) || w.Scored > w.Len {
			return Batch{}, fmt.Errorf("lm: window %d %+v does not fit a batch of length %d over %d tokens", i, w, T, len(x))
		}
		copy(b.Inputs[i*T:], x[w.Start:w.Start+T])
		copy(b.Targets[i*T:], x[w.Start+1:w.Start+T+1])
		for j := T - w.Scored; j < T; j++ {
			b.Weights[i*T+j] = 1
		}
	}
	return b, nil
}

var lmCache = struct {
	sync.Mutex
	m map[string]*LM
}{m: map[string]*LM{}}

// LoadLM reads a corpus (path "" for the built-in one) and checks that the SHA-256 of its
// uncompressed tar stream is want ("" for the built-in one's). A corpus is a gzip-compressed tar
// archive of text documents, each a regular file (build.go in data/corpus makes the built-in
// one). Errors name task.corpus or task.corpus_sha256 and say how to get the right corpus.
func LoadLM(path, want string) (*LM, error) {
	key := path + "\x00" + want
	lmCache.Lock()
	defer lmCache.Unlock()
	if t, ok := lmCache.m[key]; ok {
		return t, nil
	}
	name, src := path, builtinCorpus
	restore := "restore it with `git checkout -- " + BuiltinCorpusPath + "` and build posformer again"
	if path == "" {
		name = BuiltinCorpusPath
		if want == "" {
			want = BuiltinCorpusSHA256
		}
	} else {
		if want == "" {
			return nil, fielderr.New("task.corpus_sha256", "give the SHA-256 of %s's uncompressed tar stream (`gunzip -c %s | sha256sum`), which every run checks", path, path)
		}
		b, err := readCorpus(path)
		if err != nil {
			return nil, fielderr.New("task.corpus", "%w; give the path of a .tar.gz corpus, or remove task.corpus (and task.corpus_sha256) for the built-in %s", err, BuiltinCorpusPath)
		}
		src = b
		restore = "use the corpus that hash pins, or set task.corpus_sha256 to the new hash if this corpus is the one you mean"
	}
	if err := roomFor(name, src); err != nil {
		return nil, err
	}
	raw, err := gunzip(src)
	if errors.Is(err, errOverCap) {
		return nil, fielderr.New("task.corpus", "%s %v, which posformer holds in memory as tokens; use a smaller corpus", name, err)
	}
	if err != nil {
		return nil, fielderr.New("task.corpus", "%s is not a gzip-compressed tar archive (%v); %s", name, err, restore)
	}
	sum := sha256.Sum256(raw)
	if got := hex.EncodeToString(sum[:]); got != want {
		return nil, fielderr.New("task.corpus", "%s has SHA-256 %s, but task.corpus_sha256 pins %s; %s", name, got, want, restore)
	}
	t := &LM{Corpus: name, SHA256: want}
	// Two passes: the documents' sizes first, so that each split's stream is allocated once at
	// its size (appending grew it a quarter at a time, and the garbage of every growth piled up
	// before a collection: a 54 MB corpus peaked at 1.35 GB); then their bytes, read in chunks.
	var size [3]int64
	if err := eachDoc(raw, func(h *tar.Header, _ io.Reader) error {
		size[splitOf(h.Name)] += h.Size
		return nil
	}); err != nil {
		return nil, fielderr.New("task.corpus", "%s: %w; %s", name, err, restore)
	}
	for sp := range t.Streams {
		t.Streams[sp] = make([]int, 0, min(size[sp], int64(len(raw))))
	}
	chunk := make([]byte, 64<<10)
	if err := eachDoc(raw, func(h *tar.Header, r io.Reader) error {
		sp := splitOf(h.Name)
		t.Docs[sp]++
		for {
			n, err := r.Read(chunk)
			for _, c := range chunk[:n] {
				t.Streams[sp] = append(t.Streams[sp], FirstSymbol+int(c))
			}
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return fmt.Errorf("%s: %w", h.Name, err)
			}
		}
	}); err != nil {
		return nil, fielderr.New("task.corpus", "%s: %w; %s", name, err, restore)
	}
	for sp, what := range []string{"training", "validation", "test"} {
		if len(t.Streams[sp]) < 2 {
			return nil, fielderr.New("task.corpus", "%s has no %s documents (documents are split by the hash of their names, about 90/5/5); give a corpus of more documents", name, what)
		}
	}
	lmCache.m[key] = t
	return t, nil
}

// roomFor refuses, before it is unpacked, a corpus whose loading needs more memory than the
// process's limits leave (internal/memlimit): its uncompressed archive (gzip's trailer gives its
// size) and 8 bytes a byte of it as tokens, beside the compressed bytes already read.
func roomFor(name string, src []byte) error {
	if len(src) < 4 {
		return nil
	}
	size := int64(binary.LittleEndian.Uint32(src[len(src)-4:]))
	need := 9 * min(size, MaxCorpusBytes)
	if room, what, ok := memlimit.Room(); ok && need > room {
		return fielderr.New("task.corpus", "loading %s (%.0f MB uncompressed) needs about %.0f MB, more than the %.0f MB that %s leaves; use a smaller corpus, or raise the limit", name, float64(size)/1e6, float64(need)/1e6, float64(room)/1e6, what)
	}
	return nil
}

// eachDoc calls f with every regular file of the tar archive raw, in order.
func eachDoc(raw []byte, f func(*tar.Header, io.Reader) error) error {
	tr := tar.NewReader(bytes.NewReader(raw))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		if err := f(h, tr); err != nil {
			return err
		}
	}
}

// CorpusBytes is the memory a loaded corpus holds through a run: its tokens, 8 bytes each.
func (t *LM) CorpusBytes() int64 {
	var n int64
	for _, s := range t.Streams {
		n += int64(cap(s)) * 8
	}
	return n
}

// readCorpus reads a corpus file, refusing one larger than MaxCorpusBytes and, at once, anything
// but a regular file (a FIFO would block, a device never end).
func readCorpus(path string) ([]byte, error) {
	f, err := regfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var buf bytes.Buffer // sized at once: io.ReadAll's growth left copies behind
	if info, err := f.Stat(); err == nil {
		buf.Grow(int(min(info.Size(), MaxCorpusBytes)) + 1)
	}
	if _, err := io.Copy(&buf, io.LimitReader(f, MaxCorpusBytes+1)); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	if len(b) > MaxCorpusBytes {
		size := fmt.Sprintf("more than %d bytes", MaxCorpusBytes)
		if info, err := f.Stat(); err == nil && info.Size() > MaxCorpusBytes {
			size = fmt.Sprintf("%d bytes", info.Size())
		}
		return nil, fmt.Errorf("%s is %s, over the %d MiB (%d bytes) cap on a corpus file", path, size, MaxCorpusBytes>>20, MaxCorpusBytes)
	}
	return b, nil
}

// errOverCap: a corpus larger than MaxCorpusBytes uncompressed.
var errOverCap = fmt.Errorf("over the %d MiB (%d bytes) cap on a corpus", MaxCorpusBytes>>20, MaxCorpusBytes)

// gunzip decompresses at most MaxCorpusBytes.
func gunzip(src []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(src))
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer // sized at once from gzip's trailer (the size mod 2^32), when it is in range
	if n := len(src); n >= 4 {
		if size := int64(binary.LittleEndian.Uint32(src[n-4:])); size <= MaxCorpusBytes {
			buf.Grow(int(size) + 1)
		}
	}
	if _, err := io.Copy(&buf, io.LimitReader(zr, MaxCorpusBytes+1)); err != nil {
		return nil, err
	}
	raw := buf.Bytes()
	if len(raw) > MaxCorpusBytes {
		size := fmt.Sprintf("more than %d bytes", MaxCorpusBytes)
		if t := int64(binary.LittleEndian.Uint32(src[len(src)-4:])); t > MaxCorpusBytes { // the size mod 2^32
			size = fmt.Sprintf("%d bytes", t)
		}
		return nil, fmt.Errorf("holds %s uncompressed, %w", size, errOverCap)
	}
	return raw, nil
}

// ByteTokens: the corpus is bytes, written as text by inspect and the report.
func (*LM) ByteTokens() {}

var _ ByteTokens = (*LM)(nil)
