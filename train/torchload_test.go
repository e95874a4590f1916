package train

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/posformer/posformer/export"
)

// stParts is a safetensors file taken apart, the header's entries in their order (raw JSON, so
// that a test can write what no encoder would: a key twice, a float offset) and the data
// section, so that a test can break one rule of a real export and put it back together.
type stParts struct {
	names []string
	raws  []json.RawMessage
	data  []byte
}

func splitSafetensors(t *testing.T, b []byte) stParts {
	t.Helper()
	n := binary.LittleEndian.Uint64(b[:8])
	dec := json.NewDecoder(bytes.NewReader(b[8 : 8+n]))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("header: %v %v", tok, err)
	}
	p := stParts{data: b[8+n:]}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		p.names, p.raws = append(p.names, k.(string)), append(p.raws, v)
	}
	return p
}

// safetensorsBytes is a header (any bytes) and a data section as a file: the 8-byte
// little-endian header length first.
func safetensorsBytes(header, data []byte) []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	return append(append(b, header...), data...)
}

func (p stParts) header() []byte {
	var h bytes.Buffer
	h.WriteByte('{')
	for i, name := range p.names {
		if i > 0 {
			h.WriteByte(',')
		}
		k, _ := json.Marshal(name)
		h.Write(k)
		h.WriteByte(':')
		h.Write(p.raws[i])
	}
	h.WriteByte('}')
	return h.Bytes()
}

func (p stParts) bytes() []byte { return safetensorsBytes(p.header(), p.data) }

func (p stParts) clone() stParts {
	return stParts{names: append([]string(nil), p.names...), raws: append([]json.RawMessage(nil), p.raws...), data: append([]byte(nil), p.data...)}
}

func (p stParts) index(t *testing.T, name string) int {
	t.Helper()
	for i, n := range p.names {
		if n == name {
			return i
		}
	}
	t.Fatalf("the export has no %s", name)
	return -1
}

// decodeJSON decodes a JSON object keeping numbers as written (json.Number).
func decodeJSON(t *testing.T, b []byte) map[string]any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

func encodeJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// edit changes the header object of entry name (a tensor, or __metadata__) with f.
func (p stParts) edit(t *testing.T, name string, f func(map[string]any)) stParts {
	t.Helper()
	p = p.clone()
	i := p.index(t, name)
	m := decodeJSON(t, p.raws[i])
	f(m)
	p.raws[i] = encodeJSON(t, m)
	return p
}

// editModel changes the posformer.model JSON of the metadata with f.
func (p stParts) editModel(t *testing.T, f func(m map[string]any)) stParts {
	t.Helper()
	return p.edit(t, "__metadata__", func(meta map[string]any) {
		m := decodeJSON(t, []byte(meta[export.MetaModel].(string)))
		f(m)
		meta[export.MetaModel] = string(encodeJSON(t, m))
	})
}

// offsets are a tensor's data_offsets in the export.
func (p stParts) offsets(t *testing.T, name string) (begin, end int) {
	t.Helper()
	var e struct {
		Offsets [2]int `json:"data_offsets"`
	}
	if err := json.Unmarshal(p.raws[p.index(t, name)], &e); err != nil {
		t.Fatal(err)
	}
	return e.Offsets[0], e.Offsets[1]
}

// craftedExport is a file built from a real export with one rule of the format or of
// docs/export.md broken, and the one line posformer_torch.py must refuse it with (after "PATH: ").
type craftedExport struct {
	name string
	file []byte
	want string
}

const (
	reexport  = "; export the run again (train export RUN_DIR -force)"
	notExport = "; give the model.safetensors that `train export RUN_DIR` wrote"
)

// craftedExports breaks a real export (float32 rope, 1 layer, d_model 16, 2 heads, vocab 10:
// finishedRun's) in every way of issue 28's finding 7, and more.
func craftedExports(t *testing.T, good []byte) []craftedExport {
	p := splitSafetensors(t, good)
	var arch export.Model
	meta := decodeJSON(t, p.raws[p.index(t, "__metadata__")])
	if err := json.Unmarshal([]byte(meta[export.MetaModel].(string)), &arch); err != nil {
		t.Fatal(err)
	}
	V, D := arch.Vocab, arch.DModel
	if arch.Layers != 1 || arch.Dtype != "float32" || !strings.Contains(string(arch.Position), `"rope"`) {
		t.Fatalf("the cases below are written for a float32 rope model of 1 layer, not %+v", arch)
	}
	tb, te := p.offsets(t, "tok_emb")
	if te != len(p.data) {
		t.Fatalf("the cases below expect tok_emb last in the data, it ends at %d of %d", te, len(p.data))
	}
	bb, be := p.offsets(t, "lnf.beta")
	gb, ge := p.offsets(t, "lnf.gamma")
	set := func(name, key string, v any) stParts {
		return p.edit(t, name, func(m map[string]any) { m[key] = v })
	}
	model := func(key string, v any) []byte {
		return p.editModel(t, func(m map[string]any) { m[key] = v }).bytes()
	}
	position := func(key string, v any) []byte {
		return p.editModel(t, func(m map[string]any) { m["position"].(map[string]any)[key] = v }).bytes()
	}
	positions := func(kv map[string]any) []byte { // several keys of the position section
		return p.editModel(t, func(m map[string]any) {
			for k, v := range kv {
				m["position"].(map[string]any)[k] = v
			}
		}).bytes()
	}
	scheme := func(pos map[string]any) []byte { // another position section
		return p.editModel(t, func(m map[string]any) { m["position"] = pos }).bytes()
	}
	num := func(s string) json.Number { return json.Number(s) }
	dup := p.clone()
	dup.names, dup.raws = append(dup.names, "tok_emb"), append(dup.raws, p.raws[p.index(t, "tok_emb")])
	extraBytes := p.clone()
	extraBytes.data = append(extraBytes.data, make([]byte, 64)...)
	gap := set("tok_emb", "data_offsets", []int{tb + 8, te + 8})
	gap.data = append(gap.data[:tb], append(make([]byte, 8), gap.data[tb:]...)...)
	extraTensor := p.clone()
	extraTensor.names = append(extraTensor.names, "extra")
	extraTensor.raws = append(extraTensor.raws, encodeJSON(t, map[string]any{"dtype": "F32", "shape": []int{0}, "data_offsets": []int{te, te}}))
	dupField := p.edit(t, "__metadata__", func(meta map[string]any) {
		meta[export.MetaModel] = strings.Replace(meta[export.MetaModel].(string), `"heads":2`, `"heads":2,"heads":1`, 1)
	})
	nan := p.clone() // json.Marshal writes no NaN
	i := nan.index(t, "tok_emb")
	nan.raws[i] = bytes.Replace(nan.raws[i], []byte(fmt.Sprintf(`"shape":[%d,`, V)), []byte(`"shape":[NaN,`), 1)
	metaString := p.clone()
	metaString.raws[metaString.index(t, "__metadata__")] = json.RawMessage(`"pt"`)
	lenBeyond := p.bytes()
	binary.LittleEndian.PutUint64(lenBeyond, uint64(len(lenBeyond)))
	data := len(p.data)
	return []craftedExport{
		{"a list as header", safetensorsBytes(append(append([]byte("["), p.header()...), ']'), p.data),
			"header: an array, not a JSON object" + notExport},
		{"begin after end", set("tok_emb", "data_offsets", []int{te, tb}).bytes(),
			fmt.Sprintf("tensor tok_emb: data_offsets [%d, %d]: begins after it ends", te, tb) + reexport},
		{"a shape that does not match the bytes", set("tok_emb", "shape", []int{V, D - 1}).bytes(),
			fmt.Sprintf("tensor tok_emb: shape [%d, %d] of F32 is %d bytes but data_offsets [%d, %d] hold %d", V, D-1, V*(D-1)*4, tb, te, te-tb) + reexport},
		{"a missing dtype", p.edit(t, "tok_emb", func(m map[string]any) { delete(m, "dtype") }).bytes(),
			"tensor tok_emb: no dtype" + reexport},
		{"string offsets", set("tok_emb", "data_offsets", []string{fmt.Sprint(tb), fmt.Sprint(te)}).bytes(),
			fmt.Sprintf(`tensor tok_emb: data_offsets ["%d", "%d"]: not two non-negative integers [begin, end]`, tb, te) + reexport},
		{"float offsets", set("tok_emb", "data_offsets", []json.Number{num(fmt.Sprint(tb) + ".0"), num(fmt.Sprint(te) + ".0")}).bytes(),
			fmt.Sprintf(`tensor tok_emb: data_offsets [%d.0, %d.0]: not two non-negative integers [begin, end]`, tb, te) + reexport},
		{"__metadata__ not an object", metaString.bytes(), "__metadata__: a string, not a JSON object" + reexport},
		{"0 heads", model("heads", 0), "posformer.model.heads: must be at least 1, got 0" + reexport},
		{"float16 as the model's dtype", model("dtype", "float16"), `posformer.model.dtype: "float16": this module knows float32, float64` + reexport},
		{"F16 as a tensor's dtype", set("tok_emb", "dtype", "F16").bytes(),
			`tensor tok_emb: dtype "F16": this module reads F32 or F64, the dtypes posformer writes` + reexport},
		{"a vocabulary one larger than the tensors", model("vocab", V+1),
			fmt.Sprintf("tensor tok_emb: shape [%d, %d], but posformer.model makes it [vocab %d, d_model %d]", V, D, V+1, D) + reexport},
		{"overlapping offsets", set("lnf.gamma", "data_offsets", []int{bb, be}).bytes(),
			fmt.Sprintf("tensor lnf.gamma: data_offsets [%d, %d] overlap those of tensor lnf.beta (up to byte %d)", bb, be, be) + reexport},
		{"negative offsets", set("lnf.gamma", "data_offsets", []int{gb - data, ge - data}).bytes(),
			fmt.Sprintf("tensor lnf.gamma: data_offsets [%d, %d]: not two non-negative integers [begin, end]", gb-data, ge-data) + reexport},
		{"a negative shape", set("tok_emb", "shape", []int{-1, D}).bytes(),
			fmt.Sprintf("tensor tok_emb: shape [-1, %d]: not an array of non-negative integers", D) + reexport},
		{"a tensor key twice", dup.bytes(), "tensor tok_emb: appears twice in the header (a reader would silently keep one)" + reexport},
		{"bytes after the last tensor", extraBytes.bytes(),
			fmt.Sprintf("data: %d bytes, but the tensors end at byte %d: the last 64 belong to no tensor", data+64, data) + reexport},
		{"bytes between tensors", gap.bytes(),
			fmt.Sprintf("tensor tok_emb: data_offsets [%d, %d] leave bytes %d..%d of the data to no tensor", tb+8, te+8, tb, tb+8) + reexport},
		{"a RoPE base of -5", position("base", -5), "posformer.model.position.base: must be greater than 1, got -5" + reexport},
		{"d_model 200000", model("d_model", 200_000),
			fmt.Sprintf("tensor tok_emb: shape [%d, %d], but posformer.model makes it [vocab %d, d_model 200000]", V, D, V) + reexport},
		{"10^7 layers", model("layers", 10_000_000), "posformer.model.layers: 10000000, but the file holds the tensors of 1 block" + reexport},
		// Beyond the list.
		{"a header length beyond the file", lenBeyond,
			fmt.Sprintf("not a safetensors file (its %d bytes do not hold the header they announce)", len(lenBeyond)) + notExport},
		{"NaN in the header", nan.bytes(),
			"header: not JSON (NaN is not JSON)" + notExport},
		{"a key twice in posformer.model", dupField.bytes(), `posformer.model: key "heads" appears twice (a reader would silently keep one)` + reexport},
		{"heads that do not divide d_model", model("heads", 3), fmt.Sprintf("posformer.model.heads: 3 heads do not divide d_model %d", D) + reexport},
		{"no train_len", p.editModel(t, func(m map[string]any) { delete(m, "train_len") }).bytes(), "posformer.model.train_len: missing" + reexport},
		{"an unknown rope_scaling", position("rope_scaling", "quadratic"),
			`posformer.model.position.rope_scaling: "quadratic": this module knows none, interpolate, ntk, dynamic_ntk, yarn, llama3, longrope` + reexport},
		{"longrope without its factors", position("rope_scaling", "longrope"),
			"posformer.model.position.rope_long_factor: longrope needs 4 positive factors separated by commas, got null" + reexport},
		{"long factors without longrope", position("rope_long_factor", "1,2,3,4"),
			"posformer.model.position.rope_long_factor: only rope_scaling longrope takes per-pair factors" + reexport},
		{"export version 3", p.edit(t, "__metadata__", func(m map[string]any) { m[export.MetaVersion] = "3" }).bytes(),
			`__metadata__ posformer.export_version: "3", this module reads 1, 2; load it with the posformer_torch.py of the posformer that exported it`},
		{"unscaled_logits in version 1", model("unscaled_logits", true),
			"posformer.model.unscaled_logits: true in an export of version 1 (unscaled logits are version 2)" + reexport},
		{"a tensor in another dtype than the model", p.edit(t, "tok_emb", func(m map[string]any) { m["dtype"], m["shape"] = "F64", []int{V, D / 2} }).bytes(),
			"tensor tok_emb: dtype F64, but posformer.model.dtype is float32 (F32)" + reexport},
		{"a scheme's tensor missing", p.editModel(t, func(m map[string]any) { m["position"] = map[string]any{"kind": "learned", "max_positions": 8} }).bytes(),
			"tensor pos.learned.table: missing (posformer.model has 1 layer, position.kind learned)" + reexport},
		{"a tensor the model does not have", extraTensor.bytes(), "tensor extra: not part of a rope model of 1 layer (docs/export.md)" + reexport},
		// Metadata posformer refuses (issue 35 point 11).
		{"yarn with randomized positions", positions(map[string]any{"rope_scaling": "yarn", "randomized": true, "max_random": 64, "eval_positions": "random"}),
			"posformer.model.position.rope_scaling: yarn with randomized positions, which posformer refuses (they already cover [0, max_random))" + reexport},
		{"max_random 1", positions(map[string]any{"randomized": true, "max_random": 1, "eval_positions": "random"}),
			fmt.Sprintf("posformer.model.position.max_random: must be at least %d, got 1", max(2, arch.TrainLen)) + reexport},
		{"max_random 10^9", positions(map[string]any{"randomized": true, "max_random": 1_000_000_000, "eval_positions": "random"}),
			"posformer.model.position.max_random: 1000000000 is more than 131072, the most positions posformer samples from" + reexport},
		{"an unknown eval_positions", positions(map[string]any{"randomized": true, "max_random": 64, "eval_positions": "sometimes"}),
			`posformer.model.position.eval_positions: "sometimes": this module knows random, plain` + reexport},
		{"randomized as a string", positions(map[string]any{"randomized": "true", "max_random": 64, "eval_positions": "random"}),
			`posformer.model.position.randomized: "true" is not true or false` + reexport},
		{"max_random without randomized", positions(map[string]any{"max_random": 64}),
			"posformer.model.position.max_random: given without randomized: true, which it belongs to" + reexport},
		{"an unknown option of rope", position("colour", "red"),
			"posformer.model.position.colour: not an option of rope (it has log_scaling, base, rotary_fraction, rope_scaling, rope_factor, rope_long_factor, randomized, max_random, eval_positions)" + reexport},
		{"randomized t5", scheme(map[string]any{"kind": "t5", "num_buckets": 8, "max_distance": 12, "init_std": 0.02, "randomized": true}),
			"posformer.model.position.randomized: t5 takes no randomized positions (only sinusoidal, learned, rope, alibi, relative, p_rope do)" + reexport},
		{"symmetric alibi on a causal model", scheme(map[string]any{"kind": "alibi", "symmetric": true}),
			"posformer.model.position.symmetric: true on a causal model: it applies to an encoder (posformer.model.bidirectional) only" + reexport},
		{"a negative fire init_c", scheme(map[string]any{"kind": "fire", "mlp_width": 8, "init_c": -0.1, "init_l": 12}),
			"posformer.model.position.init_c: must be greater than 0, got -0.1" + reexport},
		// A scheme this module has no twin of: exporting again cannot help.
		{"a scheme without a PyTorch twin", scheme(map[string]any{"kind": "linbias"}),
			`posformer.model.position.kind: "linbias": this scheme has no PyTorch twin (this module has ` + strings.Join(torchKinds(t), ", ") + "): add it to python/posformer_torch.py (docs/export.md)"},
		// abacus and coupled read the digits: the token of digit 0 is the model's (digit0).
		{"abacus without digit0", scheme(map[string]any{"kind": "abacus", "max_offset": 5, "max_positions": 8, "init_std": 1}),
			"posformer.model.digit0: missing" + reexport},
		{"coupled digits beyond the vocabulary", p.editModel(t, func(m map[string]any) {
			m["position"], m["digit0"] = map[string]any{"kind": "coupled", "max_position": 8, "init_std": 1}, V-9
		}).bytes(), fmt.Sprintf("posformer.model.digit0: %d, but the digits %d..%d do not fit in the vocabulary of %d", V-9, V-9, V, V) + reexport},
		{"yarn with train_len 0", p.editModel(t, func(m map[string]any) {
			m["train_len"] = 0
			m["position"].(map[string]any)["rope_scaling"] = "yarn"
		}).bytes(), "posformer.model.train_len: 0, but rope_scaling yarn acts past the training length, so it needs one" + reexport},
	}
}

// torchKinds are the position kinds python/posformer_torch.py has (its SCHEMES, in order).
func torchKinds(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command(torchPython, "-c", "import sys; sys.path.insert(0, sys.argv[1]); import posformer_torch as pt; print(' '.join(pt.SCHEMES))", filepath.Dir(torchModule)).Output()
	if err != nil {
		t.Fatalf("listing posformer_torch's schemes: %v", err)
	}
	return strings.Fields(string(out))
}

// goodExport exports finishedRun's run in dir to dir/good.safetensors: its path and bytes.
func goodExport(t *testing.T, dir string) (string, []byte) {
	t.Helper()
	good, err := exportTo(finishedRun(t, dir), filepath.Join(dir, "good.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	return good, b
}

// torchLoadDriver loads each file given (argv: a JSON list of paths) with posformer_torch's
// load, then runs its command line (`show FILE 2 3`) on it, in this one process, and prints a
// JSON line per file as soon as it is done: what load raised (the exception's type and message),
// the command's exit status and stderr, and how much the peak resident memory grew. One process
// for every case: importing torch takes seconds.
const torchLoadDriver = `
import contextlib, io, json, resource, sys, traceback
sys.path.insert(0, sys.argv[1])
import posformer_torch as pt
ExportError = getattr(pt, "ExportError", ())
for f in json.loads(sys.argv[2]):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    r = {}
    try:
        pt.load(f)
        r["raised"] = ""
    except Exception as e:
        r["raised"], r["message"] = type(e).__name__, str(e)
        if not isinstance(e, ExportError):
            r["message"] += "\n" + traceback.format_exc()
    sys.argv = ["posformer_torch.py", "show", f, "2", "3"]
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            pt.main()
            r["exit"] = 0
        except SystemExit as e:  # as the interpreter handles it: a string is printed, status 1
            r["exit"] = e.code if isinstance(e.code, int) else 1
            if isinstance(e.code, str):
                print(e.code, file=sys.stderr)
        except BaseException:
            r["exit"] = 1
            traceback.print_exc()
    r["stderr"] = err.getvalue()
    r["grew_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    print(json.dumps(r), flush=True)
`

// memCapKB is the address-space limit (ulimit -v) the loader runs under in these tests: room
// for PyTorch itself, far below what a crafted file's metadata asks for (tens of GB), so that an
// allocation it would make fails loudly instead of thrashing the machine.
const memCapKB = 4_000_000

// TestTorchLoadCraftedExports: every crafted export (a real export with one rule of the
// safetensors format or of docs/export.md broken: issue 28's finding 7) makes posformer_torch's
// load raise ExportError whose message is the exact line naming the file and the tensor or
// field, and `show` exit 1 with that line alone on stderr, before anything the file describes is
// allocated (the peak resident memory grows by less than 32 MB per file, under ulimit -v); the
// good export loads and shows. One Python process runs them all (torchLoadDriver).
func TestTorchLoadCraftedExports(t *testing.T) {
	needTorch(t)
	dir := t.TempDir()
	good, b := goodExport(t, dir)
	cases := craftedExports(t, b)
	files := []string{good}
	for i, c := range cases {
		f := filepath.Join(dir, fmt.Sprintf("crafted%02d.safetensors", i))
		if err := os.WriteFile(f, c.file, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	// Opened without waiting (a FIFO with no writer), and refused with the directory.
	fifo := filepath.Join(dir, "fifo.safetensors")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{fifo, dir} {
		cases = append(cases, craftedExport{name: filepath.Base(f), want: "not a regular file (a directory, FIFO or device)" + notExport})
		files = append(files, f)
	}
	abs, err := filepath.Abs(filepath.Dir(torchModule))
	if err != nil {
		t.Fatal(err)
	}
	out, stderr, _ := runCapped(t, torchPython, "-c", torchLoadDriver, abs, string(encodeJSON(t, files)))
	type result struct {
		Raised, Message, Stderr string
		Exit                    int
		GrewKB                  int `json:"grew_kb"`
	}
	var res []result
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var r result
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			break
		}
		res = append(res, r)
	}
	if len(res) != len(files) {
		t.Errorf("the driver answered %d results for %d files:\n%s", len(res), len(files), stderr)
	}
	if len(res) == 0 {
		t.FailNow()
	}
	if r := res[0]; r.Raised != "" || r.Exit != 0 || r.Stderr != "" {
		t.Fatalf("the good export: load raised %s %q; show exit %d, stderr %q", r.Raised, r.Message, r.Exit, r.Stderr)
	}
	grew := 0
	for i, c := range cases[:len(res)-1] {
		r, want := res[i+1], files[i+1]+": "+c.want
		if r.Raised != "ExportError" || r.Message != want {
			t.Errorf("%s: load raised %s %q\nwant ExportError %q", c.name, r.Raised, r.Message, want)
		}
		if r.Exit != 1 || r.Stderr != want+"\n" {
			t.Errorf("%s: show exit %d, stderr %q\nwant exit 1 and %q", c.name, r.Exit, r.Stderr, want)
		}
		if r.GrewKB > 32<<10 {
			t.Errorf("%s: the peak resident memory grew by %d MB while refusing it", c.name, r.GrewKB>>10)
		}
		grew = max(grew, r.GrewKB)
	}
	t.Logf("%d crafted files refused; the peak resident memory grew by at most %d kB for one (loading the good export: %d kB)", len(res)-1, grew, res[0].GrewKB)
}

// TestTorchShowCraftedProcess runs `posformer_torch.py show` as its own process (what a user
// runs) on the crafted exports whose metadata would have it allocate the most (d_model 200000:
// 160 GB before; 10^7 layers), on one the JSON reader got wrong (a list as header) and on a
// scheme it has no twin of (whose fix is to add one, not to export again): exit
// status 1, the one line alone on stderr, no traceback, and a peak resident memory under 512 MB,
// under ulimit -v.
func TestTorchShowCraftedProcess(t *testing.T) {
	needTorch(t)
	dir := t.TempDir()
	_, b := goodExport(t, dir)
	type proc struct{ file, want string }
	var procs []proc
	for _, c := range craftedExports(t, b) {
		switch c.name {
		case "d_model 200000", "10^7 layers", "a list as header", "a scheme without a PyTorch twin":
			f := filepath.Join(dir, strings.NewReplacer(" ", "_", "^", "e").Replace(c.name)+".safetensors")
			if err := os.WriteFile(f, c.file, 0o644); err != nil {
				t.Fatal(err)
			}
			procs = append(procs, proc{f, f + ": " + c.want})
		}
	}
	if len(procs) != 4 {
		t.Fatalf("%d of the 4 crafted exports found", len(procs))
	}
	for _, p := range procs {
		_, stderr, st := runCapped(t, torchPython, torchModule, "show", p.file, "2", "3")
		if st.ExitCode() != 1 || string(stderr) != p.want+"\n" {
			t.Errorf("show %s: exit %d, stderr %q\nwant exit 1 and %q", filepath.Base(p.file), st.ExitCode(), stderr, p.want)
		}
		peak := st.SysUsage().(*syscall.Rusage).Maxrss
		if peak > 512<<10 {
			t.Errorf("show %s: peak resident memory %d MB", filepath.Base(p.file), peak>>10)
		}
		t.Logf("show %s: refused, peak resident memory %d MB", filepath.Base(p.file), peak>>10)
	}
}

// runCapped runs a command under ulimit -v memCapKB with a 2-minute timeout and returns its
// stdout, stderr and state; a failure to run it at all, or the timeout, fails the test.
func runCapped(t *testing.T, name string, args ...string) (stdout, stderr []byte, st *os.ProcessState) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", append([]string{"-c", fmt.Sprintf(`ulimit -v %d && exec "$0" "$@"`, memCapKB), name}, args...)...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Errorf("%s %v: no answer in 2 minutes", name, args)
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return o.Bytes(), e.Bytes(), cmd.ProcessState
}
