package setup

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/posformer/posformer/config"
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

// badDir holds the bad configs, below config: testdata/bad/*.yaml, each a malformed or
// inconsistent config whose error message is in the .golden file of the same name. cmd/train
// runs the same files through the CLI.
var badDir = "bad"

// badConfigs lists them.
func badConfigs(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(badDir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no bad configs in testdata/bad: %v", err)
	}
	return files
}

// TestBadConfigs reads every bad config as the CLI does, with config.Read (the data) then
// Check (what needs the model), and compares its error with the golden file (go test ./setup
// -run TestBadConfigs -update rewrites them). Each must fail with one line that starts with the
// file's name and names a field or the problem, at its line where the file wrote it.
func TestBadConfigs(t *testing.T) {
	// A memory error counts the cores (an evaluation's attention keeps a block per core): the
	// goldens are written for two.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	t.Chdir(filepath.Join("..", "config", "testdata")) // the bad configs name their files from there (two levels below the repository, as cmd/train)
	files := badConfigs(t)
	if len(files) < 30 {
		t.Errorf("only %d bad configs; the suite promises at least 30", len(files))
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		t.Run(name, func(t *testing.T) {
			c, _, err := config.Read(nil, file, nil)
			switch {
			case err == nil && len(c.Sweep) > 0:
				var cells []config.Cell
				if cells, err = config.Expand(c); err == nil {
					_, err = CheckGrid(c, cells)
				}
			case err == nil:
				_, err = Check(c)
			}
			if err == nil {
				t.Fatalf("%s loads without an error", file)
			}
			msg := goldenMessage(err, badDir+string(filepath.Separator))
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
				t.Fatalf("%v (run go test ./setup -run TestBadConfigs -update to write it)", err)
			}
			if got := msg + "\n"; got != string(want) {
				t.Errorf("error message changed:\n got: %s want: %s(go test ./setup -run TestBadConfigs -update rewrites the goldens)", got, want)
			}
		})
	}
}
