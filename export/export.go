// Package export writes a trained model as a safetensors file (docs/export.md): every parameter
// under its posformer name, with the run's resolved config and architecture in the header's
// metadata, which python/posformer_torch.py reads. It checks a run directory and the output
// before anything is loaded (Check) and writes the file atomically (Write); the model comes from
// train.LoadModel (cmd/train's export command) or from a run itself (train.Run exports a
// re-evaluated run again), so this package imports nothing of train.
package export

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/nlpodyssey/safetensors"
	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/model"
	"github.com/posformer/posformer/position"
	"github.com/posformer/posformer/rundir"
	"gorgonia.org/tensor"
)

// Version is the layout version in an export's metadata (posformer.export_version); it
// changes when a tensor's name or layout (docs/export.md) does, or what a reader must do with it.
const Version = "1"

// VersionUnscaled is the version of an export whose attention logits are unscaled
// (model.unscaled_logits): a reader of version 1 knows no such key and would compute scaled
// logits, silently wrong, so it must refuse the file instead. Every other export stays version 1,
// which such a reader still computes right.
const VersionUnscaled = "2"

// exportVersion is the version an export of a model of that section carries.
func exportVersion(unscaled bool) string {
	if unscaled {
		return VersionUnscaled
	}
	return Version
}

// Metadata keys of an export (the safetensors header's __metadata__, string to string).
const (
	MetaFormat  = "format"                   // "pt", as Hugging Face's own exports
	MetaVersion = "posformer.export_version" // Version
	MetaModel   = "posformer.model"          // JSON: Model, what the forward pass needs
	MetaConfig  = "posformer.config"         // JSON: the run's whole resolved config
)

// Model is the architecture of an exported model, resolved (every value is the one that
// ran, defaults included): the metadata key posformer.model. The position scheme's options are
// its resolved config section.
type Model struct {
	Vocab         int    `json:"vocab"`
	DModel        int    `json:"d_model"`
	Heads         int    `json:"heads"`
	Layers        int    `json:"layers"`
	DFF           int    `json:"d_ff"`
	Dtype         string `json:"dtype"`
	Bidirectional bool   `json:"bidirectional"`
	// UnscaledLogits: the attention logits are q·kᵀ without 1/√d_head (model.unscaled_logits);
	// absent when false.
	UnscaledLogits bool `json:"unscaled_logits,omitempty"`
	// TrainLen is the longest training sequence in tokens: rope's position.rope_scaling acts on
	// sequences longer than it.
	TrainLen int             `json:"train_len"`
	Position json.RawMessage `json:"position"`
	// Digit0 is the token of digit 0 (digit d is Digit0 + d) of a model whose scheme reads its
	// positions from the tokens (abacus, coupled: position.TokenPositioner), which a reader
	// needs to find the numbers; absent for every other scheme.
	Digit0 int `json:"digit0,omitempty"`
}

// Safetensors encodes the model's weights as a safetensors file: every parameter under its
// posformer name (model.Params; layouts in docs/export.md) in the model's dtype, little-endian,
// with cfg (the run's resolved config) and the architecture in the header's __metadata__.
func Safetensors(m *model.Model, cfg config.Config) ([]byte, error) {
	cfg.Model = m.Cfg // the resolved model section: the vocabulary filled in from the task
	pos, err := json.Marshal(cfg.Position)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	arch, err := json.Marshal(Model{
		Vocab: m.Cfg.Vocab, DModel: m.Cfg.DModel, Heads: m.Cfg.Heads, Layers: m.Cfg.Layers, DFF: m.Cfg.DFF,
		Dtype: m.Cfg.Dtype, Bidirectional: m.Cfg.Bidirectional, UnscaledLogits: m.Cfg.UnscaledLogits, TrainLen: m.TrainLen, Position: pos,
		Digit0: digit0(m),
	})
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	whole, err := json.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	views := map[string]safetensors.TensorView{}
	for _, p := range m.Params() {
		v, err := newView(p.Value)
		if err != nil {
			return nil, fmt.Errorf("export: %s: %w", p.Name, err)
		}
		views[p.Name] = v
	}
	meta := map[string]string{MetaFormat: "pt", MetaVersion: exportVersion(m.Cfg.UnscaledLogits), MetaModel: string(arch), MetaConfig: string(whole)}
	b, err := safetensors.Serialize(views, meta)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	return b, nil
}

// digit0 is the model's token of digit 0 if its scheme reads positions from the tokens, 0
// (absent from the metadata) otherwise: the exports of every other scheme keep their bytes.
func digit0(m *model.Model) int {
	if _, ok := m.Scheme.(position.TokenPositioner); ok {
		return m.Cfg.Digit0
	}
	return 0
}

// newView is one tensor as the safetensors writer takes it: dtype, shape and little-endian bytes.
func newView(t *tensor.Dense) (safetensors.TensorView, error) {
	var shape []uint64
	for _, s := range t.Shape() {
		shape = append(shape, uint64(s))
	}
	var data []byte
	switch d := t.Data().(type) {
	case []float32:
		for _, x := range d {
			data = binary.LittleEndian.AppendUint32(data, math.Float32bits(x))
		}
		return safetensors.NewTensorView(safetensors.F32, shape, data)
	case []float64:
		for _, x := range d {
			data = binary.LittleEndian.AppendUint64(data, math.Float64bits(x))
		}
		return safetensors.NewTensorView(safetensors.F64, shape, data)
	}
	return safetensors.TensorView{}, fmt.Errorf("unsupported tensor data %T", t.Data())
}

// Check is the first half of exporting the finished run in dir to out (out defaulting to
// dir/model.safetensors): it returns the path to write, or one line saying why not, before the
// model is loaded: dir must be a finished run with the checkpoint its results came from, and an
// existing out is replaced only with force, and only if it is a .safetensors file, never in
// another run's directory. Write is the second half.
func Check(dir, out string, force bool) (string, error) {
	if out == "" {
		out = filepath.Join(dir, rundir.ExportName)
	}
	if err := exportable(dir); err != nil {
		return "", err
	}
	if err := checkTarget(out, force); err != nil {
		return "", err
	}
	if od := filepath.Dir(out); fileExists(filepath.Join(od, "config.yaml")) && !sameDir(od, dir) {
		return "", fmt.Errorf("export: %s is in another run's directory (%s): the file would pass for that run's model; choose -o outside it", out, od)
	}
	return out, nil
}

// Write writes the export of m, trained with the resolved config cfg, to out atomically.
func Write(out string, m *model.Model, cfg config.Config) error {
	b, err := Safetensors(m, cfg)
	if err != nil {
		return err
	}
	if err := rundir.WriteFileAtomic(out, b); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) && pe.Op == "open" { // creating the temporary file: without its random name
			err = pe.Err
		}
		return fmt.Errorf("export: cannot write %s: %w; choose a writable -o", out, err)
	}
	return nil
}

// exportable checks that dir is a finished run: a config, the checkpoint its results came from
// (rundir.ResultsCheckpoint) and results.
func exportable(dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("export: no run directory %s: %w; give the directory of a run, e.g. runs/default/<run>", dir, pathErr(err))
	}
	if !st.IsDir() {
		return fmt.Errorf("export: %s is not a directory; give the directory of a run, e.g. runs/default/<run>", dir)
	}
	has := func(name string) bool { return fileExists(filepath.Join(dir, name)) }
	switch {
	case !has("config.yaml") && has("grid.yaml"):
		return fmt.Errorf("export: %s is a grid; give one of its runs, e.g. %s", dir, filepath.Join(dir, "<run>"))
	case !has("config.yaml"):
		if run, name, ok := variantOf(dir); ok {
			return fmt.Errorf("export: %s is the evaluation variant %q of the run %s, which shares the run's weights (it evaluates them again with the options of eval.variants in the run's config.yaml): export %s; its file holds the run's position options, which the variant's replace at evaluation", dir, name, run, run)
		}
		return fmt.Errorf("export: %s is not a run directory (no config.yaml); give the directory of a run, e.g. runs/default/<run>", dir)
	}
	cfg, _, err := config.ReadWritten(filepath.Join(dir, "config.yaml"))
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	ckpt := filepath.Base(rundir.ResultsCheckpoint(dir, cfg.Train.EarlyStop.On()))
	switch {
	case !has(ckpt) && has("results.json"):
		// A finished run: -resume would keep it as it is, so only training it again helps.
		return fmt.Errorf("export: %s has no %s, the weights its results come from: %s", dir, ckpt, rundir.RetrainFix(dir))
	case !has(ckpt):
		return fmt.Errorf("export: %s has no %s: the run has not saved the weights its results come from; train it (with -resume to continue it), then export", dir, ckpt)
	case !has("results.json"):
		return fmt.Errorf("export: %s has not finished (no results.json), so %s is not yet the checkpoint its results come from; finish it with -resume, then export", dir, ckpt)
	}
	return nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// sameDir tells whether two paths name one directory.
func sameDir(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// checkTarget refuses an existing output without force, and any existing file that is
// not a safetensors export (a run's checkpoint.bin, say) even with it.
func checkTarget(out string, force bool) error {
	st, err := os.Stat(out)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("export: cannot write %s: %w; choose a writable -o", out, pathErr(err))
	case st.IsDir():
		return fmt.Errorf("export: %s is a directory; -o names the file to write, e.g. %s", out, filepath.Join(out, rundir.ExportName))
	case !force:
		return fmt.Errorf("export: %s exists; pass -force to overwrite it, or choose another -o", out)
	case !strings.HasSuffix(out, ".safetensors"):
		return fmt.Errorf("export: %s exists and is not a .safetensors file; -force overwrites only an earlier export: choose another -o", out)
	}
	return nil
}

// pathErr is the cause of a file-system error, without the path (the message names it).
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// variantOf tells whether dir is an evaluation variant's directory, RUN/eval-NAME of a run
// RUN, and returns RUN and NAME.
func variantOf(dir string) (run, name string, ok bool) {
	clean := filepath.Clean(dir)
	name, ok = strings.CutPrefix(filepath.Base(clean), rundir.VariantDir(""))
	run = filepath.Dir(clean)
	return run, name, ok && name != "" && fileExists(filepath.Join(run, "config.yaml"))
}
