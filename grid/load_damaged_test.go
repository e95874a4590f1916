package grid

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/internal/testutil"
	"github.com/posformer/posformer/rundir"
	"github.com/posformer/posformer/train"
)

// TestLoadDamagedRun: Load (what `train report` and `train claims` read) on a real run
// directory with a truncated results.json, metrics.jsonl (cut in its first line) or diagnostics.json gives the golden
// error of train/testdata/damaged, naming the file and what to do; a results.csv with a column
// missing is not read (results.json holds the same numbers) and changes nothing.
func TestLoadDamagedRun(t *testing.T) {
	cfg := testutil.TinyConfig(t, config.Read, t.TempDir())
	res, err := train.Run(context.Background(), cfg, train.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ class, file string }{
		{"results_json", "results.json"},
		{"metrics_jsonl", "metrics.jsonl"},
		{"diagnostics_json", rundir.DiagnosticsFile},
		{"", "results.csv"},
	} {
		dir := filepath.Join(t.TempDir(), "run")
		if err := os.CopyFS(dir, os.DirFS(res.Dir)); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, c.file)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if c.class == "" { // drop the last column of every row
			var lines []string
			for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				lines = append(lines, l[:strings.LastIndex(l, ",")])
			}
			b = []byte(strings.Join(lines, "\n") + "\n")
		} else if c.file == "metrics.jsonl" {
			b = b[:strings.IndexByte(string(b), '\n')/2] // half its first line
		} else {
			b = b[:len(b)/2]
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		g, err := Load(dir)
		if c.class == "" {
			if err != nil || g.Runs[0] == nil || !reflect.DeepEqual(g.Runs[0].Result.Lengths[7], res.Lengths[7]) {
				t.Errorf("results.csv without a column: %v; want the run loaded from results.json", err)
			}
			continue
		}
		want, rerr := os.ReadFile(filepath.Join("..", "train", "testdata", "damaged", c.class+".golden"))
		if rerr != nil {
			t.Fatal(rerr)
		}
		if w := strings.ReplaceAll(strings.TrimSuffix(string(want), "\n"), "RUN", dir); err == nil || err.Error() != w {
			t.Errorf("%s truncated:\n got: %v\nwant: %s", c.file, err, w)
		}
	}
}
