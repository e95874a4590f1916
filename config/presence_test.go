package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/posformer/posformer/internal/schemes"
	"github.com/posformer/posformer/internal/testutil"
	"github.com/posformer/posformer/position"
	"go.yaml.in/yaml/v3"
)

// leafPaths lists the dotted yaml path of every leaf field of t (a struct), walking into nested
// structs; the presence records (yaml:"-") are not fields of the config.
func leafPaths(t reflect.Type, prefix string) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if f.Anonymous { // inline (position.Spec in Position)
			out = append(out, leafPaths(f.Type, prefix)...)
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		p := join(prefix, name)
		if f.Type.Kind() == reflect.Struct {
			out = append(out, leafPaths(f.Type, p)...)
			continue
		}
		out = append(out, p)
	}
	return out
}

// optionPaths lists position.<key> for every option of every registered scheme.
func optionPaths() []string {
	var out []string
	for _, key := range schemes.AllKeys() {
		if schemes.IsOption(key) {
			out = append(out, "position."+key)
		}
	}
	return out
}

// optionZero is an option's zero value as YAML.
func optionZero(key string) string {
	for _, kind := range position.Kinds() {
		for _, o := range position.Options(kind) {
			if o.Key == key {
				return map[string]string{"int": "0", "float": "0", "string": `""`, "bool": "false"}[o.Type]
			}
		}
	}
	panic(key)
}

// zeroYAML is the zero value of a field's type as YAML: 0, false, "", an empty list or mapping.
func zeroYAML(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int64, reflect.Uint64, reflect.Float64:
		return "0"
	case reflect.Bool:
		return "false"
	case reflect.String:
		return `""`
	case reflect.Pointer: // an optional value (task.depth): its element's zero
		return zeroYAML(t.Elem())
	case reflect.Slice:
		if t == reflect.TypeFor[Sweep]() {
			return "{}"
		}
		return "[]"
	}
	panic("zeroYAML: no zero for " + t.String())
}

// TestWrittenZeroIsKeptOrRefused walks every leaf field of the config by reflection (a field
// added later is walked too), writes its zero value (an empty list or mapping for a list or the
// sweep) and checks the one rule: the value is either refused with one line that names the field,
// or kept, in the resolved config and in its config.yaml read back as a run's is read (Load).
// Position fields and every scheme's options (position.Options) are tried under every
// registered scheme.
func TestWrittenZeroIsKeptOrRefused(t *testing.T) {
	paths := append(leafPaths(reflect.TypeFor[Config](), ""), optionPaths()...)
	if len(paths) < 40 {
		t.Fatalf("only %d leaf fields found: %v", len(paths), paths)
	}
	// value is the field at path of a resolved config (a scheme's option: its value).
	value := func(c *Config, path string) reflect.Value {
		if key, ok := strings.CutPrefix(path, "position."); ok && schemes.IsOption(key) {
			v, ok := c.Position.Option(key)
			if !ok {
				return reflect.ValueOf("(not an option of " + c.Position.Kind + ")")
			}
			return reflect.ValueOf(v)
		}
		v, _ := fieldAt(reflect.ValueOf(c).Elem(), path)
		return reflect.Indirect(v)
	}
	kept, refused := 0, 0
	for _, path := range paths {
		var zero string
		if key, ok := strings.CutPrefix(path, "position."); ok && schemes.IsOption(key) {
			zero = optionZero(key)
		} else {
			f, err := fieldAt(reflect.ValueOf(&Config{}).Elem(), path)
			if err != nil {
				t.Fatal(err)
			}
			zero = zeroYAML(f.Type())
		}
		kinds := []string{"rope"}
		if strings.HasPrefix(path, "position.") && path != "position.kind" {
			kinds = position.Kinds()
		}
		for _, kind := range kinds {
			set := path + "=" + zero
			c, _, err := Read([]byte(testutil.Minimal), "min.yaml", []string{"position.kind=" + kind, set})
			if err != nil {
				msg := err.Error()
				if !strings.Contains(msg, path) || strings.Contains(msg, "\n") {
					t.Errorf("-set %s (kind %s): refused with %q, which does not name %s on one line", set, kind, msg, path)
				}
				refused++
				continue
			}
			kept++
			if v := value(&c, path); !v.IsZero() {
				t.Errorf("-set %s (kind %s): accepted but resolved to %v", set, kind, v.Interface())
				continue
			}
			enc, err := yaml.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(t.TempDir(), "config.yaml")
			if err := os.WriteFile(file, enc, 0o644); err != nil {
				t.Fatal(err)
			}
			back, _, err := ReadWritten(file)
			if err != nil {
				t.Errorf("-set %s (kind %s): its config.yaml does not load: %v", set, kind, err)
				continue
			}
			if v := value(&back, path); !v.IsZero() {
				t.Errorf("-set %s (kind %s): config.yaml read back holds %v", set, kind, v.Interface())
			}
		}
	}
	t.Logf("%d leaf fields: %d written zeros kept, %d refused", len(paths), kept, refused)
	if kept == 0 || refused == 0 {
		t.Errorf("kept %d, refused %d: the walk is not reaching the fields", kept, refused)
	}
}

// TestWrittenZerosKept: the zeros that are legal are kept where zero used to mean the default.
func TestWrittenZerosKept(t *testing.T) {
	c, _, err := Read([]byte(testutil.Minimal), "min.yaml", []string{"train.min_lr_ratio=0", "train.beta1=0", "train.warmup_steps=0",
		"train.val_every=0", "train.grad_clip=0", "train.checkpoint_every=0", "seed=0", "eval.seed=0", "model.init_seed=0"})
	if err != nil {
		t.Fatal(err)
	}
	tr := c.Train
	if tr.MinLRRatio != 0 || tr.Beta1 != 0 || tr.WarmupSteps != 0 || tr.ValEvery != 0 || tr.GradClip != 0 || tr.CheckpointEvery != 0 ||
		c.Seed != 0 || c.Eval.Seed != 0 || c.Model.Seed != 0 {
		t.Fatalf("written zeros replaced: %+v", c)
	}
	// Unwritten, the same fields take their defaults.
	d, _, err := Read([]byte(testutil.Minimal), "min.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Train.MinLRRatio != 0.1 || d.Train.Beta1 != 0.9 || d.Seed != 1 || d.Eval.Seed != 1001 || d.Model.Seed != 1 {
		t.Fatalf("defaults not filled: %+v", d)
	}
}

// TestGridYAMLRecordsPresence: a grid.yaml holds the keys written, zeros included, and nothing
// else; read back it is the same grid.
func TestGridYAMLRecordsPresence(t *testing.T) {
	c, _, err := Read([]byte(testutil.Minimal+"sweep:\n  seed: [1, 2]\n"), "grid.yaml", []string{"train.min_lr_ratio=0"})
	if err != nil {
		t.Fatal(err)
	}
	enc, err := MarshalGrid(c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(enc), gridHeader) || !strings.Contains(string(enc), "min_lr_ratio: 0") || strings.Contains(string(enc), "beta1") {
		t.Fatalf("grid.yaml:\n%s", enc)
	}
	file := filepath.Join(t.TempDir(), "grid.yaml")
	if err := os.WriteFile(file, enc, 0o644); err != nil {
		t.Fatal(err)
	}
	back, _, err := ReadWritten(file)
	if err != nil {
		t.Fatal(err)
	}
	cells, err := Expand(back)
	if err != nil || len(cells) != 2 || cells[0].Config.Train.MinLRRatio != 0 || cells[0].Config.Train.Beta1 != 0.9 {
		t.Fatalf("cells %+v, %v", cells, err)
	}
}

// TestPresenceCopies: marking a key in a copy of a config (a grid's cell) leaves the original's
// record alone.
func TestPresenceCopies(t *testing.T) {
	c, _, err := Read([]byte(testutil.Minimal), "min.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	before := c.Written
	cc := c
	if err := Set(&cc, "train.beta1=0"); err != nil {
		t.Fatal(err)
	}
	if !cc.Written.Has("train.beta1") || c.Written.Has("train.beta1") || c.Written != before {
		t.Fatalf("copy %v, original %v", cc.Written.List(), c.Written.List())
	}
	if !c.Model.Written.Has("d_model") || c.Written.Has("model.d_model") || !c.Position.Written.Has("kind") {
		t.Fatalf("model keys %v, position keys %v, root keys %v", c.Model.Written.List(), c.Position.Written.List(), c.Written.List())
	}
}
