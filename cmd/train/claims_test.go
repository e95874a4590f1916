package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// claimsBad holds the bad claims files and their golden messages (claims/testdata/bad; `go test
// ./claims -run TestBadClaimsFiles -update` rewrites them).
var claimsBad = filepath.Join("..", "..", "claims", "testdata", "bad")

// claimsGolden is a CLI error as the golden files hold it: without the command's prefix and
// suffix, and with paths as seen from claims/.
func claimsGolden(msg string) string {
	msg = strings.TrimSuffix(strings.TrimPrefix(msg, "claims: "), "; nothing was written")
	return strings.ReplaceAll(strings.ReplaceAll(msg, filepath.Join("..", "..", "claims")+string(filepath.Separator), ""),
		filepath.Join("..", "..", "configs"), filepath.Join("..", "configs"))
}

// TestClaimsBadCLI: every bad claims file through the CLI's entry point fails with its golden
// line, and nothing is written (no document beside the file).
func TestClaimsBadCLI(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(claimsBad, "*.yaml"))
	if len(files) < 12 {
		t.Fatalf("want at least 12 bad claims files, found %d", len(files))
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			err := runCaught("claims", file)
			if err == nil {
				t.Fatal("accepted")
			}
			want, _ := os.ReadFile(strings.TrimSuffix(file, ".yaml") + ".golden")
			if got := claimsGolden(err.Error()); got+"\n" != string(want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("got:  %s\nwant: %s", got, want)
			}
			if _, err := os.Stat(strings.TrimSuffix(file, ".yaml") + ".md"); err == nil {
				t.Error("a document was written")
			}
		})
	}
}

// TestClaimsBadExitStatus: the same as real processes: exit 1, one line "train: claims: ...",
// nothing on stdout.
func TestClaimsBadExitStatus(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process per bad claims file")
	}
	files, _ := filepath.Glob(filepath.Join(claimsBad, "*.yaml"))
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			stdout, stderr, code := runChild(t, "claims", file)
			want, _ := os.ReadFile(strings.TrimSuffix(file, ".yaml") + ".golden")
			if code != 1 || stdout != "" || !strings.HasPrefix(stderr, "train: claims: ") || strings.Count(stderr, "\n") != 1 ||
				claimsGolden(strings.TrimSuffix(strings.TrimPrefix(stderr, "train: "), "\n"))+"\n" != string(want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and %q", code, stdout, stderr, want)
			}
		})
	}
}

const claimsGrid = `name: mine
task: {name: copy, min_len: 1, max_len: 4}
model: {d_model: 16, heads: 2, layers: 1, d_ff: 32}
train: {steps: 2, batch_size: 4, val_every: 0}
eval: {lengths: "1..8", examples: 4}
sweep:
  position.kind: [alibi, none]
  seed: [1, 2]
`

const claimsFile = `title: mine
tables:
  - {name: t, csv: mine.csv, grid: mygrid.yaml}
statistic: {metric: token_accuracy, past_training: 2, learned: 0}
claims:
  - {id: r, kind: ranking, a: {task: copy, scheme: alibi}, b: {task: copy, scheme: none}}
`

// TestClaimsExport: a grid trained by the grid command is exported to its table and judged; then
// what is not the grid it claims to be, or not finished, is refused without writing anything
// (issue 28 findings 3 and 4), and claims never trains or writes under -runs.
func TestClaimsExport(t *testing.T) {
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	cfg := writeFile(t, filepath.Join(dir, "mygrid.yaml"), claimsGrid) // name: mine: trained to runs/mine
	file := writeFile(t, filepath.Join(dir, "mine-claims.yaml"), claimsFile)
	if err := run(context.Background(), []string{"-config", cfg, "-out", runs, "-jobs", "2"}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	snapshot := func() map[string]string {
		m := map[string]string{}
		filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
			if err == nil && !info.IsDir() {
				b, _ := os.ReadFile(p)
				m[p] = string(b)
			}
			return nil
		})
		return m
	}
	runsBefore := snapshot()
	for p := range runsBefore {
		if !strings.HasPrefix(p, runs) {
			delete(runsBefore, p)
		}
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"claims", "-export", "-runs", runs, file}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	csvPath, doc := filepath.Join(dir, "mine.csv"), filepath.Join(dir, "mine-claims.md")
	table, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(table, []byte("\n")); n != 1+4*8 {
		t.Errorf("the table has %d lines, want a header and 4 runs × 8 lengths", n)
	}
	md, _ := os.ReadFile(doc)
	if !bytes.Contains(md, []byte("| copy: alibi > none |")) || !strings.Contains(out.String(), "mine-claims.md: ") {
		t.Errorf("document:\n%s\nstdout: %s", md, out.String())
	}
	// the grid's set-up in words, each count agreeing with its noun (it said "1 layers")
	if want := "4 runs (2 cells × 2 seeds): 1 layer, d_model 16, 2 heads, d_ff 32; 2 steps of 4 sequences"; !bytes.Contains(md, []byte(want)) {
		t.Errorf("the document does not describe the grid as %q:\n%s", want, md)
	}
	refused := func(what string, args []string, wants ...string) {
		t.Helper()
		before := snapshot()
		err := runCaught(args...)
		if err == nil {
			t.Fatalf("%s: accepted", what)
		}
		for _, w := range wants {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", what, err, w)
			}
		}
		after := snapshot()
		for p, b := range before {
			if after[p] != b {
				t.Errorf("%s: %s changed", what, p)
			}
		}
		if len(after) != len(before) {
			t.Errorf("%s: %d files before, %d after", what, len(before), len(after))
		}
	}
	export := []string{"claims", "-export", "-runs", runs, file}
	refused("-runs ''", []string{"claims", "-export", "-runs", "", file}, "-runs is empty")
	refused("-runs a file", []string{"claims", "-export", "-runs", cfg, file}, "-runs "+cfg+" is not a directory", "e.g. -runs runs")
	_, stderr, code := runChild(t, "claims", "-export", "-runs", cfg, file)
	oneLineError(t, "-runs a file", stderr, code, "train: claims: -runs "+cfg+" is not a directory")
	if strings.Contains(stderr, "-out "+cfg) {
		t.Errorf("-runs a file: the advice trains into the file: %s", stderr)
	}

	// a results.json copied from another cell: its own name says so
	cellA := filepath.Join(runs, "mine", "position.kind-alibi__seed-1")
	cellB := filepath.Join(runs, "mine", "position.kind-none__seed-1")
	keep, _ := os.ReadFile(filepath.Join(cellB, "results.json"))
	copyFile(t, filepath.Join(cellA, "results.json"), filepath.Join(cellB, "results.json"))
	refused("a copied results.json", export, "results.json names the run", "position.kind-none__seed-1")
	// a crafted score
	var res map[string]any
	json.Unmarshal(keep, &res)
	res["lengths"].([]any)[0].(map[string]any)["exact_match"] = 7.5
	crafted, _ := json.Marshal(res)
	os.WriteFile(filepath.Join(cellB, "results.json"), crafted, 0o644)
	refused("exact match 7.5", export, "out of range")
	os.WriteFile(filepath.Join(cellB, "results.json"), keep, 0o644)

	// grid.yaml edited by hand: not what trained
	gridYAML := filepath.Join(runs, "mine", "grid.yaml")
	g, _ := os.ReadFile(gridYAML)
	os.WriteFile(gridYAML, bytes.Replace(g, []byte("steps: 2"), []byte("steps: 3000"), 1), 0o644)
	refused("an edited grid.yaml", export, "is not the grid of", "3000")
	os.WriteFile(gridYAML, g, 0o644)

	// a run missing: refused, and not trained again
	os.Rename(cellB, cellB+".away")
	refused("a missing run", export, "1 of 4 runs missing", "-resume")
	if _, err := os.Stat(cellB); err == nil {
		t.Error("claims trained the missing run")
	}
	os.Rename(cellB+".away", cellB)

	// the document cannot be written: nothing is, the table included
	os.Remove(doc)
	os.Mkdir(doc, 0o755)
	os.WriteFile(filepath.Join(doc, "x"), nil, 0o644)
	os.WriteFile(csvPath, []byte("stale but valid? no: replaced only with the document\n"), 0o644)
	refused("a document path that is a directory", export, "mine-claims.md", "nothing was written")
	os.RemoveAll(doc)
	os.WriteFile(csvPath, table, 0o644)

	// no grid under -runs: the table is kept as it is, the document judged from it
	var errOut bytes.Buffer
	if err := run(context.Background(), []string{"claims", "-export", "-runs", filepath.Join(dir, "elsewhere"), file}, io.Discard, &errOut); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(csvPath); !bytes.Equal(got, table) || !strings.Contains(errOut.String(), "keeps") {
		t.Errorf("without its grid the table changed, or stderr does not say it is kept: %s", errOut.String())
	}
	for p, b := range runsBefore {
		if now, _ := os.ReadFile(p); string(now) != b {
			t.Errorf("claims changed %s under -runs", p)
		}
	}
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestClaimsDivergedRun: grid cells that diverged (lr 1000: the loss explodes) are exported as
// diverged (diverged_step in the table) and the claims document shows them as diverged, never as
// numbers, their claims untested (issue 28 finding 6).
func TestClaimsDivergedRun(t *testing.T) {
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	cfg := writeFile(t, filepath.Join(dir, "dv.yaml"), `name: dv
task: {name: copy, min_len: 1, max_len: 4}
model: {d_model: 16, heads: 2, layers: 1, d_ff: 32}
train: {steps: 20, batch_size: 4, val_every: 0}
eval: {lengths: "1..6", examples: 8}
sweep:
  position.kind: [alibi, none]
  train.lr: [0.003, 1000]
  seed: [1, 2]
`)
	file := writeFile(t, filepath.Join(dir, "dv-claims.yaml"), `title: dv
tables: [{name: t, csv: dv.csv, grid: dv.yaml, variants: swept, summary: true}]
statistic: {metric: token_accuracy, past_training: 0, learned: 0}
claims:
  - {id: ok, kind: ranking, a: {task: copy, scheme: alibi, variant: train.lr=0.003}, b: {task: copy, scheme: none, variant: train.lr=0.003}}
  - {id: dv, kind: ranking, a: {task: copy, scheme: alibi, variant: train.lr=1000}, b: {task: copy, scheme: none, variant: train.lr=1000}}
  - {id: mix, kind: ranking, a: {task: copy, scheme: alibi, variant: train.lr=0.003}, b: {task: copy, scheme: alibi, variant: train.lr=1000}}
`)
	if err := run(context.Background(), []string{"-config", cfg, "-out", runs, "-jobs", "2"}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := runCaught("claims", "-export", "-runs", runs, file); err != nil {
		t.Fatal(err)
	}
	table, _ := os.ReadFile(filepath.Join(dir, "dv.csv"))
	if !bytes.Contains(table, []byte("copy,alibi,train.lr=1000,1,1,true,0,0,0,1000,20,0,0,1,4,")) {
		t.Errorf("the diverged run's rows:\n%s", table)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "dv-claims.md"))
	// the healthy side against the diverged one: every number that depends on the diverged side
	// (B, A − B, the opening table's ours) is "diverged (seed s at step n)"; A keeps its number
	mix := regexp.MustCompile(`(?m)^\| copy: alibi \(train\.lr=0\.003\) > alibi \(train\.lr=1000\) \| – \| (.*) \| untested \(alibi \(train\.lr=1000\) diverged: seed 1 at step \d+, seed 2 at step \d+\) \|$`)
	div := `diverged \(seed 1 at step \d+, seed 2 at step \d+\)`
	opening, detail := regexp.MustCompile(`^`+div+`$`), regexp.MustCompile(`^\d\.\d{3}, `+div+` \| `+div+`$`)
	if m := mix.FindAllStringSubmatch(string(md), -1); len(m) != 2 || !opening.MatchString(m[0][1]) || !detail.MatchString(m[1][1]) {
		t.Errorf("the healthy-against-diverged claim's rows (opening, detail) show numbers for the diverged side: %q\n%s", m, md)
	}
	for _, line := range strings.Split(string(md), "\n") {
		switch {
		case strings.HasPrefix(line, "| copy: alibi (train.lr=1000) > none (train.lr=1000) |"):
			if !strings.Contains(line, "| untested (alibi (train.lr=1000) diverged: seed 1 at step") {
				t.Errorf("the diverged cells' claim: %s", line)
			}
		case strings.HasPrefix(line, "| copy | alibi | train.lr=1000 |"), strings.HasPrefix(line, "| t | copy | alibi (train.lr=1000) |"):
			if !strings.Contains(line, "diverged") || strings.Contains(line, "0.000") {
				t.Errorf("a diverged cell shown as numbers: %s", line)
			}
		case strings.HasPrefix(line, "| copy: alibi (train.lr=0.003) > none (train.lr=0.003) |"):
			if strings.Contains(line, "diverged") {
				t.Errorf("the healthy cells' claim: %s", line)
			}
		}
	}
	if !bytes.Contains(md, []byte("| copy: alibi (train.lr=1000) > none (train.lr=1000) |")) {
		t.Errorf("no claim row for the diverged cells:\n%s", md)
	}
}

// TestClaimsKeepsHandWritten: `train claims dir/README.yaml` beside a hand-written dir/README.md
// is refused with the golden line (claims/testdata/handwritten/README.golden), through run and as
// a process (exit 1, one line), and README.md is left as it was.
func TestClaimsKeepsHandWritten(t *testing.T) {
	src := filepath.Join("..", "..", "claims", "testdata")
	want, _ := os.ReadFile(filepath.Join(src, "handwritten", "README.golden"))
	copyOf := func() (dir, yaml string, page []byte) {
		dir = t.TempDir()
		for _, f := range []string{"handwritten/README.yaml", "handwritten/README.md", "tiny.csv"} {
			b, err := os.ReadFile(filepath.Join(src, f))
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644)
		}
		page, _ = os.ReadFile(filepath.Join(dir, "README.md"))
		return dir, filepath.Join(dir, "README.yaml"), page
	}
	kept := func(dir string, page []byte) {
		if got, _ := os.ReadFile(filepath.Join(dir, "README.md")); string(got) != string(page) {
			t.Errorf("README.md was replaced:\n%s", got)
		}
	}
	dir, yaml, page := copyOf()
	err := runCaught("claims", yaml)
	if err == nil || strings.ReplaceAll(claimsGolden(err.Error()), dir, "DIR")+"\n" != string(want) {
		t.Errorf("got:  %v\nwant: %s", err, want)
	}
	kept(dir, page)
	if testing.Short() {
		return
	}
	dir, yaml, page = copyOf()
	stdout, stderr, code := runChild(t, "claims", yaml)
	if code != 1 || stdout != "" || strings.Count(stderr, "\n") != 1 ||
		strings.ReplaceAll(claimsGolden(strings.TrimSuffix(strings.TrimPrefix(stderr, "train: "), "\n")), dir, "DIR")+"\n" != string(want) {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and %q", code, stdout, stderr, want)
	}
	kept(dir, page)
}

// TestClaimsExportLM: a grid of language models (the lm task on the small test corpus: alibi,
// and rope with its dynamic_ntk and yarn evaluation variants, 2 seeds) exported by claims -export: each row
// carries its run's bits per byte of both kinds from results.json, a context shorter than the
// training windows is in range, and change_from_training claims in either kind are judged
// from the table (issue 27 point 5).
func TestClaimsExportLM(t *testing.T) {
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	// with dynamic_ntk's factor set by a variant, as configs/press2022.yaml does (report and
	// export refused its runs as trained by another config: position.rope_factor (2 → unset))
	grid := strings.Replace(lmTinyConfig, "    - {name: yarn,", "    - {name: dynamic_ntk, when: [position.kind=rope], rope_scaling: dynamic_ntk, rope_factor: 2}\n    - {name: yarn,", 1)
	cfg := writeFile(t, filepath.Join(dir, "lmgrid.yaml"), "name: lmgrid\n"+grid+"sweep:\n  position: [{kind: alibi}, {kind: rope}]\n  seed: [1, 2]\n")
	file := writeFile(t, filepath.Join(dir, "lm-claims.yaml"), `title: lm
tables: [{name: t, csv: lm.csv, grid: lmgrid.yaml}]
statistic: {metric: bits_per_byte, past_training: 0, learned: 20}
claims:
  - {id: c, kind: change_from_training, a: {task: lm, scheme: alibi}, at_most: 0}
  - id: s
    kind: change_from_training
    a: {task: lm, scheme: rope, variant: "rope_scaling=yarn,eval=yarn"}
    at_least: 0
    statistic: {metric: sliding_bits_per_byte}
`)
	if err := run(context.Background(), []string{"-config", cfg, "-out", runs, "-jobs", "2"}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := run(context.Background(), []string{"claims", "-export", "-runs", runs, file}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	table, err := os.ReadFile(filepath.Join(dir, "lm.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(table)), "\n")
	if len(lines) != 1+2*4*3 || !strings.HasSuffix(lines[0], ",bits_per_byte,sliding_bits_per_byte") {
		t.Fatalf("want a header with the bits-per-byte columns and 2 seeds × (alibi, rope, rope dynamic_ntk, rope yarn) × 3 lengths:\n%s", table)
	}
	res, err := os.ReadFile(filepath.Join(runs, "lmgrid", "position-alibi__seed-2", "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Lengths []struct {
			Length              int
			InRange             bool    `json:"in_range"`
			BitsPerByte         float64 `json:"bits_per_byte"`
			SlidingBitsPerBytes float64 `json:"sliding_bits_per_byte"`
		}
	}
	json.Unmarshal(res, &r)
	if len(r.Lengths) != 3 {
		t.Fatalf("results.json: %s", res)
	}
	for _, l := range r.Lengths {
		want := fmt.Sprintf("lm,alibi,,2,%d,%v,", l.Length, l.InRange)
		tail := fmt.Sprintf(",%s,%s", strconv.FormatFloat(l.BitsPerByte, 'g', -1, 64), strconv.FormatFloat(l.SlidingBitsPerBytes, 'g', -1, 64))
		if !slices.ContainsFunc(lines, func(s string) bool { return strings.HasPrefix(s, want) && strings.HasSuffix(s, tail) }) {
			t.Errorf("no row %s...%s in the table:\n%s", want, tail, table)
		}
		if l.Length == 8 && !l.InRange {
			t.Errorf("context 8 of a model trained on windows of 16 is not in range")
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, "lm-claims.md"))
	for _, want := range []string{"| lm: alibi, bits per byte at each length 32..32 minus at 16 ≤ 0 |",
		"| lm: rope (rope_scaling=yarn,eval=yarn), sliding bits per byte at each length 32..32 minus at 16 ≥ 0 |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("the document has no row %q:\n%s", want, md)
		}
	}
}

// TestClaimsNoPairSaid: a paper_order claim with no pair to judge is counted untested with its
// reason, through the CLI and as a real process, and a document written outside the project
// states the verdict rules it links (issue 35).
func TestClaimsNoPairSaid(t *testing.T) {
	dir := t.TempDir()
	tiny, err := filepath.Abs(filepath.Join("..", "..", "claims", "testdata", "tiny.csv"))
	if err != nil {
		t.Fatal(err)
	}
	file := writeFile(t, filepath.Join(dir, "tie.yaml"), "title: tie\ntables: [{name: t, csv: "+tiny+"}]\n"+
		"statistic: {metric: exact_match, past_training: 2, learned: 0.9}\n"+
		"claims: [{id: o, kind: paper_order, cells: [{task: copy, scheme: kerple, paper_value: 0.4}, {task: copy, scheme: alibi, paper_value: 0.4}]}]\n")
	doc := filepath.Join(dir, "tie.md")
	check := func(how, stdout string) {
		t.Helper()
		md, _ := os.ReadFile(doc)
		for _, want := range []string{"| copy: the paper's order of kerple, alibi | – | – | untested (no two of its cells have paper numbers that differ over the claim's lengths) |",
			"The verdict rules: [below](#how-verdicts-are-reached).", "\n## How verdicts are reached\n"} {
			if !strings.Contains(string(md), want) {
				t.Errorf("%s: the document lacks %q:\n%s", how, want, md)
			}
		}
		if !strings.Contains(stdout, "tie.md: 0 reproduced, 0 contradicted, 0 inconclusive, 1 untested") {
			t.Errorf("%s: stdout %q, want the claim counted untested", how, stdout)
		}
		os.Remove(doc)
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"claims", file}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	check("CLI", out.String())
	stdout, stderr, code := runChild(t, "claims", file)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	check("process", stdout)
}

// TestClaimsExportNeverOverwrites: `claims -export` whose table csv: names an input (the claims
// file, the grid config, the paper's numbers, a csv another table reads), an output (the
// document, another exported table's csv) or a file under -runs fails with the golden line of
// claims/testdata/export, through run and as a process (exit 1, one line), and writes nothing;
// two claims files of one document (cl.yaml, cl.yml) are refused as such.
func TestClaimsExportNeverOverwrites(t *testing.T) {
	src := filepath.Join("..", "..", "claims", "testdata", "export")
	runs := filepath.Join(src, "runs")
	files, _ := filepath.Glob(filepath.Join(src, "*.yaml"))
	before := snapshotDir(t, src)
	for _, file := range files {
		if filepath.Base(file) == "grid.yaml" {
			continue
		}
		want, _ := os.ReadFile(strings.TrimSuffix(file, ".yaml") + ".golden")
		err := runCaught("claims", "-export", "-runs", runs, file)
		if err == nil || claimsGolden(err.Error())+"\n" != string(want) {
			t.Errorf("%s: got %v\nwant %s", file, err, want)
		}
		if testing.Short() {
			continue
		}
		stdout, stderr, code := runChild(t, "claims", "-export", "-runs", runs, file)
		if code != 1 || stdout != "" || strings.Count(stderr, "\n") != 1 ||
			claimsGolden(strings.TrimSuffix(strings.TrimPrefix(stderr, "train: "), "\n"))+"\n" != string(want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 1 and %q", file, code, stdout, stderr, want)
		}
	}
	if after := snapshotDir(t, src); !maps.Equal(before, after) {
		t.Errorf("a refused export changed %s", src)
	}

	dir := t.TempDir()
	b, _ := os.ReadFile(filepath.Join("..", "..", "claims", "testdata", "handwritten", "README.yaml"))
	tiny, _ := os.ReadFile(filepath.Join("..", "..", "claims", "testdata", "tiny.csv"))
	writeFile(t, filepath.Join(dir, "tiny.csv"), string(tiny))
	yaml, yml := writeFile(t, filepath.Join(dir, "cl.yaml"), string(b)), writeFile(t, filepath.Join(dir, "cl.yml"), string(b))
	err := runCaught("claims", yaml, yml)
	if err == nil || !strings.Contains(err.Error(), "both write the document "+filepath.Join(dir, "cl.md")) {
		t.Errorf("cl.yaml and cl.yml: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "cl.md")); err == nil {
		t.Error("cl.md was written")
	}
	if err := runCaught("claims", yaml); err != nil { // cl.md generated from cl.yaml
		t.Fatal(err)
	}
	if testing.Short() {
		return
	}
	_, stderr, code := runChild(t, "claims", yml) // it is not cl.yml's to replace
	oneLineError(t, "cl.yml over cl.yaml's document", stderr, code, "cl.md was generated from another claims file, "+yaml)
}

// snapshotDir is every regular file's content under dir, by path.
func snapshotDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			b, _ := os.ReadFile(p)
			m[p] = string(b)
		}
		return nil
	})
	return m
}
