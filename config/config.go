// Package config is what a posformer config is, as data: the Config type and its sections, read
// from YAML strictly (every key known, every value of its field's type, errors as
// `file:line: dotted.path: what is wrong`) with a record of the keys written (package
// internal/presence), `-set` overrides, the defaults of the keys not written, and validation of
// each field that names the field and the fix. Read reads a config a person wrote, ReadWritten a
// file posformer wrote. A section is the option type of the package it configures: model: is
// model.Config (its defaults and checks are the model's); a position scheme's options are decoded
// once, into the scheme's options struct, against the catalogue of schemes (package
// internal/schemes), which package position's init fills. Nothing here builds a model: what needs
// one (the model's size, the scheme's own checks, memory) is package setup's, which builds it once
// (At reports its errors at the file:line that wrote the field). A config with a sweep: is a grid:
// Expand gives its cells (Read the cells it expanded while reading), MarshalGrid its grid.yaml,
// Shard a share of the cells for one process of many, and the select: section the tuning runs
// that choose a value per group (SelectCells; the choice, selection.json, is package grid's).
//
// Nothing here trains: package train runs a checked config (train.Run, train.Train), and package
// grid a grid's cells (grid.Train), choosing select:'s values from the scores of the finished
// tuning runs (grid.Choose).
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/internal/fielderr"
	"github.com/posformer/posformer/internal/presence"
	"github.com/posformer/posformer/internal/regfile"
	"github.com/posformer/posformer/internal/yamlpath"
	"github.com/posformer/posformer/model"
	"go.yaml.in/yaml/v3"
)

// Config describes one run. Every field has a documented default (configs/README.md), which
// WithDefaults fills only when the field was not written (Written, see package
// internal/presence): a written value, 0 included, is kept, or refused by Validate naming the
// field. Each field's doc says whether 0 (or an empty value) is legal.
type Config struct {
	// Name names the run's directory under the output directory (a grid's: the grid's
	// directory). Default: <task>_<scheme>_s<seed> ("grid" for a grid). Empty: refused.
	Name string `yaml:"name,omitempty" json:"name,omitempty"`
	// Seed drives the weights' initialisation and the training data stream. Default: 1. 0 is
	// legal.
	Seed uint64 `yaml:"seed" json:"seed"`
	// Out is the output directory; the run writes to Out/Name. Default: runs. Empty: refused.
	Out      string       `yaml:"out,omitempty" json:"out,omitempty"`
	Task     TaskConfig   `yaml:"task" json:"task"`
	Model    model.Config `yaml:"model" json:"model"`
	Position Position     `yaml:"position" json:"position"`
	Train    TrainConfig  `yaml:"train" json:"train"`
	Eval     EvalConfig   `yaml:"eval" json:"eval"`
	// TFEvents writes TensorBoard's event file (events.out.tfevents.*) into the run directory:
	// the training curves, and the evaluation's scores by length (docs/runs.md). Default: true
	// (written as absent). false: no event file. It chooses only what the run writes beside its
	// results: a run resumed with the other value is the same run (rundir.SameConfig).
	TFEvents *bool `yaml:"tfevents,omitempty" json:"tfevents,omitempty"`
	// Sweep turns the config into a grid: every combination of the listed values of dotted
	// fields is one run (see grid.go and configs/README.md). Default: none (a single run).
	Sweep Sweep `yaml:"sweep,omitempty" json:"sweep,omitempty"`
	// Select chooses a field's value (train.lr) per group of a grid's cells on in-range
	// validation before the grid's runs (see Select). Default: none.
	Select Select `yaml:"select,omitempty" json:"select,omitempty"`

	// Written records the keys written (in the file, by -set, by a sweep cell) below the root,
	// model: and position: excepted (Model and Position keep their own): "seed",
	// "train.lr", "eval.lengths", ...
	Written presence.Keys `yaml:"-" json:"-"`

	// origin is the file (and -set overrides) the config was read from, for At; nil for a
	// config built in code.
	origin *origin
}

// origin is where a config was read from.
type origin struct {
	src       []byte
	name      string
	overrides []string
}

// At is err located where the config wrote the field it is about (its fielderr.Error's Path):
// a fielderr.Error at the -set override that gave it (setCulprit), else at the file's line that
// wrote it (for a grid's cell, the sweep: line of the axis that gave it: g.yaml:7 for sweep:
// {model.heads: [2, 3]}), else at the file; err itself for a config built in code. A cell's error
// that a -set caused leads with the -set, which every cell shares. Package setup reports the
// checks that need the model with it, as the reader reports its own.
func (c Config) At(err error) error {
	if err == nil || c.origin == nil {
		return err
	}
	o, inner, sweep := c.origin, err, Sweep(nil)
	ce, cell := err.(*CellError)
	if cell {
		inner, sweep = ce.Err, c.Sweep
	}
	path := fielderr.PathOf(inner)
	if set := setCulprit(inner, path, o.overrides, sweep); set != "" && (path != "" || cell) {
		if cell {
			return fmt.Errorf("-set %s: %w (found in %s; the -set applies to every cell: change or drop it)", set, ce.Err, ce.where())
		}
		return &fielderr.Error{File: "-set " + set, Path: path, Err: err}
	}
	line := 0
	if path != "" {
		line = keyLine(o.src, strings.Split(path, ".")...)
	}
	for _, ax := range sweep {
		if path != "" && within(path, ax.Path) {
			line = keyLine(o.src, "sweep", ax.Path) // 0 when a -set sweep=... gave the axis
		}
	}
	return &fielderr.Error{File: o.name, Line: line, Path: path, Err: err}
}

// checkNotSwept refuses an override (path=value) that writes a field every cell of a grid
// replaces with its swept value: the field is swept, or lies in a swept section whose every value
// sets it. A -set of a section (position={kind: t5, max_distance: 64}) is checked key by key: a
// cell replacing one of its keys (position.kind swept) leaves the others, a mixed run no one wrote.
func checkNotSwept(override string, sweep Sweep, file string) error {
	_, fields := overrideFields(override)
	for _, field := range fields {
		for _, ax := range sweep {
			rest, under := strings.CutPrefix(field, ax.Path+".")
			if field == ax.Path || under && everyValueSets(ax.Values, strings.Split(rest, ".")) {
				return replacedSet(override, field, fmt.Sprintf("swept (sweep.%s in %s)", ax.Path, file), "", "change the sweep")
			}
		}
	}
	return nil
}

// checkNotSelected refuses an override that writes the field select: chooses per group: every
// cell replaces it with its group's chosen candidate, every tuning run with its own.
func checkNotSelected(override, field, file string) error {
	if _, fields := overrideFields(override); field == "" || !slices.Contains(fields, field) {
		return nil
	}
	return replacedSet(override, field, fmt.Sprintf("chosen by select: (select.field in %s)", file), " with a candidate", "change select:")
}

// replacedSet is the error of an override whose field every cell replaces (why: how), with
// the fix: drop the -set (or, for a section, the field from it), or change what replaces it.
func replacedSet(override, field, why, with, fix string) error {
	p, _ := overrideFields(override)
	if field == p {
		return fmt.Errorf("-set %s: %s is %s, so every cell replaces the -set's value%s and it would do nothing: drop the -set, or %s", override, p, why, with, fix)
	}
	return fmt.Errorf("-set %s: %s is %s, so every cell replaces this -set's %s (keeping its other keys): drop %s from the -set, or %s", override, field, why, field, strings.TrimPrefix(field, p+"."), fix)
}

// overrideFields are an override's path and the fields its value writes (writtenFields).
func overrideFields(override string) (string, []string) {
	p, value, _ := strings.Cut(override, "=")
	p = strings.TrimSpace(p)
	var doc yaml.Node
	if yaml.Unmarshal([]byte(value), &doc) != nil || len(doc.Content) == 0 {
		return p, []string{p}
	}
	return p, writtenFields(p, doc.Content[0])
}

// within tells whether the dotted path is the field p or lies below it (p.key, p[i]).
func within(path, p string) bool {
	return path == p || strings.HasPrefix(path, p+".") || strings.HasPrefix(path, p+"[")
}

// writtenFields are the dotted paths a value written at path sets: path itself, or for a
// mapping (a section) the fields its keys set, each key merged into the section.
func writtenFields(path string, n *yaml.Node) []string {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind != yaml.MappingNode || len(n.Content) == 0 {
		return []string{path}
	}
	var fields []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		fields = append(fields, writtenFields(path+"."+n.Content[i].Value, n.Content[i+1])...)
	}
	return fields
}

// everyValueSets tells whether every swept value (a section) writes the key path below it.
func everyValueSets(values []*yaml.Node, keys []string) bool {
	for _, n := range values {
		for _, k := range keys {
			for n.Kind == yaml.AliasNode && n.Alias != nil {
				n = n.Alias
			}
			var next *yaml.Node
			for i := 0; n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == k {
					next = n.Content[i+1]
				}
			}
			if next == nil {
				return false
			}
			n = next
		}
	}
	return len(values) > 0
}

// setCulprit is the -set override (path=value) behind an error (of a run, or of a grid's cell):
// the last one that gave the field the error leads with, or a value holding it (-set
// eval.variants=[...] for eval.variants[0].when; not a key beside it: -set model={layers: 2}
// gives no model.heads), else the last whose dotted field the error names as a word (-set
// model.d_model=7 for model.heads: 4 heads do not divide model.d_model 7; a one-word field such
// as out or seed is too common a word to be read so); "" when none did, or when the failing
// field is swept (the cell's own value).
func setCulprit(err error, path string, overrides []string, sweep Sweep) string {
	for _, ax := range sweep {
		if path != "" && within(path, ax.Path) {
			return ""
		}
	}
	named := ""
	for i := len(overrides) - 1; i >= 0; i-- { // the last override of a key is the one that holds
		_, fields := overrideFields(overrides[i])
		for _, f := range fields {
			if path != "" && within(path, f) {
				return overrides[i]
			}
			if named == "" && strings.Contains(f, ".") && namesField(err.Error(), f) {
				named = overrides[i]
			}
		}
	}
	return named
}

// namesField tells whether msg names the dotted field path as a word (model.d_model in "divide
// model.d_model 7", not in "model.d_model_x").
func namesField(msg, path string) bool {
	word := func(r byte) bool {
		return r == '_' || r == '.' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	}
	for i := 0; path != ""; {
		j := strings.Index(msg[i:], path)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(path)
		if (j == 0 || !word(msg[j-1])) && (end == len(msg) || !word(msg[end]) || msg[end] == '.' && (end+1 == len(msg) || msg[end+1] == ' ')) {
			return true
		}
		i = j + 1
	}
	return false
}

// TaskConfig is the `task:` section.
type TaskConfig struct {
	// Name is the task (docs/tasks.md): copy, reverse, sort, ... Default: copy.
	Name string `yaml:"name" json:"name"`
	// MinLen and MaxLen bound the input lengths drawn for training (uniformly, one length per
	// batch). Default: 1 and 16. 0: refused (lengths start at 1).
	MinLen int `yaml:"min_len" json:"min_len"`
	MaxLen int `yaml:"max_len" json:"max_len"`
	// Symbols is the alphabet size, 2..1000. Default: 8. 0: refused.
	Symbols int `yaml:"symbols,omitempty" json:"symbols,omitempty"`
	// Format is how an example meets the model: "next" (the decoder's stream input SEP output,
	// each output token predicted at the position before it) or "slots" (the encoder layout of
	// Delétang et al. 2023 and Ruoss et al. 2023: the input then one blank slot per output token,
	// every output token predicted at its slot in one pass). Default: next (written as empty).
	Format string `yaml:"format,omitempty" json:"format,omitempty"`
	// EndToken ends every answer with an end-of-answer token (a new id after the task's), so
	// exact match requires the model to stop where the answer does (Kazemnejad et al. 2023).
	// Next-token format only. Default: false.
	EndToken bool `yaml:"end_token,omitempty" json:"end_token,omitempty"`
	// Corpus is the lm task's corpus: the path of a .tar.gz of text documents, or empty for the
	// built-in one (data/corpus/gostd.tar.gz, embedded in the binary). lm only.
	Corpus string `yaml:"corpus,omitempty" json:"corpus,omitempty"`
	// CorpusSHA256 pins the corpus: the SHA-256 of its uncompressed tar stream, checked before any
	// training. Default (lm, no task.corpus): the built-in corpus's. lm only.
	CorpusSHA256 string `yaml:"corpus_sha256,omitempty" json:"corpus_sha256,omitempty"`
	// Depth is where the passkey task's needle stands, a fraction of its filler in [0, 1] (0:
	// first, 1: last). Default: drawn per example, uniform. passkey only.
	Depth *float64 `yaml:"depth,omitempty" json:"depth,omitempty"`
	// IgnoreProb is the flip_flop task's probability of an ignore instruction, in [0, 1).
	// Default: 0.8. flip_flop only.
	IgnoreProb *float64 `yaml:"ignore_prob,omitempty" json:"ignore_prob,omitempty"`
	// Queries is the mqar task's number of queries, at least 1; a length L then holds ⌊L/2⌋ −
	// queries key–value pairs. Default: every key queried once (⌊L/4⌋ pairs). mqar only.
	Queries *int `yaml:"queries,omitempty" json:"queries,omitempty"`
}

// WritesEvents tells whether the run writes TensorBoard's event file (tfevents).
func (c Config) WritesEvents() bool { return c.TFEvents == nil || *c.TFEvents }

// NewTask builds the configured task in its format (task.format, task.end_token).
func (c Config) NewTask() (data.Task, error) { return data.New(c.Task.Name, c.TaskOptions()) }

// TaskOptions are the task: section's options as data.New takes them.
func (c Config) TaskOptions() data.Options {
	return data.Options{Symbols: c.Task.Symbols, Format: c.Task.Format, EndToken: c.Task.EndToken,
		Corpus: c.Task.Corpus, CorpusSHA256: c.Task.CorpusSHA256, Depth: c.Task.Depth, IgnoreProb: c.Task.IgnoreProb, Queries: c.Task.Queries}
}

// ModelFor is the model: section for the config's task: model.vocab, unless written, the task's
// vocabulary.
func (c Config) ModelFor(task data.Task) model.Config {
	m := c.Model.WithDefaults()
	presence.Fill(m.Written, "vocab", &m.Vocab, task.Vocab())
	m.Digit0, _ = data.Digit0(task)
	return m
}

// TrainConfig is the `train:` section.
type TrainConfig struct {
	// Steps is the number of optimiser steps. Default: 1000. 0: refused.
	Steps int `yaml:"steps" json:"steps"`
	// BatchSize is the number of sequences per step. Default: 32. 0: refused.
	BatchSize int `yaml:"batch_size" json:"batch_size"`
	// LR is Adam's peak learning rate. Default: 0.001. 0: refused.
	LR float64 `yaml:"lr" json:"lr"`
	// WarmupSteps ramps the learning rate linearly from 0 to LR. Default: 5% of Steps. 0 is
	// legal: the first step runs at the peak rate.
	WarmupSteps int `yaml:"warmup_steps" json:"warmup_steps"`
	// MinLRRatio is where the cosine decay ends, as a fraction of LR, in [0, 1]. Default: 0.1.
	// 0 is legal (decay to 0).
	MinLRRatio float64 `yaml:"min_lr_ratio" json:"min_lr_ratio"`
	// Beta1, Beta2 and Eps are Adam's. Defaults: 0.9, 0.999, 1e-8. Beta1 and Beta2 may be 0
	// (no momentum, no second-moment averaging); Eps 0: refused.
	Beta1 float64 `yaml:"beta1" json:"beta1"`
	Beta2 float64 `yaml:"beta2" json:"beta2"`
	Eps   float64 `yaml:"eps" json:"eps"`
	// WeightDecay is decoupled (AdamW) decay on weight matrices (not biases, LayerNorm or
	// embeddings). Default: 0.
	WeightDecay float64 `yaml:"weight_decay" json:"weight_decay"`
	// GradClip caps the global gradient norm; 0 or a negative value turns clipping off.
	// Default: 1.
	GradClip float64 `yaml:"grad_clip" json:"grad_clip"`
	// LogEvery is how often (in steps) a line goes to metrics.jsonl. Default: 10. 0: refused.
	LogEvery int `yaml:"log_every" json:"log_every"`
	// ValEvery is how often (in steps) exact match is measured at the training lengths; 0 or a
	// negative value turns it off. Default: Steps/5.
	ValEvery int `yaml:"val_every" json:"val_every"`
	// ValExamples is the number of validation examples per training length. Default: 64.
	// 0: refused.
	ValExamples int `yaml:"val_examples" json:"val_examples"`
	// CheckpointEvery is how often (in steps) the run's state is saved, besides the end and an
	// interruption; 0 or a negative value saves only then. Default: 500.
	CheckpointEvery int `yaml:"checkpoint_every" json:"checkpoint_every"`
	// EarlyStop stops training when the in-range validation score plateaus or reaches a target,
	// and evaluates the best checkpoint (see EarlyStop). Default: off.
	EarlyStop EarlyStop `yaml:"early_stop,omitempty" json:"early_stop,omitempty"`
}

// EvalConfig is the `eval:` section.
type EvalConfig struct {
	// Lengths are the input lengths to test: a list ([1, 2, 4]) or a string of ranges
	// ("1..64", "1..16,32,64", "8..64:8" with a step). Default: 1..4·max_len. Empty: refused.
	Lengths Lengths `yaml:"lengths,omitempty" json:"lengths"`
	// Examples is the number of test examples per length. Default: 256. 0: refused.
	Examples int `yaml:"examples" json:"examples"`
	// BatchSize is the number of sequences per evaluation batch (lm: the batch holds
	// BatchSize·task.max_len tokens, data.WindowsPerBatch). Default: 128. 0: refused.
	BatchSize int `yaml:"batch_size" json:"batch_size"`
	// Seed fixes the test sets (each length's from its own seed). Default: 1000 + seed. 0 is
	// legal.
	Seed uint64 `yaml:"seed" json:"seed"`
	// Stride is the lm task's sliding-window evaluation: at each length L, windows of L tokens
	// that score only their last Stride predictions (every length also gets non-overlapping
	// windows; at L ≤ Stride the two are the same). Default (lm): task.max_len. 0: refused. lm
	// only.
	Stride int `yaml:"stride,omitempty" json:"stride,omitempty"`
	// Variants evaluate the trained weights again with other evaluation-only options, each
	// into its own results (see EvalVariant). Default: none.
	Variants []EvalVariant `yaml:"variants,omitempty" json:"variants,omitempty"`
}

// WithDefaults fills every field that was not written (and holds its zero value) with its
// default; written fields are kept as they are, for Validate to judge.
func (c Config) WithDefaults() Config {
	w := c.Written
	fill := func(path string, field *int, def int) { presence.Fill(w, path, field, def) }
	fillF := func(path string, field *float64, def float64) { presence.Fill(w, path, field, def) }
	presence.Fill(w, "seed", &c.Seed, 1)
	presence.Fill(w, "out", &c.Out, DefaultOut)
	t := &c.Task
	presence.Fill(w, "task.name", &t.Name, "copy")
	fill("task.min_len", &t.MinLen, 1)
	fill("task.max_len", &t.MaxLen, 16)
	fill("task.symbols", &t.Symbols, data.DefaultSymbols)
	c.Model = c.Model.WithDefaults()
	presence.Fill(c.Model.Written, "init_seed", &c.Model.Seed, c.Seed)
	c.Position = c.Position.WithDefaults()
	tr := &c.Train
	fill("train.steps", &tr.Steps, 1000)
	fill("train.batch_size", &tr.BatchSize, 32)
	fillF("train.lr", &tr.LR, 1e-3)
	fill("train.warmup_steps", &tr.WarmupSteps, tr.Steps/20)
	fillF("train.min_lr_ratio", &tr.MinLRRatio, 0.1)
	fillF("train.beta1", &tr.Beta1, 0.9)
	fillF("train.beta2", &tr.Beta2, 0.999)
	fillF("train.eps", &tr.Eps, 1e-8)
	fillF("train.grad_clip", &tr.GradClip, 1)
	fill("train.log_every", &tr.LogEvery, 10)
	fill("train.val_every", &tr.ValEvery, max(tr.Steps/5, 1))
	fill("train.val_examples", &tr.ValExamples, 64)
	fill("train.checkpoint_every", &tr.CheckpointEvery, 500)
	tr.EarlyStop = tr.EarlyStop.withDefaults(w)
	e, traits := &c.Eval, data.TraitsOf(t.Name)
	if len(e.Lengths) == 0 && !w.Has("eval.lengths") && t.MaxLen > 0 && t.MaxLen <= MaxLength {
		e.Lengths = traits.EvalLengths(t.MaxLen, MaxLength)
	}
	if traits.Corpus && t.Corpus == "" {
		presence.Fill(w, "task.corpus_sha256", &t.CorpusSHA256, data.BuiltinCorpusSHA256)
	}
	if traits.Windows {
		fill("eval.stride", &e.Stride, t.MaxLen)
	}
	fill("eval.examples", &e.Examples, 256)
	fill("eval.batch_size", &e.BatchSize, 128)
	presence.Fill(w, "eval.seed", &e.Seed, 1000+c.Seed)
	presence.Fill(w, "name", &c.Name, fmt.Sprintf("%s_%s_s%d", t.Name, c.Position.Kind, c.Seed))
	return c
}

// Validate checks a config with its defaults filled in as data, naming the field and the fix:
// every field on its own and against the others and the task (built: its vocabulary, an lm
// corpus's length), the model: section (model.Config.Validate), the position scheme's options
// against its kind. It returns the task, built once for the checks (package setup hands it on).
// What needs the model built (the parameter count, the scheme's own option checks, the positions
// it holds, memory) is checked by package setup.
func (c Config) Validate() (data.Task, error) {
	if c.Name == "" {
		return nil, fielderr.New("name", "empty; remove the key for the default name <task>_<scheme>_s<seed>")
	}
	if c.Out == "" {
		return nil, fielderr.New("out", "empty; remove the key for the default output directory runs")
	}
	if strings.ContainsAny(c.Name, `/\`) || c.Name == "." || c.Name == ".." || strings.IndexFunc(c.Name, unicode.IsControl) >= 0 {
		return nil, fielderr.New("name", "%q must be a plain directory name (no slashes or control characters); choose another name", c.Name)
	}
	if c.Task.Symbols < data.MinSymbols {
		return nil, fielderr.New("task.symbols", "must be at least %d, got %d; remove the key for the default %d", data.MinSymbols, c.Task.Symbols, data.DefaultSymbols)
	}
	if t := c.Task; data.TraitsOf(t.Name).Corpus && t.Corpus == "" && t.CorpusSHA256 == "" {
		return nil, fielderr.New("task.corpus_sha256", "empty; remove the key for the built-in corpus's hash, or give task.corpus and its hash")
	} else if data.TraitsOf(t.Name).Corpus && t.Corpus == "" && t.CorpusSHA256 != data.BuiltinCorpusSHA256 {
		return nil, fielderr.New("task.corpus_sha256", "pins %s, but task.corpus is not given, so the built-in corpus %s (SHA-256 %s) is read; set task.corpus to the corpus that hash pins, or remove task.corpus_sha256", t.CorpusSHA256, data.BuiltinCorpusPath, data.BuiltinCorpusSHA256)
	}
	task, err := c.NewTask()
	if err != nil {
		if err := c.endTokenRefused(err); err != nil {
			return nil, err
		}
		if fielderr.PathOf(err) != "" {
			return nil, err // it names its field already (task.symbols, task.format, task.end_token)
		}
		return nil, fielderr.Wrap("task.name", err)
	}
	if err := c.validateTraits(); err != nil {
		return nil, err
	}
	if c.Model.Bidirectional && (c.Task.Format == "" || c.Task.Format == data.FormatNext) {
		return nil, fielderr.New("model.bidirectional", "the next-token format (task.format: next) with bidirectional attention lets every position see the token it must predict; use task.format: slots for an encoder, or remove model.bidirectional")
	}
	t := c.Task
	switch {
	case t.MinLen < 1:
		return nil, fielderr.New("task.min_len", "must be at least 1, got %d", t.MinLen)
	case t.MaxLen < t.MinLen:
		return nil, fielderr.New("task.max_len", "must be at least task.min_len (%d), got %d", t.MinLen, t.MaxLen)
	case t.MaxLen > MaxLength:
		return nil, fielderr.New("task.max_len", "%d is beyond the longest length posformer handles, %d; train on shorter inputs", t.MaxLen, MaxLength)
	}
	if w, ok := task.(data.Windowed); ok && t.MaxLen > w.LongestWindow() {
		return nil, fielderr.New("task.max_len", "%d is longer than task.corpus %s allows: its training split holds %d bytes, and a window of task.max_len reads one more; set task.max_len (and task.min_len) to at most %d, or give a larger corpus",
			t.MaxLen, w.Source(), w.LongestWindow()+1, w.LongestWindow())
	}
	for L := t.MinLen; L <= t.MaxLen; L++ {
		if err := data.CheckLength(task, L); err != nil {
			return nil, fielderr.New("task.min_len", "the training lengths %d..%d (task.min_len..task.max_len) hold %d: %v", t.MinLen, t.MaxLen, L, err)
		}
	}
	tr := c.Train
	switch {
	case tr.Steps < 1:
		return nil, fielderr.New("train.steps", "must be positive, got %d", tr.Steps)
	case tr.BatchSize < 1:
		return nil, fielderr.New("train.batch_size", "must be positive, got %d", tr.BatchSize)
	case !(tr.LR > 0) || math.IsInf(tr.LR, 0):
		return nil, fielderr.New("train.lr", "must be a positive number, got %g", tr.LR)
	case tr.WarmupSteps < 0 || tr.WarmupSteps > tr.Steps:
		return nil, fielderr.New("train.warmup_steps", "must be between 0 and train.steps (%d), got %d", tr.Steps, tr.WarmupSteps)
	case !(tr.MinLRRatio >= 0 && tr.MinLRRatio <= 1):
		return nil, fielderr.New("train.min_lr_ratio", "must be in [0, 1], got %g", tr.MinLRRatio)
	case !(tr.Beta1 >= 0 && tr.Beta1 < 1):
		return nil, fielderr.New("train.beta1", "must be in [0, 1), got %g", tr.Beta1)
	case !(tr.Beta2 >= 0 && tr.Beta2 < 1):
		return nil, fielderr.New("train.beta2", "must be in [0, 1), got %g", tr.Beta2)
	case !(tr.Eps > 0):
		return nil, fielderr.New("train.eps", "must be positive, got %g", tr.Eps)
	case !(tr.WeightDecay >= 0):
		return nil, fielderr.New("train.weight_decay", "must be zero or positive, got %g", tr.WeightDecay)
	case math.IsNaN(tr.GradClip):
		return nil, fielderr.New("train.grad_clip", "must be a number")
	case tr.LogEvery < 1:
		return nil, fielderr.New("train.log_every", "must be positive, got %d", tr.LogEvery)
	case tr.ValExamples < 1:
		return nil, fielderr.New("train.val_examples", "must be positive, got %d", tr.ValExamples)
	case tr.ValExamples > MaxExamples:
		return nil, fielderr.New("train.val_examples", "%d is more than %d (%s); use at most %d", tr.ValExamples, MaxExamples, maxExamplesWhy, MaxExamples)
	}
	if err := tr.EarlyStop.validate(tr, c.Written); err != nil {
		return nil, err
	}
	e := c.Eval
	if len(e.Lengths) == 0 {
		return nil, fielderr.New("eval.lengths", "give at least one length, e.g. \"1..64\"")
	}
	for i, L := range e.Lengths {
		if L < 1 {
			return nil, fielderr.New("eval.lengths", "every length must be at least 1, got %d", L)
		}
		if L > MaxLength {
			return nil, fielderr.New("eval.lengths", "%d is beyond the longest length posformer handles, %d", L, MaxLength)
		}
		if err := data.CheckLength(task, L); err != nil {
			return nil, fielderr.New("eval.lengths", "%d: %v", L, err)
		}
		if i > 0 && L <= e.Lengths[i-1] {
			return nil, fielderr.New("eval.lengths", "lengths must be strictly increasing, got %d after %d", L, e.Lengths[i-1])
		}
	}
	switch {
	case e.Examples < 1:
		return nil, fielderr.New("eval.examples", "must be positive, got %d", e.Examples)
	case e.Examples > MaxExamples:
		return nil, fielderr.New("eval.examples", "%d is more than %d (%s); use at most %d", e.Examples, MaxExamples, maxExamplesWhy, MaxExamples)
	case e.BatchSize < 1:
		return nil, fielderr.New("eval.batch_size", "must be positive, got %d", e.BatchSize)
	}
	if err := c.validateVariants(); err != nil {
		return nil, err
	}
	mc := c.Model
	if (mc.Vocab != 0 || mc.Written.Has("vocab")) && mc.Vocab < task.Vocab() {
		return nil, fielderr.New("model.vocab", "the %s task with %d symbols needs a vocabulary of %d, got %d; remove model.vocab to use the task's", t.Name, t.Symbols, task.Vocab(), mc.Vocab)
	}
	if err := c.ModelFor(task).Validate(); err != nil {
		return nil, err
	}
	if err := c.Position.Validate(); err != nil {
		return nil, err
	}
	return task, nil
}

// validateTraits checks the fields that only some kinds of task read (data.Traits), and what a
// kind cannot do: a corpus, and the sliding window's stride, are read by the tasks that declare
// them; without exact match, early stopping, select: and randomized positions (whose evaluation
// draws positions per example) are refused.
// endTokenRefused names task.end_token when it alone made the task refuse its format (err,
// about task.format): a task scored in place (flip_flop, lm) takes no end token, and the user
// who wrote only task.end_token must not be told of a task.format nobody wrote. Nil otherwise.
func (c Config) endTokenRefused(err error) error {
	if fielderr.PathOf(err) != "task.format" || !c.Task.EndToken || c.Written.Has("task.format") {
		return nil
	}
	probe := c
	probe.Task.EndToken = false
	if _, perr := probe.NewTask(); perr != nil {
		return nil
	}
	return fielderr.New("task.end_token", "the %s task takes no end token: its answers are scored where they stand in the sequence (the next-token format); remove task.end_token", c.Task.Name)
}

func (c Config) validateTraits() error {
	traits, name := data.TraitsOf(c.Task.Name), c.Task.Name
	switch {
	case !traits.Corpus && (c.Task.Corpus != "" || c.Written.Has("task.corpus")):
		return fielderr.New("task.corpus", "only the lm task reads a corpus, and task.name is %s; remove task.corpus", name)
	case !traits.Corpus && (c.Task.CorpusSHA256 != "" || c.Written.Has("task.corpus_sha256")):
		return fielderr.New("task.corpus_sha256", "only the lm task reads a corpus, and task.name is %s; remove task.corpus_sha256", name)
	case !traits.Windows && (c.Eval.Stride != 0 || c.Written.Has("eval.stride")):
		return fielderr.New("eval.stride", "only the lm task has a sliding-window evaluation, and task.name is %s; remove eval.stride", name)
	case traits.Windows && c.Eval.Stride < 1:
		return fielderr.New("eval.stride", "the sliding window scores the last eval.stride predictions of each window, so it must be at least 1, got %d; remove the key for task.max_len (%d)", c.Eval.Stride, c.Task.MaxLen)
	case traits.ExactMatch:
		return nil
	case c.Train.EarlyStop.On():
		return fielderr.New("train.early_stop", "the lm task is scored by bits per byte, not by exact match or token accuracy; remove train.early_stop")
	case c.Position.Randomized:
		return fielderr.New("position.randomized", "the lm task evaluates at plain positions only; remove position.randomized")
	case c.Select.On():
		return fielderr.New("select", "the lm task has no exact-match validation to choose by; remove select:")
	}
	return nil
}

// Read reads a config a person wrote, src (nil: the file at name, at most MaxConfigBytes; name
// labels the errors): strictly (see Decode), the overrides (`dotted.path=value` pairs) applied,
// then its cells (Expand's), each with its defaults filled and validated. A single run comes
// back with its defaults filled and one cell; a grid (a config with a sweep) as written, its base
// without defaults, and its cells. The CLI reads -config with it and hands the cells on.
func Read(src []byte, name string, overrides []string) (Config, []Cell, error) {
	if src == nil {
		var err error
		if src, err = readBounded(name); err != nil {
			return Config{}, nil, fmt.Errorf("cannot read the config: %w; check the -config path and its permissions", err)
		}
	}
	return parse(src, name, overrides, byPerson)
}

// ReadWritten reads a file posformer wrote (a run's config.yaml, a grid's grid.yaml) as Read
// reads a file, with two allowances for files an earlier posformer wrote: a grid.yaml without
// gridHeader held the unset fields of a grid as zeros, so in it a zero means the default; and a
// run's config.yaml held every scheme's options (base, max_positions, init_std,
// rotary_fraction whatever the kind), so there the options of other schemes are dropped.
func ReadWritten(path string) (Config, []Cell, error) {
	src, err := readBounded(path)
	if err != nil {
		return Config{}, nil, fmt.Errorf("cannot read the config: %w", err)
	}
	mode := modeOf(src)
	c, cells, err := parse(src, path, nil, mode)
	if mode == written && !bytes.HasPrefix(src, []byte(gridHeader)) { // a run's config.yaml, written whole
		if err == nil && !c.Written.Has("eval.seed") { // its last key but the variants
			err = errors.New("it ends before eval.seed, which posformer writes in every run's")
		}
		if err != nil {
			dir := filepath.Dir(path)
			return Config{}, nil, fmt.Errorf("%s %w (%v); restore it, or train the run again (with -force; for a run of a grid, delete %s and run the grid's command with -resume)", path, ErrDamaged, err, dir)
		}
	}
	return c, cells, err
}

// ErrDamaged marks a file posformer wrote whole that does not read back as it was written: it
// was cut or changed afterwards.
var ErrDamaged = errors.New("is damaged")

// MaxConfigBytes bounds a config file: a config is a small YAML file, and reading a device
// (-config /dev/zero) or a huge file by mistake must stop at once.
const MaxConfigBytes = 1 << 20

// readBounded reads at most MaxConfigBytes of a file, and refuses a longer one.
func readBounded(path string) ([]byte, error) {
	f, err := regfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	src, err := io.ReadAll(io.LimitReader(f, MaxConfigBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(src) > MaxConfigBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes (1 MiB), too large for a config (is it the right file?)", path, MaxConfigBytes)
	}
	return src, nil
}

func parse(src []byte, name string, overrides []string, mode int) (Config, []Cell, error) {
	var c Config
	if err := decode(src, name, &c, mode == legacyGrid); err != nil {
		return Config{}, nil, err
	}
	c.origin = &origin{src: src, name: name, overrides: overrides}
	if mode != byPerson && len(c.Sweep) == 0 {
		c.Position = othersDropped(c.Position)
	}
	sweptIn, selectIn := name, name // where the sweep and select: were written: the file, or a -set
	for _, o := range overrides {
		if err := Set(&c, o); err != nil {
			return Config{}, nil, err
		}
		switch p, _, _ := strings.Cut(o, "="); {
		case within(strings.TrimSpace(p), "sweep"):
			sweptIn = "-set " + o
		case within(strings.TrimSpace(p), "select"):
			selectIn = "-set " + o
		}
	}
	for _, o := range overrides { // against the final sweep: a later -set of sweep replaces an earlier -set too
		if err := checkNotSwept(o, c.Sweep, sweptIn); err != nil {
			return Config{}, nil, err
		}
		if err := checkNotSelected(o, c.Select.Field, selectIn); err != nil {
			return Config{}, nil, err
		}
	}
	if c.Select.On() || c.Written.HasUnder("select") {
		if _, err := SelectCells(c); err != nil {
			return Config{}, nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	cells, err := Expand(c)
	if err != nil {
		return Config{}, nil, c.At(err)
	}
	if len(c.Sweep) == 0 {
		c = cells[0].Config // with its defaults
	}
	return c, cells, nil
}

// keyLine is the line of the key reached by keys from the file's top (model, d_model; eval,
// variants[1], rope_factor: a key with [i] is the i-th item of its sequence), or 0 when the file
// does not write it. A key missing from a sequence's item (eval.variants[1].rope_factor, which
// the variant lacks) is at the item's line.
func keyLine(src []byte, keys ...string) int {
	n, err := ParseYAML(src, "")
	steps, ok := yamlpath.Steps(keys...)
	if err != nil || n == nil || !ok {
		return 0
	}
	t := yamlpath.Walk(n, steps)
	if len(t.Hops) == 0 {
		return 0
	}
	last := t.Hops[len(t.Hops)-1]
	switch {
	case t.Found && last.Item:
		return last.Node.Line
	case t.Found:
		return last.Key.Line
	case t.NoKey && last.Item && last.Node.Kind == yaml.MappingNode:
		return last.Node.Line // the item's line
	}
	return 0
}
