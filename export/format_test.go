package export

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"testing"

	"github.com/nlpodyssey/safetensors"
	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/internal/nn"
	"github.com/posformer/posformer/internal/testutil"
	"github.com/posformer/posformer/model"
	"github.com/posformer/posformer/setup"
)

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
			var arch Model
			if err := json.Unmarshal([]byte(meta[MetaModel]), &arch); err != nil {
				t.Fatal(err)
			}
			var pos map[string]any
			json.Unmarshal(arch.Position, &pos)
			if meta[MetaFormat] != "pt" || meta[MetaVersion] != Version || arch.Vocab != task.Vocab() || arch.DModel != 16 ||
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

// TestExportVersionUnscaled: an export of a model with unscaled logits carries version 2, so a
// reader of version 1 (which knows no unscaled_logits and would scale) refuses it; every other
// export stays version 1.
func TestExportVersionUnscaled(t *testing.T) {
	for _, c := range []struct {
		set  []string
		want string
	}{{nil, Version}, {[]string{"model.unscaled_logits=true"}, VersionUnscaled}} {
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
	if Version == VersionUnscaled {
		t.Fatal("the two versions must differ")
	}
}

// minimalModel builds the model of testutil.Minimal with the -set overrides, untrained.
func minimalModel(t *testing.T, set ...string) (*model.Model, config.Config, data.Task) {
	t.Helper()
	cfg, _, err := config.Read([]byte(testutil.Minimal), "min.yaml", set)
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
