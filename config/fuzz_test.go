package config

import (
	"bytes"
	"io/fs"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/posformer/posformer/configs"
	"github.com/posformer/posformer/internal/presence"
	"github.com/posformer/posformer/internal/testutil"
	"go.yaml.in/yaml/v3"
)

// FuzzConfig feeds arbitrary bytes to the config loader and validator (Parse: strict decoding,
// defaults, every check, a grid's expansion). Whatever the input, Parse must not panic and a
// rejection must be one line. An accepted config must survive the trip a run makes through its
// resolved config.yaml (a grid through its grid.yaml): encoded and read back as Load reads those
// files, it is accepted, equal, and encodes to the same bytes.
//
// The seeds are every shipped config and every config of testdata/bad. CI runs it for a bounded
// time (.ci/run): go test ./config -run '^$' -fuzz '^FuzzConfig$' -fuzztime 45s
func FuzzConfig(f *testing.F) {
	names, err := fs.Glob(configs.FS, "*.yaml")
	if err != nil || len(names) == 0 {
		f.Fatalf("no shipped configs: %v", err)
	}
	for _, name := range names {
		src, err := configs.FS.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	for _, file := range badConfigs(f) {
		src, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Add([]byte(testutil.Minimal))
	f.Add([]byte(testutil.Minimal + "  variants:\n    - {name: ntk, when: [position.kind=rope], rope_scaling: ntk}\n"))
	f.Add([]byte(strings.Replace(testutil.Minimal, "  batch_size: 4\n", "  batch_size: 4\n  early_stop: {patience: 2, min_delta: 0.01, target: 0.99, metric: token_accuracy}\n", 1)))
	f.Fuzz(func(t *testing.T, src []byte) {
		// Validating a grid validates every cell: a grid of thousands of cells is valid and
		// merely slow, so the fuzzer leaves it to TestShippedConfigs and the grid tests.
		var pre Config
		if Decode(src, "fuzz.yaml", &pre) == nil {
			cells := 1
			for _, ax := range pre.Sweep {
				cells *= len(ax.Values)
				if cells > 16 {
					return
				}
			}
		}
		c, _, err := Read(src, "fuzz.yaml", nil)
		if err != nil {
			if msg := err.Error(); strings.Contains(msg, "\n") || msg == "" {
				t.Fatalf("the error is not one line: %q", msg)
			}
			return
		}
		encode := yaml.Marshal
		if len(c.Sweep) > 0 {
			encode = func(v any) ([]byte, error) { return MarshalGrid(v.(Config)) }
		}
		enc, err := encode(c)
		if err != nil {
			t.Fatalf("an accepted config does not encode: %v", err)
		}
		back, _, err := parse(enc, "resolved.yaml", nil, written) // as grid.Load and train.LoadModel read it back
		if err != nil {
			t.Fatalf("an accepted config, encoded, is rejected: %v\n%s", err, enc)
		}
		if len(c.Sweep) == 0 && !reflect.DeepEqual(withoutPresence(c), withoutPresence(back)) {
			t.Fatalf("the config changed in a round trip:\n%+v\n%+v", c, back)
		}
		enc2, err := encode(back)
		if err != nil || !bytes.Equal(enc, enc2) {
			t.Fatalf("encoding is not stable (%v):\n%s\nvs\n%s", err, enc, enc2)
		}
	})
}

// withoutPresence is c without its records of written keys (a resolved config read back has
// every key written).
func withoutPresence(c Config) Config {
	c.Written, c.Model.Written = presence.Keys{}, presence.Keys{}
	c.origin = nil          // where it was read from
	c.Position = Position{} // compared by its encoding
	return c
}
