package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/posformer/posformer/internal/testutil"
	"go.yaml.in/yaml/v3"
)

// TestDamagedRunConfig: a run's config.yaml cut short (before its eval: section, or inside a
// line) or changed into something that does not read is refused by ReadWritten as damaged,
// naming the file and what to do (testdata/damaged/config_yaml.golden), not read as another
// config; the file whole reads back.
func TestDamagedRunConfig(t *testing.T) {
	c := testutil.TinyConfig(t, Read, t.TempDir())
	whole, err := yaml.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	run := t.TempDir()
	path := filepath.Join(run, "config.yaml")
	write := func(b []byte) {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(whole)
	if _, _, err := ReadWritten(path); err != nil {
		t.Fatalf("the whole file: %v", err)
	}
	golden, err := os.ReadFile(filepath.Join("testdata", "damaged", "config_yaml.golden"))
	if err != nil {
		t.Fatal(err)
	}
	cut := whole[:strings.Index(string(whole), "\neval:")+1]
	write(cut)
	_, _, err = ReadWritten(path)
	if want := strings.ReplaceAll(strings.TrimSuffix(string(golden), "\n"), "RUN", run); err == nil || err.Error() != want || !errors.Is(err, ErrDamaged) {
		t.Errorf("cut before eval:\n got: %v\nwant: %s", err, want)
	}
	for what, b := range map[string][]byte{
		"cut inside a line": whole[:strings.Index(string(whole), "beta1")+3],
		"not YAML":          []byte("seed: [\n"),
		"a bad value":       []byte(strings.Replace(string(whole), "steps: 20", "steps: -3", 1)),
	} {
		write(b)
		_, _, err := ReadWritten(path)
		if err == nil || !errors.Is(err, ErrDamaged) || !strings.HasPrefix(err.Error(), path+" is damaged (") || !strings.Contains(err.Error(), "restore it, or train the run again") {
			t.Errorf("%s: %v", what, err)
		}
	}
}
