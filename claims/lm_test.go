package claims

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/posformer/posformer/metric"
)

// TestLMClaims judges the bits-per-byte fixture (testdata/lm/lm.csv: alibi falling, sinusoidal
// rising and rope wandering past the training length 16, none above the learned bar of 8 bits;
// 3 seeds, contexts 8..64) lower-is-better, with rope's claim beside the others (not counted),
// and renders the committed document
// testdata/lm/lm.md byte for byte (what `go run ./cmd/train claims claims/testdata/lm/lm.yaml`
// writes; -update rewrites it).
func TestLMClaims(t *testing.T) {
	j, doc := goldenDoc(t, "lm", "TestLMClaims")
	// alibi's changes from 16 to 32 are −0.04, −0.03, −0.05: mean −0.04, s = 0.01, and
	// t(0.975, 2)·0.01/√3 = 4.303·0.00577 = 0.0248, so [−0.065, −0.015], below 0. The sliding
	// window's at 64 are −0.06, −0.05, −0.07 (the non-overlapping windows' −0.05, −0.04, −0.05).
	// alibi − sinusoidal past 16 is −0.943: alibi is ahead (lower), so "alibi > sinusoidal" holds
	// and its reverse is contradicted; rope's bits per byte are lower still, so rope is ahead of
	// alibi. none's in-range 8.450 bits are above the bar of 8: untested.
	want := map[string]string{
		"alibi_flat":    "-0.047 [-0.061, -0.032] at 64 | reproduced",
		"sin_rises":     "+1.100 [+0.553, +1.647] at 64 | reproduced",
		"rope_flat":     "+0.050 [-0.326, +0.426] at 64 | inconclusive (at 32, 64)",
		"sin_flat":      "+1.100 [+0.553, +1.647] at 64 | contradicted (at 32, 64)",
		"none_flat":     "+0.000 at 64 | untested (none not learned in range: 8.450)",
		"alibi_sliding": "-0.060 [-0.085, -0.035] at 64 | reproduced",
		"rank":          "-0.943 [-1.300, -0.586] | reproduced",
		"rank_rev":      "+0.943 [+0.586, +1.300] | contradicted",
		"ahead":         "2.957 [2.888, 3.025] | contradicted (rope is ahead)",
	}
	// rope's claim is beside the others: shown, not counted
	if n := counts(j); n[Reproduced] != 4 || n[Contradicted] != 3 || n[Inconclusive] != 0 || n[Untested] != 1 {
		t.Errorf("counts %v, want 4 reproduced, 3 contradicted, 1 untested (rope's inconclusive claim is beside them)", n)
	}
	if !bytes.Contains(doc, []byte("| *beside*: lm: rope, bits per byte at each length 32..64 minus at 16 ≤ 0 |")) {
		t.Error("the opening table does not mark rope's claim as beside the others")
	}
	for _, o := range j.Claims {
		if got := o.Rows[0].Ours + " | " + o.Rows[0].Verdict; got != want[o.Claim.ID] {
			t.Errorf("%s: %q, want %q", o.Claim.ID, got, want[o.Claim.ID])
		}
		if o.Claim.ID == "alibi_flat" {
			if d := o.Rows[0].more.([]change)[0]; fmtDiff(d.iv) != "-0.040 [-0.065, -0.015]" || d.verdict != Reproduced {
				t.Errorf("alibi at 32: %s %s, want -0.040 [-0.065, -0.015] reproduced", fmtDiff(d.iv), d.verdict)
			}
		}
		if o.Claim.ID == "rank" { // the best over runs is the lowest: alibi's seed 3, 2.930, not seed 2's 2.985
			if a, b := o.Rows[0].A.ours(o.Stat), o.Rows[0].B.ours(o.Stat); fmt.Sprintf("%.3f, %.3f", a, b) != "2.930, 3.750" {
				t.Errorf("best over runs: %.3f, %.3f; want the lowest, 2.930, 3.750", a, b)
			}
		}
	}
}

// goldenDoc judges the fixture claims/testdata/<name>/<name>.yaml from the repository's root, as
// `go run ./cmd/train claims` does, checks that its document is the committed <name>.md byte for
// byte (-update rewrites it; test names the test that does) and returns the judgement and the
// document.
func goldenDoc(t *testing.T, name, test string) (*Judged, []byte) {
	t.Helper()
	t.Chdir("..")
	path := filepath.Join("claims", "testdata", name, name+".yaml")
	docs, err := Docs([]string{path}, "go run ./cmd/train claims", nil)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		os.WriteFile(docs[0].Path, docs[0].Content, 0o644)
	}
	if want, _ := os.ReadFile(docs[0].Path); !bytes.Equal(docs[0].Content, want) {
		t.Errorf("%s is not what the fixture renders (go test ./claims -run %s -update, then read the diff):\n%s", docs[0].Path, test, docs[0].Content)
	}
	j, err := judgeFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return j, docs[0].Content
}

// TestLMTableRoundTrip: a table with a language model's rows is written back byte for byte
// (both bits-per-byte columns, at the end), and a table without one keeps its columns: no
// bits-per-byte columns appear in it.
func TestLMTableRoundTrip(t *testing.T) {
	for _, name := range []string{"lm/lm.csv", "tiny.csv"} {
		path := filepath.Join("testdata", name)
		src, _ := os.ReadFile(path)
		rows, err := ReadTable(path)
		if err != nil {
			t.Fatal(err)
		}
		got := TableCSV(rows)
		header, _, _ := strings.Cut(string(got), "\n")
		if lm := strings.HasSuffix(header, ",diverged_step,bits_per_byte,sliding_bits_per_byte"); lm != (name == "lm/lm.csv") {
			t.Errorf("%s: header %q", name, header)
		}
		if name == "lm/lm.csv" && !bytes.Equal(got, src) {
			t.Errorf("%s does not round-trip:\n%s", name, got)
		}
	}
}

// TestLowerIsBetterMirrors: lower is better for bits per byte, everywhere a verdict uses the
// direction. Over 300 random tables of language-model runs, every claim judged in bits per byte
// gets the verdict the same claim gets in token accuracy on the mirrored table, whose score is
// 1 − bits/10 (a decreasing map: higher is better there), with the learned bar and the
// change's bound mirrored alike; and the best over runs is the mirror's best. Each class of
// verdict occurs, so that the comparison is not vacuous.
func TestLowerIsBetterMirrors(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 5))
	seen := map[string]int{}
	for it := range 300 {
		bar := 2.6 + 1.2*rng.Float64()
		// t.csv: the language model's rows; m.csv: the same runs as a task without bits (their
		// bits columns empty), whose token accuracy is the mirror: an lm cell is judged in bits only.
		var csv, mirror strings.Builder
		csv.WriteString(strings.Join(Header(), ",") + "\n")
		mirror.WriteString(strings.Join(Header(), ",") + "\n")
		for _, s := range []string{"alibi", "rope", "t5", "none"} { // a, b, c, d below
			base, slope := 2+2*rng.Float64(), 0.6*rng.Float64()-0.3
			for seed := 1; seed <= 3; seed++ {
				for _, L := range []int{8, 16, 32, 64} {
					x := base + 0.05*rng.NormFloat64()
					if L > 16 {
						x += slope * math.Log2(float64(L)/16)
					}
					x = math.Round(x*1e4) / 1e4
					fmt.Fprintf(&csv, "lm,%s,,%d,%d,%v,0,%g,100,0.001,10,0,0,16,16,,,0,0,%g,%g\n", s, seed, L, L <= 16, 1-x/10, x, x)
					fmt.Fprintf(&mirror, "lm,%s,,%d,%d,%v,0,%g,1000000000,0.001,10,0,0,1,16,1,0.125,0,0,,\n", s, seed, L, L <= 16, 1-x/10)
				}
			}
		}
		os.WriteFile(filepath.Join(dir, "t.csv"), []byte(csv.String()), 0o644)
		os.WriteFile(filepath.Join(dir, "m.csv"), []byte(mirror.String()), 0o644)
		// bits: ch at_most m, ch2 at_least −m; the mirror: at_least −m/10 and at_most m/10 (a
		// change of −d/10 in accuracy); an equivalence margin e in bits is e/10 in accuracy.
		file := func(name, metric string, learned, margin float64, ch, ch2 string) string {
			p, table := filepath.Join(dir, name), "t.csv"
			if metric == "token_accuracy" {
				table = "m.csv"
			}
			os.WriteFile(p, []byte(fmt.Sprintf(`title: mirror
tables: [{name: t, csv: %s}]
statistic: {metric: %s, past_training: 0, learned: %g, ours: best}
claims:
  - {id: ab, kind: ranking, a: {task: lm, scheme: alibi}, b: {task: lm, scheme: rope}}
  - {id: ba, kind: ranking, a: {task: lm, scheme: rope}, b: {task: lm, scheme: alibi}}
  - {id: eq, kind: equivalence, margin: %g, a: {task: lm, scheme: alibi}, b: {task: lm, scheme: t5}}
  - {id: all, kind: ahead_of_all, a: {task: lm, scheme: alibi}}
  - {id: ch, kind: change_from_training, a: {task: lm, scheme: rope}, %s}
  - {id: ch2, kind: change_from_training, a: {task: lm, scheme: t5}, %s}
`, table, metric, learned, margin, ch, ch2)), 0o644)
			return p
		}
		m, margin := 0.1*rng.NormFloat64(), 0.2*rng.Float64()
		bits, err := judgeFile(file("bits.yaml", metric.BitsPerByte, bar, margin, fmt.Sprintf("at_most: %g", m), fmt.Sprintf("at_least: %g", -m)))
		if err != nil {
			t.Fatal(err)
		}
		acc, err := judgeFile(file("acc.yaml", "token_accuracy", 1-bar/10, margin/10, fmt.Sprintf("at_least: %g", -m/10), fmt.Sprintf("at_most: %g", m/10)))
		if err != nil {
			t.Fatal(err)
		}
		for i, o := range bits.Claims {
			r, mr := o.Rows[0], acc.Claims[i].Rows[0]
			vb, va := classOf(r.Verdict), classOf(mr.Verdict)
			seen[vb]++
			if vb != va {
				t.Fatalf("table %d, claim %s: %q in bits per byte, %q in the mirrored accuracy", it, o.Claim.ID, r.Verdict, mr.Verdict)
			}
			if r.B != nil {
				if b, a := r.A.ours(o.Stat), mr.A.ours(acc.Claims[i].Stat); math.Abs(1-b/10-a) > 1e-9 {
					t.Fatalf("table %d, claim %s: best over runs %g bits, mirrored %g (want %g)", it, o.Claim.ID, b, a, 1-b/10)
				}
			}
		}
	}
	for _, c := range []string{Reproduced, Contradicted, Inconclusive, Untested} {
		if seen[c] == 0 {
			t.Errorf("no %s verdict in 300 tables (%v): the comparison is vacuous there", c, seen)
		}
	}
}

// TestPendingClaimsFiles: each claims file waiting in docs/claims/pending/ for its grid's table
// is a valid claims file now (it loads), so that exporting the table is what it waits for.
func TestPendingClaimsFiles(t *testing.T) {
	t.Chdir("..")
	paths, _ := filepath.Glob(filepath.Join("docs", "claims", "pending", "*.yaml"))
	for _, p := range paths {
		if _, err := Load(p); err != nil {
			t.Errorf("%v", err)
		}
	}
}
