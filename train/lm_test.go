package train

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/posformer/posformer/metric"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/model"
	"github.com/posformer/posformer/rundir"
	"github.com/posformer/posformer/setup"
)

// lmCorpus writes a small corpus of text documents (about 1 KB each) as a .tar.gz in dir, with
// enough of them that every split has some, and returns its path and hash.
func lmCorpus(t *testing.T, dir string) (path, sum string) {
	t.Helper()
	var tarBuf bytes.Buffer
	tw := tar.NewWriter(&tarBuf)
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("func return if else for range var const type struct map chan go defer select case switch package import")
	for i := range 80 {
		var doc strings.Builder
		for doc.Len() < 1000 {
			doc.WriteString(words[rng.IntN(len(words))])
			doc.WriteByte(" \n"[rng.IntN(2)])
		}
		if err := tw.WriteHeader(&tar.Header{Name: fmt.Sprintf("doc%02d.txt", i), Mode: 0o644, Size: int64(doc.Len())}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(doc.String()))
	}
	tw.Close()
	h := sha256.Sum256(tarBuf.Bytes())
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(tarBuf.Bytes())
	zw.Close()
	path = filepath.Join(dir, "corpus.tar.gz")
	if err := os.WriteFile(path, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, hex.EncodeToString(h[:])
}

// lmConfig is lmTiny on a small corpus of its own (lmCorpus).
func lmConfig(t *testing.T, out string, set ...string) config.Config {
	t.Helper()
	path, sum := lmCorpus(t, t.TempDir())
	cfg, _, err := config.Read([]byte(lmTiny), "lm.yaml", append([]string{"out=" + out, "task.corpus=" + path, "task.corpus_sha256=" + sum}, set...))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

const lmTiny = `task: {name: lm, min_len: 16, max_len: 16}
model: {d_model: 8, heads: 2, layers: 1, d_ff: 8, dtype: float64}
position: {kind: rope}
train: {steps: 6, batch_size: 4, val_every: 3, val_examples: 4, log_every: 3}
eval:
  lengths: [8, 16, 24]
  batch_size: 64
  stride: 12
  variants:
    - {name: yarn, rope_scaling: yarn}
`

// TestLMRun: an lm run scores every test byte but the first at every length (both ways), the
// sliding window equal to the non-overlapping windows where the length does not exceed the
// stride, writes lm.csv and the validation's bits per byte, and gives the same bits again; its
// rope variant takes the run's rows within the training length and differs beyond it.
func TestLMRun(t *testing.T) {
	out := t.TempDir()
	cfg := lmConfig(t, out)
	run := func(name string) *Result {
		c := cfg
		c.Name = name
		res, err := Run(context.Background(), c, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b := run("a"), run("b")
	lm, err := data.LoadLM(cfg.Task.Corpus, cfg.Task.CorpusSHA256)
	if err != nil {
		t.Fatal(err)
	}
	if lm.Docs[data.SplitTest] == 0 || len(lm.Streams[data.SplitTest]) > 20000 {
		t.Fatalf("the test corpus's test split: %d documents, %d bytes", lm.Docs[data.SplitTest], len(lm.Streams[data.SplitTest]))
	}
	n := len(lm.Streams[data.SplitTest]) - 1
	for i, l := range a.Lengths {
		if l.N != n || !(l.Score(metric.BitsPerByte) > 0 && l.Score(metric.BitsPerByte) < 10) || math.Abs(l.Score("perplexity")-math.Exp2(l.Score(metric.BitsPerByte))) > 1e-9*l.Score("perplexity") {
			t.Errorf("length %d: %+v; want %d predictions, perplexity 2^bits", l.Length, l, n)
		}
		if (l.Length <= 12) != (l.Score(metric.SlidingBitsPerByte) == l.Score(metric.BitsPerByte)) {
			t.Errorf("length %d, stride 12: sliding %v, non-overlapping %v", l.Length, l.Score(metric.SlidingBitsPerByte), l.Score(metric.BitsPerByte))
		}
		if l.InRange != (l.Length <= 16) {
			t.Errorf("length %d: in range %v", l.Length, l.InRange)
		}
		if bl := b.Lengths[i]; !sameJSON(bl, l) {
			t.Errorf("length %d: a second run gave %+v, the first %+v", l.Length, bl, l)
		}
	}
	csv, err := os.ReadFile(filepath.Join(out, "a", data.TraitsOf("lm").ScoresFile))
	if err != nil || !strings.HasPrefix(string(csv), strings.Join(windowsHeader(), ",")+"\n") || strings.Count(string(csv), "\n") != 4 {
		t.Errorf("lm.csv (%v):\n%s", err, csv)
	}
	metrics, _ := os.ReadFile(filepath.Join(out, "a", "metrics.jsonl"))
	if strings.Count(string(metrics), `"val_bits_per_byte"`) != 2 || strings.Contains(string(metrics), "val_exact_match") {
		t.Errorf("metrics.jsonl:\n%s", metrics)
	}
	var v Result
	js, err := os.ReadFile(filepath.Join(out, "a", rundir.VariantDir("yarn"), "results.json"))
	if err != nil || json.Unmarshal(js, &v) != nil {
		t.Fatalf("the yarn variant's results: %v", err)
	}
	for i, l := range v.Lengths {
		if same := sameJSON(l, a.Lengths[i]); same != (l.Length <= 16) {
			t.Errorf("yarn at %d: %+v, the run's %+v", l.Length, l, a.Lengths[i])
		}
	}
}

// TestLMScoreMatchesLoss: scoreWindows's negative log-likelihood, summed in float64 from the
// logits, is the model's own cross-entropy (the training loss) on the same windows, and does not
// depend on how the windows are batched.
func TestLMScoreMatchesLoss(t *testing.T) {
	cfg := lmConfig(t, t.TempDir())
	task, err := cfg.NewTask()
	if err != nil {
		t.Fatal(err)
	}
	m, err := setup.NewModel(cfg, task)
	if err != nil {
		t.Fatal(err)
	}
	lm := task.(*data.LM)
	ws := lm.Windows(data.SplitValidation, 16, 5)[:9]
	var scores []lmScore
	for _, per := range []int{1, 4, 9} {
		sc, err := scoreWindows(context.Background(), m, lm, data.SplitValidation, ws, per, nil)
		if err != nil {
			t.Fatal(err)
		}
		scores = append(scores, sc)
	}
	for _, sc := range scores[1:] {
		if math.Abs(sc.Nats-scores[0].Nats) > 1e-9 || sc.N != scores[0].N || sc.Correct != scores[0].Correct {
			t.Errorf("batched differently: %+v, one window a batch: %+v", sc, scores[0])
		}
	}
	// The same windows (one length after the first) as one batch through the loss.
	b, err := lm.WindowBatch(data.SplitValidation, ws[1:])
	if err != nil {
		t.Fatal(err)
	}
	g, err := m.Build(b.B, b.T, model.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	loss, err := g.Run(model.Input{Tokens: b.Inputs, Targets: b.Targets, Weights: b.Weights})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scoreWindows(context.Background(), m, lm, data.SplitValidation, ws[1:], 8, nil)
	if err != nil {
		t.Fatal(err)
	}
	if w := 8 * 5; sc.N != w || math.Abs(sc.Nats/float64(sc.N)-loss) > 1e-9 {
		t.Errorf("scored %d predictions (want %d), mean %v nats; the graph's loss %v", sc.N, w, sc.Nats/float64(sc.N), loss)
	}
}

// sameJSON: two length results write the same results.json.
func sameJSON(a, b LengthResult) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}
