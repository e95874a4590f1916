package train

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

var update = flag.Bool("update", false, "rewrite the golden error messages in testdata/bad/*.golden")

// knownList matches the "(known: a, b, c)" lists of an error. The goldens hold them as
// "(known: …)": schemes, tasks and fields are added often, and a golden file should change only
// when a message does. TestBadConfigs checks the lists are not empty.
var knownList = regexp.MustCompile(`\(known: [^)]+\)`)

// goldenMessage is an error as its golden file holds it: without the directory of the config
// and with the lists of known names elided.
func goldenMessage(err error, dir string) string {
	return knownList.ReplaceAllString(strings.ReplaceAll(err.Error(), dir, ""), "(known: …)")
}

// badConfigs lists testdata/bad/*.yaml, each a malformed or inconsistent config whose error
// message is in the .golden file of the same name. cmd/train runs the same files through the
// CLI.
func badConfigs(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "bad", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no bad configs in testdata/bad: %v", err)
	}
	return files
}

// TestBadConfigs loads every config of testdata/bad and compares its error with the golden file
// (go test ./train -run TestBadConfigs -update rewrites them). Each must fail with one line that
// starts with the file's name and names a field or the problem.
func TestBadConfigs(t *testing.T) {
	files := badConfigs(t)
	if len(files) < 30 {
		t.Errorf("only %d bad configs; the suite promises at least 30", len(files))
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		t.Run(name, func(t *testing.T) {
			_, err := ReadConfig(file, nil)
			if err == nil {
				t.Fatalf("%s loads without an error", file)
			}
			msg := goldenMessage(err, filepath.Join("testdata", "bad")+string(filepath.Separator))
			if strings.Contains(msg, "(known: )") {
				t.Errorf("the error lists no known names: %s", err)
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("the error has several lines:\n%s", msg)
			}
			if !strings.HasPrefix(msg, name+".yaml") {
				t.Errorf("the error %q does not start with the file's name", msg)
			}
			golden := strings.TrimSuffix(file, ".yaml") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(msg+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./train -run TestBadConfigs -update to write it)", err)
			}
			if got := msg + "\n"; got != string(want) {
				t.Errorf("error message changed:\n got: %s want: %s(go test ./train -run TestBadConfigs -update rewrites the goldens)", got, want)
			}
		})
	}
}

// oldGridYAML is a grid.yaml as posformer wrote it before lengths became omitempty: every unset
// field a zero, an unset eval.lengths an empty string.
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

// TestLoadReadsWrittenFiles: Load reads the files posformer writes, whose unset fields are
// zeros (and an older grid.yaml's unset eval.lengths an empty string), while ReadConfig, for
// files a person writes, rejects a written zero; a grid's encoding reads back to itself.
func TestLoadReadsWrittenFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "grid.yaml")
	if err := os.WriteFile(path, []byte(oldGridYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path, nil)
	if err != nil {
		t.Fatalf("Load of a grid.yaml posformer wrote: %v", err)
	}
	cells, err := Expand(c)
	if err != nil || len(cells) != 2 || cells[1].Config.Seed != 2 || cells[0].Config.Train.LR != 1e-3 || len(cells[0].Config.Eval.Lengths) != 12 {
		t.Fatalf("cells %+v, %v; want two cells with the defaults filled", cells, err)
	}
	if _, err := ReadConfig(path, nil); err == nil || !strings.Contains(err.Error(), "seed: 0 is not allowed") {
		t.Fatalf("ReadConfig of a file with written zeros: %v; want the explicit-zero error", err)
	}
	enc, _ := yaml.Marshal(c)
	if strings.Contains(string(enc), "lengths") {
		t.Errorf("an unset eval.lengths is written:\n%s", enc)
	}
	back, err := parse(enc, "grid.yaml", nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if enc2, _ := yaml.Marshal(back); string(enc2) != string(enc) {
		t.Errorf("the grid's encoding does not read back to itself:\n%s\nvs\n%s", enc, enc2)
	}
}
