package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/posformer/posformer/inspect"
)

var updateInspect = flag.Bool("update", false, "rewrite the golden files of testdata/inspect")

// inspectFixture is a tiny finished run (copy, learned with 12 positions, 2 layers of 2 heads,
// float64, 500 steps; eval.examples 10 in batches of 4): config.yaml, checkpoint.bin and the
// files a run writes. It was trained by `train -config` on the config in its config.yaml.
var inspectFixture = filepath.Join("testdata", "inspect", "run")

// copyFixture copies the fixture run into a temporary directory (inspect writes into it).
func copyFixture(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(inspectFixture)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(inspectFixture, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, e.Name()), string(b))
	}
	return dir
}

// golden compares got with testdata/inspect/golden/name (rewritten with -update).
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "inspect", "golden", name)
	if *updateInspect {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, path, got)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from its golden file %s:\n%s", name, path, got)
	}
}

// TestInspectGolden runs `train inspect` on the fixture run at a length inside the training
// range (some examples right, some wrong) and one beyond it, with -examples = eval.examples: the
// text files match their golden copies, stdout is examples.txt plus the list of files, the
// exact match in examples.txt is results.csv's at that length, and the heatmaps decode as PNGs
// of the expected size (one per layer, with SVG twins).
func TestInspectGolden(t *testing.T) {
	run := copyFixture(t)
	results := resultsCSV(t, run)
	for _, L := range []int{3, 5} {
		var stdout bytes.Buffer
		// Flags after the run directory, and before it.
		args := []string{"inspect", run, "-length", strconv.Itoa(L), "-examples", "10"}
		if L == 5 {
			args = []string{"inspect", "-length", strconv.Itoa(L), "-examples", "10", run}
		}
		if err := run2(args, &stdout); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(run, "inspect", fmt.Sprintf("len-%d", L))
		ex, err := os.ReadFile(filepath.Join(out, "examples.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(stdout.String(), string(ex)) || !strings.Contains(stdout.String(), "wrote "+out) {
			t.Errorf("length %d: stdout is not examples.txt and the files written:\n%s", L, stdout.String())
		}
		text := strings.ReplaceAll(string(ex), run, "RUN_DIR")
		golden(t, fmt.Sprintf("len-%d/examples.txt", L), text)
		att, err := os.ReadFile(filepath.Join(out, "attention.csv"))
		if err != nil {
			t.Fatal(err)
		}
		golden(t, fmt.Sprintf("len-%d/attention.csv", L), string(att))

		m := regexp.MustCompile(`exact match (\d+)/(\d+) = `).FindStringSubmatch(text)
		matched := strings.Count(text, " matched\n")
		if m == nil || m[2] != "10" || strconv.Itoa(matched) != m[1] {
			t.Fatalf("length %d: examples.txt says %v but lists %d matched examples", L, m, matched)
		}
		if want := results[L]; float64(matched)/10 != want {
			t.Errorf("length %d: examples.txt matches %d/10, results.csv says %v", L, matched, want)
		}
		// attention.csv: layers × heads × T rows; the distance is at most T-1, the entropy at most ln T.
		rows, err := csv.NewReader(bytes.NewReader(att)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		T := 2 * L
		if len(rows) != 1+2*2*T {
			t.Fatalf("length %d: attention.csv has %d rows, want %d", L, len(rows), 1+2*2*T)
		}
		for layer := 1; layer <= 2; layer++ {
			for _, ext := range []string{".png", ".svg"} {
				path := filepath.Join(out, fmt.Sprintf("layer-%d%s", layer, ext))
				st, err := os.Stat(path)
				if err != nil || st.Size() < 1000 {
					t.Fatalf("%s: %v", path, err)
				}
			}
			f, err := os.Open(filepath.Join(out, fmt.Sprintf("layer-%d.png", layer)))
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(f)
			f.Close()
			if err != nil {
				t.Fatalf("layer %d: %v", layer, err)
			}
			// Two heads side by side (2 × 3.4 in) plus the legend, 3.6 in high, at 96 dpi.
			if b := img.Bounds(); b.Dy() != 346 || b.Dx() < 653 || b.Dx() > 1400 {
				t.Errorf("layer %d: heatmap is %v", layer, b)
			}
		}
	}
}

func run2(args []string, stdout *bytes.Buffer) error {
	return run(context.Background(), args, stdout, &bytes.Buffer{})
}

// resultsCSV reads a run's results.csv: exact match by length.
func resultsCSV(t *testing.T, dir string) map[int]float64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]float64{}
	for _, r := range rows[1:] {
		L, _ := strconv.Atoi(r[3])
		x, _ := strconv.ParseFloat(r[5], 64)
		out[L] = x
	}
	return out
}

// TestInspectErrors: a run directory without a finished checkpoint, a length the run's learned
// table cannot encode, an unknown flag and the other command-line mistakes each stop inspect
// with one line (golden, with the temporary directory written RUN_DIR), through inspect.Show
// where it is the loader's error, the CLI, and a real process (exit 1, nothing on stdout), and
// nothing is written.
func TestInspectErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string // RUN_DIR is replaced by the run directory
		broken func(t *testing.T, dir string)
		loader bool // inspect.Show gives the same error
	}{
		{name: "unfinished", args: []string{"RUN_DIR", "-length", "3"}, loader: true, broken: func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "results.json"))
		}},
		{name: "no_checkpoint", args: []string{"RUN_DIR", "-length", "3"}, loader: true, broken: func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "checkpoint.bin"))
		}},
		{name: "not_a_run", args: []string{"RUN_DIR/..", "-length", "3"}, loader: true},
		{name: "grid", args: []string{"RUN_DIR/..", "-length", "3"}, loader: true, broken: func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "..", "grid.yaml"), "sweep: {seed: [1]}\n")
		}},
		{name: "too_long_for_learned", args: []string{"RUN_DIR", "-length", "7"}, loader: true},
		{name: "zero_length", args: []string{"RUN_DIR", "-length", "0"}, loader: true},
		{name: "zero_examples", args: []string{"RUN_DIR", "-length", "3", "-examples", "0"}, loader: true},
		{name: "too_many_examples", args: []string{"RUN_DIR", "-length", "3", "-examples", "11"}, loader: true},
		{name: "unknown_variant", args: []string{"RUN_DIR/eval-nope", "-length", "3"}, loader: true},
		{name: "unknown_flag", args: []string{"RUN_DIR", "-length", "3", "-layer", "1"}},
		{name: "bad_flag_value", args: []string{"RUN_DIR", "-length", "three"}},
		{name: "no_length", args: []string{"RUN_DIR"}},
		{name: "no_run", args: []string{"-length", "3"}},
		{name: "two_runs", args: []string{"RUN_DIR", "RUN_DIR", "-length", "3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyFixture(t)
			if tc.broken != nil {
				tc.broken(t, dir)
			}
			args := []string{"inspect"}
			for _, a := range tc.args {
				args = append(args, strings.ReplaceAll(a, "RUN_DIR", dir))
			}
			norm := func(msg string) string {
				msg = strings.ReplaceAll(msg, filepath.Dir(dir), "TMP")
				return strings.ReplaceAll(msg, "TMP/run", "RUN_DIR")
			}
			err := runCaught(args...)
			if err == nil {
				t.Fatal("accepted")
			}
			msg := norm(err.Error())
			if strings.HasPrefix(msg, "PANIC") || strings.Contains(msg, "\n") {
				t.Fatalf("want one line, got:\n%s", msg)
			}
			golden(t, "errors/"+tc.name+".golden", msg+"\n")
			if tc.loader {
				L, _ := strconv.Atoi(args[3])
				n := 10
				if len(args) > 5 {
					n, _ = strconv.Atoi(args[5])
				}
				_, lerr := inspect.Show(context.Background(), args[1], L, n, nil)
				if lerr == nil || norm(lerr.Error()) != msg {
					t.Errorf("inspect.Show: %v; want %s", lerr, msg)
				}
			}
			if testing.Short() {
				return
			}
			stdout, stderr, code := runChild(t, args...)
			if code != 1 || stdout != "" || norm(stderr) != "train: "+msg+"\n" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and %q", code, stdout, stderr, "train: "+msg)
			}
			if _, err := os.Stat(filepath.Join(dir, "inspect")); err == nil {
				t.Error("a failed inspect wrote its directory")
			}
		})
	}
}

// TestInspectDefaultExamples: without -examples, inspect takes the default 16 examples or, when
// the run tested fewer (the fixture's eval.examples is 10), all of its test set, and says so;
// it never inspects examples beyond the set the run was scored on.
func TestInspectDefaultExamples(t *testing.T) {
	dir := copyFixture(t)
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"inspect", dir, "-length", "3"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	want := "length 3: the first 10 test examples of 10 (eval.examples)"
	if !strings.Contains(stdout.String(), want) {
		t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
	}
	if n := inspect.Examples(dir, 4); n != 4 {
		t.Errorf("inspect.Examples(dir, 4) = %d, want 4 (fewer than eval.examples)", n)
	}
}

// TestInspectCannotWrite: when RUN_DIR/inspect cannot be created (a file is in its way), inspect
// fails as a real process with one line naming the directory and what to do, and leaves the
// file alone.
func TestInspectCannotWrite(t *testing.T) {
	dir := copyFixture(t)
	inTheWay := writeFile(t, filepath.Join(dir, "inspect"), "mine\n")
	stdout, stderr, code := runChild(t, "inspect", dir, "-length", "3")
	oneLineError(t, "a file in the way", stderr, code, "inspect: cannot create "+filepath.Join(dir, "inspect", "len-3"), "move what is in its way")
	if stdout != "" {
		t.Errorf("stdout %q", stdout)
	}
	if b, _ := os.ReadFile(inTheWay); string(b) != "mine\n" {
		t.Error("the file in the way was changed")
	}
}
