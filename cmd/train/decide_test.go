package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// decideFile is claimsFile with a sequential design of at most 3 seeds a cell.
const decideFile = claimsFile + "sequential: {max_seeds: 3}\n"

// TestClaimsDecide: `claims -decide` on a file whose table does not exist yet trains the grid's
// own seeds, then the next seed of the open claim's cells up to max_seeds, and writes the table
// and the document `claims FILE` writes from it; its runs are exactly the grid's (the table equals
// the one exported from the grid trained with seeds 1..3); run again it trains nothing and changes
// nothing; stopped by its budget and run again it ends with the same table.
func TestClaimsDecide(t *testing.T) {
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	writeFile(t, filepath.Join(dir, "mygrid.yaml"), claimsGrid)
	file := writeFile(t, filepath.Join(dir, "mine-claims.yaml"), decideFile)
	var out, log bytes.Buffer
	if err := run(context.Background(), []string{"claims", "-decide", "-runs", runs, "-jobs", "2", file}, &out, &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	csvPath, docPath := filepath.Join(dir, "mine.csv"), filepath.Join(dir, "mine-claims.md")
	table, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(table, []byte("\n")); n != 1+2*3*8 {
		t.Errorf("the table has %d lines, want a header and 2 cells × 3 seeds × 8 lengths\n%s", n, log.String())
	}
	doc, _ := os.ReadFile(docPath)
	for _, want := range []string{"## The sequential design", "| r | 3 | open at the budget (3 seeds a cell) |"} {
		if !bytes.Contains(doc, []byte(want)) {
			t.Errorf("the document lacks %q:\n%s", want, doc)
		}
	}
	for _, want := range []string{"look 0: no table yet: training the grid's own seeds (4 runs)", "look 1 trains 2 runs: copy · alibi seeds [3]; copy · none seeds [3]",
		"the worst case from here: 2 runs to train", "1 open at 3 seeds a cell",
		"warning: at most 3 seeds a cell: a comparison of scores in [0, 1] cannot be decided before 7 seeds a cell"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, log.String())
		}
	}
	// exactly the grid's runs: the grid trained with seeds 1..3 and exported gives the same table
	other := filepath.Join(dir, "other")
	os.MkdirAll(other, 0o755)
	writeFile(t, filepath.Join(other, "mygrid.yaml"), strings.Replace(claimsGrid, "seed: [1, 2]", "seed: [1, 2, 3]", 1))
	otherFile := writeFile(t, filepath.Join(other, "mine-claims.yaml"), claimsFile)
	if err := run(context.Background(), []string{"-config", filepath.Join(other, "mygrid.yaml"), "-out", filepath.Join(other, "runs"), "-jobs", "2"}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := run(context.Background(), []string{"claims", "-export", "-runs", filepath.Join(other, "runs"), otherFile}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	if want, _ := os.ReadFile(filepath.Join(other, "mine.csv")); !bytes.Equal(table, want) {
		t.Errorf("-decide's table differs from the grid's with seeds 1..3:\n%s\nwant\n%s", table, want)
	}
	// the document is what `claims FILE` writes from the table
	before := snapshotDir(t, dir)
	if err := run(context.Background(), []string{"claims", file}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(docPath); !bytes.Equal(after, doc) {
		t.Errorf("claims FILE rewrites -decide's document otherwise:\n%s\nwas\n%s", after, doc)
	}
	// run again: nothing trained, nothing under -runs or beside the file changed
	log.Reset()
	if err := run(context.Background(), []string{"claims", "-decide", "-runs", runs, file}, io.Discard, &log); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "0 runs trained here") {
		t.Errorf("run again, -decide trained:\n%s", log.String())
	}
	for p, b := range snapshotDir(t, dir) {
		if strings.HasPrefix(p, other) || strings.HasSuffix(p, ".posformer.lock") {
			continue
		}
		if before[p] != b {
			t.Errorf("%s changed when -decide ran again", p)
		}
	}
	// stopped by its budget after the grid's seeds, then run again: the same table
	dir2 := t.TempDir()
	writeFile(t, filepath.Join(dir2, "mygrid.yaml"), claimsGrid)
	file2 := writeFile(t, filepath.Join(dir2, "mine-claims.yaml"), decideFile)
	log.Reset()
	if err := run(context.Background(), []string{"claims", "-decide", "-budget", "1ns", "-runs", filepath.Join(dir2, "runs"), file2}, io.Discard, &log); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "the budget of 1ns is spent") {
		t.Errorf("the budget did not stop it:\n%s", log.String())
	}
	if err := run(context.Background(), []string{"claims", "-decide", "-runs", filepath.Join(dir2, "runs"), file2}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir2, "mine.csv")); !bytes.Equal(got, table) {
		t.Errorf("stopped and run again, -decide's table differs:\n%s", got)
	}
}

// TestClaimsReplay: -replay judges a fixed-n file sequentially over the seeds its table holds,
// prints the document and a summary, and writes nothing.
func TestClaimsReplay(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join("..", "..", "docs", "own-claim")
	for _, f := range []string{"my-claims.yaml", "my-claims.csv", "my-grid.yaml"} {
		copyFile(t, filepath.Join(src, f), filepath.Join(dir, f))
	}
	before := snapshotDir(t, dir)
	var out, log bytes.Buffer
	if err := run(context.Background(), []string{"claims", "-replay", filepath.Join(dir, "my-claims.yaml")}, &out, &log); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## The sequential design", "| alibi | 3 | open |"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the document lacks %q:\n%s", want, out.String())
		}
	}
	for _, want := range []string{"replayed sequentially (α = 0.05)", "alibi: open at 3 of 3 seeds a cell: inconclusive (with a fixed n on all 3: inconclusive)"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the summary lacks %q:\n%s", want, log.String())
		}
	}
	if after := snapshotDir(t, dir); len(after) != len(before) {
		t.Errorf("-replay wrote files: %v", after)
	}
}

// TestClaimsDecideBadUse: each misuse of -decide and -replay is one line naming the flag and the
// fix, before anything is trained or written.
func TestClaimsDecideBadUse(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "mygrid.yaml"), claimsGrid)
	fixed := writeFile(t, filepath.Join(dir, "fixed.yaml"), claimsFile)
	seq := writeFile(t, filepath.Join(dir, "seq.yaml"), decideFile)
	for args, want := range map[string]string{
		"-decide " + fixed:                      "has no sequential design: -decide judges after each seed as the file declares it; add `sequential: {max_seeds: 10}`",
		"-decide " + seq + " " + seq:            "-decide takes one claims file, got 2",
		"-decide " + seq + " -jobs 2":           "-jobs after the claims files: flags go before them",
		"-decide -max-seeds 1 " + seq:           "-max-seeds 1: a cell needs at least 2 seeds",
		"-decide -budget -1s " + seq:            "-budget -1s: give a positive duration",
		"-decide -jobs 0 " + seq:                "-jobs 0: give at least 1",
		"-decide -replay " + seq:                "-decide and -replay: give one",
		"-decide -export " + seq:                "-export with -decide or -replay",
		"-replay -budget 1h " + seq:             "-max-seeds, -budget, -jobs, -plan and -shard set -decide's training; -replay trains nothing",
		"-replay":                               "-replay needs claims files",
		"-decide -runs " + fixed + " " + seq:    "not a directory",
		"-decide " + filepath.Join(dir, "none"): "no such file",
	} {
		err := runCaught(append([]string{"claims"}, strings.Fields(args)...)...)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("claims %s: %v, want one line with %q", args, err, want)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 3 {
		t.Errorf("a misuse wrote files: %v", ents)
	}
	// as a real process: exit status 1, one line on stderr, nothing on stdout
	for args, code := range map[string]int{"-decide -max-seeds 1 " + seq: 1, "-decide " + fixed: 1} {
		stdout, stderr, got := runChild(t, append([]string{"claims"}, strings.Fields(args)...)...)
		if got != code || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "train: claims: ") {
			t.Errorf("claims %s: exit %d, stdout %q, stderr %q; want exit %d and one line", args, got, stdout, stderr, code)
		}
	}
}

// TestClaimsDecideConverge: with sequential.converge, a claim untested because its cells did not
// learn in range at the grid's 2 steps has them trained again, seed for seed, to convergence
// (early stopping at the learned bar, at most 300 steps, in <runs>/<grid>-converge); the table
// then holds those runs (steps 300, stop_step where each stopped) and the claim is judged; the
// cells' later seeds converge too, and the document names the cells so trained.
func TestClaimsDecideConverge(t *testing.T) {
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	writeFile(t, filepath.Join(dir, "mygrid.yaml"), strings.Replace(claimsGrid, "val_every: 0", "val_every: 10", 1))
	file := writeFile(t, filepath.Join(dir, "c.yaml"), strings.Replace(claimsFile, "learned: 0}", "learned: 0.3}", 1)+
		"sequential: {max_seeds: 3, converge: {max_steps: 300}}\n")
	var log bytes.Buffer
	if err := run(context.Background(), []string{"claims", "-decide", "-runs", runs, file}, io.Discard, &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	for _, want := range []string{"look 1 trains 4 runs: copy · alibi seeds [1 2]; copy · none seeds [1 2]", "runs/mine-converge trained", "look 2 trains 2 runs: copy · alibi seeds [3]; copy · none seeds [3]"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, log.String())
		}
	}
	table, _ := os.ReadFile(filepath.Join(dir, "mine.csv"))
	lines := strings.Split(strings.TrimSpace(string(table)), "\n")
	if len(lines) != 1+2*3*8 {
		t.Errorf("the table has %d lines, want a header and 2 cells × 3 seeds × 8 lengths", len(lines))
	}
	for _, l := range lines[1:] {
		if f := strings.Split(l, ","); f[10] != "300" || f[12] == "0" || f[12] == "300" {
			t.Errorf("a row not of a converged run that stopped early (steps, stop_step %s, %s): %s", f[10], f[12], l)
		}
	}
	doc, _ := os.ReadFile(filepath.Join(dir, "c.md"))
	if !bytes.Contains(doc, []byte("Trained so: copy · alibi (table t; stopped at steps")) || bytes.Contains(doc, []byte("not learned in range")) {
		t.Errorf("the document:\n%s", doc)
	}
}

// TestClaimsDecideSharded: the cluster's way (deploy/slurm/decide.sh): -plan prints each look's
// runs, shards i/n of it train their share (collecting and writing nothing), and -plan again
// collects them, until no run is left; the table and the document are the one-process -decide's.
func TestClaimsDecideSharded(t *testing.T) {
	one, sharded := t.TempDir(), t.TempDir()
	for _, d := range []string{one, sharded} {
		writeFile(t, filepath.Join(d, "mygrid.yaml"), claimsGrid)
		writeFile(t, filepath.Join(d, "mine-claims.yaml"), decideFile)
	}
	if err := run(context.Background(), []string{"claims", "-decide", "-runs", filepath.Join(one, "runs"), filepath.Join(one, "mine-claims.yaml")}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	file, runs := filepath.Join(sharded, "mine-claims.yaml"), filepath.Join(sharded, "runs")
	var looks []string
	for look := 0; ; look++ {
		var out bytes.Buffer
		if err := run(context.Background(), []string{"claims", "-decide", "-plan", "-runs", runs, file}, &out, io.Discard); err != nil {
			t.Fatal(err)
		}
		var n int
		if _, err := fmt.Sscanf(out.String()[strings.LastIndex(out.String(), "next look: "):], "next look: %d runs", &n); err != nil {
			t.Fatalf("-plan printed %q", out.String())
		}
		looks = append(looks, fmt.Sprint(n))
		if n == 0 || look > 5 {
			break
		}
		for i := range n { // the array's tasks, in reverse: the order does not matter
			if err := run(context.Background(), []string{"claims", "-decide", "-shard", fmt.Sprintf("%d/%d", n-1-i, n), "-runs", runs, file}, io.Discard, io.Discard); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(filepath.Join(sharded, "mine.csv")); err == nil && look == 0 {
				t.Fatal("a shard wrote the table")
			}
		}
	}
	if strings.Join(looks, ",") != "4,2,0" {
		t.Errorf("the looks' runs: %s, want 4 (the grid's seeds), 2 (seed 3), 0", strings.Join(looks, ","))
	}
	for _, f := range []string{"mine.csv", "mine-claims.md"} {
		a, _ := os.ReadFile(filepath.Join(one, f))
		b, _ := os.ReadFile(filepath.Join(sharded, f))
		a = bytes.ReplaceAll(a, []byte(one), []byte(sharded)) // the document names its file's path
		if !bytes.Equal(a, b) || len(a) == 0 {
			t.Errorf("%s differs between one process and the shards", f)
		}
	}
}
