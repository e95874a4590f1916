package train

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// damagedGolden is the error message of a damaged run file of one class, from
// testdata/damaged/<class>.golden, with the run directory in place of RUN.
func damagedGolden(t *testing.T, class, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "damaged", class+".golden"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(strings.TrimSuffix(string(b), "\n"), "RUN", dir)
}

// truncate cuts a file to half its size, as a copy stopped midway or a full disk leaves it.
func truncate(t *testing.T, path string) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, st.Size()/2); err != nil {
		t.Fatal(err)
	}
}

// TestDamagedRunFiles: a real run directory whose results.json, diagnostics.json or checkpoint
// is truncated gives, from the loader, the golden error of testdata/damaged: it names the file
// and says what to do.
func TestDamagedRunFiles(t *testing.T) {
	res, err := Run(context.Background(), tinyConfig(t, t.TempDir()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		class, file string
		load        func(dir string) error
	}{
		{"results_json", "results.json", func(dir string) error { _, err := ReadResult(dir); return err }},
		{"diagnostics_json", DiagnosticsFile, func(dir string) error { _, err := ReadDiagnostics(dir); return err }},
		{"checkpoint", "checkpoint.bin", func(dir string) error { _, err := LoadModel(dir); return err }},
	} {
		dir := filepath.Join(t.TempDir(), "run")
		if err := os.CopyFS(dir, os.DirFS(res.Dir)); err != nil {
			t.Fatal(err)
		}
		if err := c.load(dir); err != nil {
			t.Fatalf("%s: the undamaged copy: %v", c.class, err)
		}
		truncate(t, filepath.Join(dir, c.file))
		err := c.load(dir)
		if want := damagedGolden(t, c.class, dir); err == nil || err.Error() != want {
			t.Errorf("%s truncated:\n got: %v\nwant: %s", c.file, err, want)
		}
	}
}
