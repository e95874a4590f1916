package config

import (
	"io/fs"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/posformer/posformer/configs"
	"github.com/posformer/posformer/internal/testutil"
	"go.yaml.in/yaml/v3"
)

func TestParseMinimal(t *testing.T) {
	c, _, err := Read([]byte(testutil.Minimal), "min.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Model.DModel != 16 || c.Position.Kind != "rope" || len(c.Eval.Lengths) != 8 || c.Train.LR != 1e-3 || c.Name != "copy_rope_s1" {
		t.Fatalf("unexpected config %+v", c)
	}
}

// TestConfigErrors: each bad config fails with a one-line error naming the field (and, for
// decoding errors, the line). What needs the model is package setup's (TestModelChecks).
func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name, edit, want string
	}{
		{"unknown key", "model:\n  d_modle: 16", `min.yaml:2: model.d_modle: unknown key "d_modle" in section model (known: bidirectional, d_ff, d_model, dtype, heads, init_seed, layers, unscaled_logits, vocab)`},
		{"unknown section", "trian:\n  steps: 3", `unknown key "trian" in the config`},
		{"wrong type", "train:\n  steps: many", `min.yaml:2: train.steps: want a whole number, got "many"`},
		{"float for int", "model:\n  heads: 2.5", "model.heads: want a whole number"},
		{"negative length", "task:\n  min_len: -1", "task.min_len: must be at least 1"},
		{"unordered lengths", "task:\n  min_len: 5\n  max_len: 4", "task.max_len: must be at least task.min_len"},
		{"eval lengths down", "eval:\n  lengths: [4, 2]", "eval.lengths: lengths must be strictly increasing"},
		{"eval lengths syntax", `eval:
  lengths: "1...8"`, `eval.lengths: cannot read "1...8"`},
		{"unknown task", "task:\n  name: juggle", `task.name: unknown task "juggle" (known: `},
		{"unknown scheme", "position:\n  kind: wavelet", `position.kind: unknown scheme "wavelet"`},
		{"zero steps", "train:\n  steps: -3", "train.steps: must be positive"},
		{"duplicate key", "seed: 1\nseed: 2", "seed: key given twice"},
		{"section is a value", "model: 5", "model: want a section"},
		{"empty value", "train:\n  lr:", "train.lr: no value given"},
		{"bad dtype", "model:\n  dtype: float16", "model.dtype"},
		{"syntax", "model: [", "YAML syntax error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c Config
			if err := Decode([]byte(testutil.Minimal), "min.yaml", &c); err != nil {
				t.Fatal(err)
			}
			err := Decode([]byte(tc.edit), "min.yaml", &c)
			if err == nil {
				c = c.WithDefaults()
				_, err = c.Validate()
			}
			if err == nil {
				t.Fatalf("want an error containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q: want one line containing %q", err, tc.want)
			}
		})
	}
}

func TestEmptyConfig(t *testing.T) {
	if _, _, err := Read([]byte("# nothing\n"), "empty.yaml", nil); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Fatalf("got %v, want an error saying the config is empty", err)
	}
}

func TestSetOverrides(t *testing.T) {
	c, _, err := Read([]byte(testutil.Minimal), "min.yaml", []string{"model.d_model=32", "position.kind=learned", "eval.lengths=[1, 3, 5]", "seed=7", "train.lr=3e-4"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Model.DModel != 32 || c.Position.Kind != "learned" || !reflect.DeepEqual(c.Eval.Lengths, Lengths{1, 3, 5}) || c.Seed != 7 || c.Train.LR != 3e-4 {
		t.Fatalf("overrides not applied: %+v", c)
	}
	for _, bad := range []struct{ set, want string }{
		{"model.d_model=abc", "model.d_model: want a whole number"},
		{"model.dmodel=3", `unknown key "dmodel" in section model`},
		{"model=3", "model: want a section"},
		{"seed.x=1", "has no field"},
		{"nonsense", "want key=value"},
	} {
		if _, _, err := Read([]byte(testutil.Minimal), "min.yaml", []string{bad.set}); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("-set %s: got %v, want an error containing %q", bad.set, err, bad.want)
		}
	}
}

func TestLengths(t *testing.T) {
	for in, want := range map[string]Lengths{
		"1..4":       {1, 2, 3, 4},
		"1..3,8,16":  {1, 2, 3, 8, 16},
		"8..32:8":    {8, 16, 24, 32},
		" 2 , 4..5 ": {2, 4, 5},
	} {
		got, err := parseLengths(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("parseLengths(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "1..", "a..3", "5..1", "4:2", "1..8:0", "1,,2"} {
		if _, err := parseLengths(bad); err == nil {
			t.Errorf("parseLengths(%q): want an error", bad)
		}
	}
	l := Lengths{1, 2, 3, 5, 7, 8}
	if s := l.String(); s != "1..3,5,7..8" {
		t.Errorf("String = %q", s)
	}
	back, _ := parseLengths(l.String())
	if !reflect.DeepEqual(back, l) {
		t.Errorf("round trip %v -> %q -> %v", l, l.String(), back)
	}
}

// TestShippedConfigs: every config in configs/ parses, validates, and tests up to at least 2×
// its longest training length (Kazemnejad et al. 2023 test 21..40 after training on 1..20).
func TestShippedConfigs(t *testing.T) {
	names, err := fs.Glob(configs.FS, "*.yaml")
	if err != nil || len(names) == 0 {
		t.Fatalf("no configs: %v", err)
	}
	for _, name := range names {
		src, _ := configs.FS.ReadFile(name)
		c, cells, err := Read(src, name, nil)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		// The cells parsing expanded are the config's (the CLI hands them on, not expanding again).
		again, err := Expand(c)
		if err != nil || len(again) != len(cells) {
			t.Errorf("%s: Expand gives %d cells (%v), Read %d", name, len(again), err, len(cells))
			continue
		}
		for i := range cells {
			a, _ := yaml.Marshal(cells[i].Config)
			b, _ := yaml.Marshal(again[i].Config)
			if cells[i].Name != again[i].Name || string(a) != string(b) {
				t.Errorf("%s: cell %d is %s from Read, %s from Expand", name, i, cells[i].Name, again[i].Name)
			}
		}
		for _, cell := range cells {
			c := cell.Config
			if last := c.Eval.Lengths[len(c.Eval.Lengths)-1]; last < 2*c.Task.MaxLen {
				t.Errorf("%s (%s): tests up to length %d, less than 2× the training maximum %d", name, cell.Name, last, c.Task.MaxLen)
			}
		}
		if c.Select.On() {
			tuning, err := SelectCells(c)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			for _, cell := range tuning {
				if _, err := cell.Config.Validate(); err != nil {
					t.Errorf("%s: tuning run %s: %v", name, cell.Name, err)
				}
			}
		}
	}
}

// TestReducedReproductionsRunCount: the run counts the reduced reproductions' comments state
// (tuning runs included), on which their cost estimates in docs/reproductions.md rest, are the
// configs' own, and every run trains to convergence (early stopping on) with a chosen rate.
func TestReducedReproductionsRunCount(t *testing.T) {
	for _, name := range []string{"kazemnejad2023.yaml", "ruoss2023.yaml"} {
		src, _ := configs.FS.ReadFile(name)
		c, _, err := Read(src, name, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		cells, err := Expand(c)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		tuning, err := SelectCells(c)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		m := regexp.MustCompile(`\) = (\d+) runs`).FindSubmatch(src)
		if m == nil {
			t.Fatalf("%s: no \"= N runs\" in its comments", name)
		}
		if n, _ := strconv.Atoi(string(m[1])); n != len(cells)+len(tuning) {
			t.Errorf("%s: its comment says %d runs, the grid has %d cells and %d tuning runs", name, n, len(cells), len(tuning))
		}
		for _, cell := range append(cells, tuning...) {
			if !cell.Config.Train.EarlyStop.On() {
				t.Errorf("%s: %s trains without early stopping", name, cell.Name)
			}
		}
	}
}

// TestCellNamesOfSweptMappings: a swept mapping names its cell by its values.
func TestCellNamesOfSweptMappings(t *testing.T) {
	cfg, _, err := Read([]byte(`
name: g
sweep:
  position:
    - {kind: none}
    - {kind: rope, randomized: true, max_random: 128}
  seed: [1]
`), "g.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	cells, err := Expand(cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"position-none__seed-1", "position-rope_randomized-true_max_random-128__seed-1"}
	for i, c := range cells {
		if c.Name != want[i] {
			t.Errorf("cell %d is named %q, want %q", i, c.Name, want[i])
		}
	}
}
