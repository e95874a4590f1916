package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ruossTiny is a Protocol B grid shrunk to seconds: reverse, rope plain and randomized, one seed.
const ruossTiny = `task: {name: reverse, symbols: 2, min_len: 1, max_len: 4, format: slots}
model: {d_model: 16, heads: 2, layers: 1, d_ff: 32, bidirectional: true}
train: {steps: %d, batch_size: 4}
eval: {lengths: "1..8", examples: 4}
sweep:
  position:
    - {kind: rope}
    - {kind: rope, randomized: true, max_random: 64}
  seed: [1]
`

// claimsCaught runs `train claims -runs runs -docs docs` with a panic turned into an error, and
// returns claims.md (empty on error) and what it wrote on stderr.
func claimsCaught(t *testing.T, runs, docs string) (md, stderr string, err error) {
	t.Helper()
	var errOut bytes.Buffer
	func() {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("PANIC: %v", p)
			}
		}()
		err = run(context.Background(), []string{"claims", "-runs", runs, "-docs", docs}, &bytes.Buffer{}, &errOut)
	}()
	if err == nil {
		b, rerr := os.ReadFile(filepath.Join(docs, "claims.md"))
		if rerr != nil {
			t.Fatal(rerr)
		}
		md = string(b)
	}
	return md, errOut.String(), err
}

// TestClaimsRuossFollowUpCLI: `train claims` reads §10's follow-up from -runs (runs/ruoss2023_long,
// trained by the grid command beside runs/ruoss2023): finished, its pairs judged in §10; partly
// finished, a warning and the finished runs used; with no finished run, a warning and the note
// on how to run it; with a damaged results.json, one line of error naming the file, never a panic.
func TestClaimsRuossFollowUpCLI(t *testing.T) {
	base := t.TempDir()
	runs, docs := filepath.Join(base, "runs"), filepath.Join(base, "docs")
	for _, g := range []struct {
		name  string
		steps int
	}{{"ruoss2023", 2}, {"ruoss2023_long", 4}} {
		cfg := writeFile(t, filepath.Join(base, g.name+".yaml"), "name: "+g.name+"\n"+fmt.Sprintf(ruossTiny, g.steps))
		if err := runCaught("-config", cfg, "-out", runs); err != nil {
			t.Fatal(err)
		}
	}
	paper, err := os.ReadFile(filepath.Join("..", "..", "docs", "claims", "kazemnejad2023_paper.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(docs, "claims"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(docs, "claims", "kazemnejad2023_paper.csv"), string(paper))
	long := filepath.Join(runs, "ruoss2023_long")
	plain, randomized := filepath.Join(long, "position-rope__seed-1"), filepath.Join(long, "position-rope_randomized-true_max_random-64__seed-1")
	move := func(from, to string) {
		t.Helper()
		if err := os.Rename(from, to); err != nil {
			t.Fatal(err)
		}
	}

	// Finished: 2 steps leave reverse unlearned in range, so the reduced grid's pair is untested
	// and §10 reads the follow-up from -runs.
	md, stderr, err := claimsCaught(t, runs, docs)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"leaves 1 of its 1 pairs untested (reverse · rope (randomized=true,max_random=64))",
		"The experiment: reverse's pairs again at 4 steps of 4 (the reduced grid: 2 of 4), 1 seed, ranked by the same rules.",
		"Set-up (2 of 2 runs finished): 1 layers, d_model 16, 2 heads, d_ff 32; 4 steps of 4 sequences",
		"What the experiment shows: reverse · rope (randomized=true,max_random=64): untested"} {
		if !strings.Contains(md, want) {
			t.Errorf("finished follow-up: claims.md lacks %q", want)
		}
	}
	if strings.Contains(stderr, long) {
		t.Errorf("finished follow-up: stderr names it: %s", stderr)
	}

	// Partly finished: a warning, and the finished run used.
	move(randomized, randomized+".away")
	md, stderr, err = claimsCaught(t, runs, docs)
	if err != nil {
		t.Fatal(err)
	}
	if want := long + ": 1 of 2 runs missing (continue with -resume); using the finished ones"; !strings.Contains(stderr, want) {
		t.Errorf("partly finished follow-up: stderr lacks %q:\n%s", want, stderr)
	}
	// Its plain run alone: no pair, no table of claims, the reduced grid's pair not re-run.
	if !strings.Contains(md, "Set-up (1 of 2 runs finished)") || strings.Contains(md, "| claim (token accuracy, 5..8) | paper |\n| --- | --- | --- | --- | --- | --- |\n\nWhat") ||
		!strings.Contains(md, "What the experiment shows: not re-run, so still untested: reverse · rope (randomized=true,max_random=64).") {
		t.Errorf("partly finished follow-up: want its finished run, no pair and no empty table:\n%s", md)
	}

	// No finished run: a warning, and the note on how to run it.
	move(plain, plain+".away")
	md, stderr, err = claimsCaught(t, runs, docs)
	if err != nil {
		t.Fatal(err)
	}
	if want := long + " has no finished run yet: continue it with `train -config configs/ruoss2023_long.yaml -jobs 2 -resume`"; !strings.Contains(stderr, want) {
		t.Errorf("unfinished follow-up: stderr lacks %q:\n%s", want, stderr)
	}
	if want := "**Missing**: no finished runs in `" + long + "`"; !strings.Contains(md, want) {
		t.Errorf("unfinished follow-up: claims.md lacks %q", want)
	}

	// Damaged: a truncated results.json is one line naming the file (train/testdata/damaged).
	move(plain+".away", plain)
	move(randomized+".away", randomized)
	if err := os.Truncate(filepath.Join(randomized, "results.json"), 10); err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile(filepath.Join("..", "..", "train", "testdata", "damaged", "results_json.golden"))
	if err != nil {
		t.Fatal(err)
	}
	want := "claims: " + strings.ReplaceAll(strings.TrimSuffix(string(golden), "\n"), "RUN", randomized)
	if _, _, err := claimsCaught(t, runs, docs); err == nil || err.Error() != want {
		t.Errorf("damaged follow-up:\n got: %v\nwant: %s", err, want)
	}
}
