package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// badConfigs lists testdata/bad/*.yaml, each a malformed or inconsistent config whose error
// message is in the .golden file of the same name: package setup's TestBadConfigs reads each
// through the loader and the model's checks, cmd/train through the CLI; the fuzzer here starts
// from them.
func badConfigs(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "bad", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no bad configs in testdata/bad: %v", err)
	}
	return files
}

// oldGridYAML is a grid.yaml as posformer wrote it before grid.yaml recorded presence: every
// unset field a zero, an unset eval.lengths an empty string.
const oldGridYAML = `seed: 0
task:
    name: copy
    min_len: 1
    max_len: 3
model:
    d_model: 16
    heads: 2
    layers: 1
    d_ff: 32
    dtype: ""
position:
    kind: rope
train:
    steps: 5
    batch_size: 4
    lr: 0
    warmup_steps: 0
    min_lr_ratio: 0
    beta1: 0
    beta2: 0
    eps: 0
    weight_decay: 0
    grad_clip: 0
    log_every: 0
    val_every: 0
    val_examples: 0
    checkpoint_every: 0
eval:
    lengths: ""
    examples: 8
    batch_size: 0
sweep:
    seed: [1, 2]
`

// TestLoadReadsWrittenFiles: Load reads a grid.yaml an earlier posformer wrote, whose unset
// fields are zeros, as the grid it was (the zeros take the defaults), while the same keys written
// by a person are kept and refused; the grid's new encoding (MarshalGrid) holds only the keys
// written and reads back to itself.
func TestLoadReadsWrittenFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "grid.yaml")
	if err := os.WriteFile(path, []byte(oldGridYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	c, _, err := ReadWritten(path)
	if err != nil {
		t.Fatalf("Load of a grid.yaml posformer wrote: %v", err)
	}
	cells, err := Expand(c)
	if err != nil || len(cells) != 2 || cells[1].Config.Seed != 2 || cells[0].Config.Train.LR != 1e-3 || len(cells[0].Config.Eval.Lengths) != 12 {
		t.Fatalf("cells %+v, %v; want two cells with the defaults filled", cells, err)
	}
	if _, _, err := Read(nil, path, nil); err == nil || !strings.Contains(err.Error(), `eval.lengths: empty item`) {
		t.Fatalf("Read of a file with written zeros: %v; want the written empty eval.lengths refused", err)
	}
	enc, err := MarshalGrid(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, unset := range []string{"lengths", "lr:", "seed: 0", "dtype"} {
		if strings.Contains(string(enc), unset) {
			t.Errorf("an unset %s is written:\n%s", unset, enc)
		}
	}
	back := filepath.Join(t.TempDir(), "grid.yaml")
	if err := os.WriteFile(back, enc, 0o644); err != nil {
		t.Fatal(err)
	}
	c2, _, err := ReadWritten(back)
	if err != nil {
		t.Fatal(err)
	}
	if enc2, _ := MarshalGrid(c2); string(enc2) != string(enc) {
		t.Errorf("the grid's encoding does not read back to itself:\n%s\nvs\n%s", enc, enc2)
	}
}
