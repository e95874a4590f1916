package claims

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// exportDir holds claims files whose -export would write over an input or an output
// (testdata/export/*.yaml, each with its golden message; grid.yaml is their grids' config).
var exportDir = filepath.Join("testdata", "export")

// TestExportOverwritesRefused: a table's csv: naming the claims file, its grid config, the
// document, the paper's numbers, a file under -runs, a csv another table reads, or the csv of
// another exported table is refused with its golden line (file:line: tables[i].csv), and a
// csv: of its own is accepted.
func TestExportOverwritesRefused(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(exportDir, "*.yaml"))
	if len(files) < 8 {
		t.Fatalf("want 7 claims files and the grid, found %d", len(files))
	}
	for _, p := range files {
		if filepath.Base(p) == "grid.yaml" {
			continue
		}
		f, err := Load(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		err = CheckExports([]*File{f}, filepath.Join(exportDir, "runs"), nil)
		if err == nil {
			t.Errorf("%s: accepted", p)
			continue
		}
		golden := strings.TrimSuffix(p, ".yaml") + ".golden"
		if *update {
			os.WriteFile(golden, []byte(err.Error()+"\n"), 0o644)
		}
		if want, _ := os.ReadFile(golden); err.Error()+"\n" != string(want) {
			t.Errorf("got:  %s\nwant: %s", err, want)
		}
		if !strings.Contains(err.Error(), ".csv: ") || !strings.Contains(err.Error(), "give the table a csv: of its own") {
			t.Errorf("%s: the message names no field or no fix: %s", p, err)
		}
	}
	// its own csv: accepted; the same csv: under a -runs elsewhere too
	f, err := Load(filepath.Join(exportDir, "runs.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckExports([]*File{f}, t.TempDir(), nil); err != nil {
		t.Errorf("a csv: outside -runs: %v", err)
	}
	// a csv: that is an output named by the caller (the shipped index)
	f.Tables[0].CSV = filepath.Join(exportDir, "README.md")
	if err := CheckExports([]*File{f}, t.TempDir(), []string{filepath.Join(exportDir, "README.md")}); err == nil || !strings.Contains(err.Error(), "this command writes") {
		t.Errorf("a csv: naming the index: %v", err)
	}
	// a csv: reaching the claims file through a symbolic link is the claims file
	self, _ := Load(filepath.Join(exportDir, "self.yaml"))
	link := filepath.Join(t.TempDir(), "link.csv")
	abs, _ := filepath.Abs(self.Path)
	os.Symlink(abs, link)
	self.Tables[0].CSV = link
	if err := CheckExports([]*File{self}, t.TempDir(), nil); err == nil || !strings.Contains(err.Error(), "is the claims file") {
		t.Errorf("a csv: linked to the claims file: %v", err)
	}
}
