package train

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nlpodyssey/safetensors"
	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/internal/nn"
	"github.com/posformer/posformer/internal/testutil"
	"github.com/posformer/posformer/model"
	"github.com/posformer/posformer/rundir"
	"github.com/posformer/posformer/setup"
	"github.com/posformer/posformer/train/config"
	"gorgonia.org/tensor"
)

var update = flag.Bool("update", false, "rewrite the golden error messages in testdata/export/*.golden")

// TestSafetensorsFormat reads an export by the format's specification, without the writer's
// library: an 8-byte little-endian header size N; N bytes of JSON (padded with spaces to a
// multiple of 8) mapping each name to its dtype, shape and [begin, end) offsets into the data
// that follows, plus "__metadata__" (strings only); the tensors back to back, little-endian,
// row-major. Every parameter must be there under its name, with its shape, in the model's
// dtype and bit for bit; the metadata must carry the resolved architecture; the same model must
// give the same bytes; and the library's own reader must agree.
func TestSafetensorsFormat(t *testing.T) {
	for _, dtype := range []string{"float32", "float64"} {
		t.Run(dtype, func(t *testing.T) {
			m, cfg, task := minimalModel(t, "model.dtype="+dtype, "position.kind=learned", "position.max_positions=40")
			m.TrainLen = 9
			b, err := Safetensors(m, cfg)
			if err != nil {
				t.Fatal(err)
			}
			n := binary.LittleEndian.Uint64(b[:8])
			if n%8 != 0 || 8+n > uint64(len(b)) {
				t.Fatalf("header size %d (file %d bytes): want a multiple of 8 inside the file", n, len(b))
			}
			var header map[string]json.RawMessage
			if err := json.Unmarshal(b[8:8+n], &header); err != nil {
				t.Fatal(err)
			}
			body := b[8+n:]
			var meta map[string]string
			if err := json.Unmarshal(header["__metadata__"], &meta); err != nil {
				t.Fatalf("__metadata__ is not string to string: %v", err)
			}
			delete(header, "__metadata__")
			params := m.Params()
			if len(header) != len(params) {
				t.Fatalf("%d tensors, the model has %d", len(header), len(params))
			}
			covered := make([]bool, len(body))
			for _, p := range params {
				var info struct {
					Dtype   string   `json:"dtype"`
					Shape   []int    `json:"shape"`
					Offsets [2]int64 `json:"data_offsets"`
				}
				if err := json.Unmarshal(header[p.Name], &info); err != nil {
					t.Fatalf("%s: %v", p.Name, err)
				}
				wantDT, size := "F32", 4
				if dtype == "float64" {
					wantDT, size = "F64", 8
				}
				if info.Dtype != wantDT || !equalInts(info.Shape, p.Value.Shape()) {
					t.Fatalf("%s: %s %v, want %s %v", p.Name, info.Dtype, info.Shape, wantDT, p.Value.Shape())
				}
				lo, hi := info.Offsets[0], info.Offsets[1]
				want := nn.Float64s(p.Value)
				if hi-lo != int64(size*len(want)) || hi > int64(len(body)) {
					t.Fatalf("%s: offsets %v for %d values", p.Name, info.Offsets, len(want))
				}
				for i, w := range want {
					off := lo + int64(i*size)
					var got float64
					if size == 4 {
						got = float64(math.Float32frombits(binary.LittleEndian.Uint32(body[off:])))
					} else {
						got = math.Float64frombits(binary.LittleEndian.Uint64(body[off:]))
					}
					if got != w {
						t.Fatalf("%s[%d] = %v, want %v", p.Name, i, got, w)
					}
				}
				for i := lo; i < hi; i++ {
					if covered[i] {
						t.Fatalf("%s overlaps another tensor at byte %d", p.Name, i)
					}
					covered[i] = true
				}
			}
			for i, c := range covered {
				if !c {
					t.Fatalf("byte %d of the data belongs to no tensor", i)
				}
			}
			var arch ExportModel
			if err := json.Unmarshal([]byte(meta[MetaModel]), &arch); err != nil {
				t.Fatal(err)
			}
			var pos map[string]any
			json.Unmarshal(arch.Position, &pos)
			if meta[MetaFormat] != "pt" || meta[MetaVersion] != ExportVersion || arch.Vocab != task.Vocab() || arch.DModel != 16 ||
				arch.Heads != 2 || arch.Layers != 1 || arch.DFF != 32 || arch.Dtype != dtype || arch.TrainLen != 9 ||
				pos["kind"] != "learned" || pos["max_positions"] != 40.0 {
				t.Fatalf("metadata: %v; architecture %+v, position %v", meta, arch, pos)
			}
			var whole config.Config
			if err := json.Unmarshal([]byte(meta[MetaConfig]), &whole); err != nil || whole.Model.Vocab != task.Vocab() || whole.Train.Steps != cfg.Train.Steps {
				t.Fatalf("posformer.config: %v, %+v", err, whole)
			}
			again, _ := Safetensors(m, cfg)
			if !bytes.Equal(again, b) {
				t.Fatal("the same model gave different bytes")
			}
			st, err := safetensors.Deserialize(b)
			if err != nil || st.Len() != len(params) {
				t.Fatalf("the library's reader: %v, %d tensors", err, st.Len())
			}
		})
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// finishedRun trains testutil.Minimal for a few steps into dir and returns the run directory.
func finishedRun(t *testing.T, dir string) string {
	t.Helper()
	cfg := tinyConfig(t, dir, "train.steps=3", "train.val_every=-1", "eval.lengths=1..2", "eval.examples=2")
	if _, err := Run(context.Background(), cfg, Options{}); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, cfg.Name)
}

// TestExport: the default output is RUN_DIR/model.safetensors, holding the checkpoint's weights
// (the model LoadModel rebuilds); a second export needs -force; -force replaces it.
func TestExport(t *testing.T) {
	run := finishedRun(t, t.TempDir())
	path, err := Export(run, "", false)
	if err != nil || path != filepath.Join(run, rundir.ExportName) {
		t.Fatalf("Export: %q, %v", path, err)
	}
	b, _ := os.ReadFile(path)
	st, err := safetensors.Deserialize(b)
	if err != nil {
		t.Fatal(err)
	}
	m, err := LoadModel(run)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range m.Params() {
		tv, ok := st.Tensor(p.Name)
		if !ok || !bytes.Equal(tv.Data(), mustView(t, p.Value).data) {
			t.Fatalf("%s: not the checkpoint's weights", p.Name)
		}
	}
	if _, err := Export(run, "", false); err == nil || !strings.Contains(err.Error(), "-force") {
		t.Fatalf("a second export without force: %v", err)
	}
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Export(run, "", true); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(path); !bytes.Equal(again, b) {
		t.Fatal("-force did not write the same export again")
	}
}

func mustView(t *testing.T, x *tensor.Dense) view {
	t.Helper()
	v, err := newView(x)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// ExportCase is one line of testdata/export/cases.txt: a bad use of `train export`.
type exportCase struct {
	name string
	args []string // after `export`, with $TMP
}

// exportCases reads testdata/export/cases.txt.
func exportCases(t *testing.T) []exportCase {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "export", "cases.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var cs []exportCase
	for _, line := range strings.Split(string(b), "\n") {
		name, args, ok := strings.Cut(line, "\t")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		cs = append(cs, exportCase{name, strings.Fields(args)})
	}
	if len(cs) < 10 {
		t.Fatalf("only %d export cases", len(cs))
	}
	return cs
}

// exportFixture fills tmp with the directories cases.txt names.
func exportFixture(t *testing.T, tmp string) {
	t.Helper()
	run := finishedRun(t, filepath.Join(tmp, "out"))
	if err := os.Rename(run, filepath.Join(tmp, "run")); err != nil {
		t.Fatal(err)
	}
	for dir, drop := range map[string]string{"nockpt": "checkpoint.bin", "unfinished": "results.json"} {
		if err := os.CopyFS(filepath.Join(tmp, dir), os.DirFS(filepath.Join(tmp, "run"))); err != nil {
			t.Fatal(err)
		}
		os.Remove(filepath.Join(tmp, dir, drop))
	}
	for _, d := range []string{"grid", "empty"} {
		os.Mkdir(filepath.Join(tmp, d), 0o755)
	}
	for _, f := range []string{"grid/grid.yaml", "file", "existing.safetensors"} {
		if err := os.WriteFile(filepath.Join(tmp, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestExportErrors runs every bad use of cases.txt through Export: one line, matching its
// golden file, and nothing written (the existing files keep their contents).
func TestExportErrors(t *testing.T) {
	tmp := t.TempDir()
	exportFixture(t, tmp)
	for _, c := range exportCases(t) {
		t.Run(c.name, func(t *testing.T) {
			var dir, out string
			force := false
			for i := 0; i < len(c.args); i++ {
				switch a := strings.ReplaceAll(c.args[i], "$TMP", tmp); a {
				case "-force":
					force = true
				case "-o":
					i++
					out = strings.ReplaceAll(c.args[i], "$TMP", tmp)
				default:
					dir = a
				}
			}
			_, err := Export(dir, out, force)
			if err == nil {
				t.Fatal("accepted")
			}
			msg := strings.ReplaceAll(err.Error(), tmp, "$TMP")
			golden := filepath.Join("testdata", "export", c.name+".golden")
			if *update {
				os.WriteFile(golden, []byte(msg+"\n"), 0o644)
			}
			want, _ := os.ReadFile(golden)
			if strings.Contains(msg, "\n") || msg+"\n" != string(want) {
				t.Errorf("got:  %s\nwant: %s", msg, want)
			}
		})
	}
	if b, _ := os.ReadFile(filepath.Join(tmp, "existing.safetensors")); string(b) != "x\n" {
		t.Error("an existing export was overwritten without -force")
	}
	if _, err := os.Stat(filepath.Join(tmp, "run", rundir.ExportName)); err == nil {
		t.Error("a refused export wrote the run's model.safetensors")
	}
	if _, err := config.Load(filepath.Join(tmp, "run", "config.yaml"), nil); err != nil {
		t.Errorf("the run's config.yaml was damaged: %v", err)
	}
}

// TestExportVersionUnscaled: an export of a model with unscaled logits carries version 2, so a
// reader of version 1 (which knows no unscaled_logits and would scale) refuses it; every other
// export stays version 1.
func TestExportVersionUnscaled(t *testing.T) {
	for _, c := range []struct {
		set  []string
		want string
	}{{nil, ExportVersion}, {[]string{"model.unscaled_logits=true"}, ExportVersionUnscaled}} {
		m, cfg, _ := minimalModel(t, c.set...)
		b, err := Safetensors(m, cfg)
		if err != nil {
			t.Fatal(err)
		}
		_, md, err := safetensors.ReadMetadata(b)
		if err != nil {
			t.Fatal(err)
		}
		if got := md.Metadata()[MetaVersion]; got != c.want {
			t.Errorf("%v: export version %q, want %q", c.set, got, c.want)
		}
	}
	if ExportVersion == ExportVersionUnscaled {
		t.Fatal("the two versions must differ")
	}
}

// minimalModel builds the model of testutil.Minimal with the -set overrides, untrained.
func minimalModel(t *testing.T, set ...string) (*model.Model, config.Config, data.Task) {
	t.Helper()
	cfg, err := config.Parse([]byte(testutil.Minimal), "min.yaml", set)
	if err != nil {
		t.Fatal(err)
	}
	task, err := data.New(cfg.Task.Name, data.Options{Symbols: cfg.Task.Symbols})
	if err != nil {
		t.Fatal(err)
	}
	m, err := setup.NewModel(cfg, task)
	if err != nil {
		t.Fatal(err)
	}
	return m, cfg, task
}
