package claims

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// TestColumnsDriveReaderAndWriter: the columns declared once drive the header, the writer and
// the reader. A table exported by posformer (docs/claims/addition.csv, lm/lm.csv) is written back
// byte for byte under Header; each whole-number column, set below its least value in one row,
// is refused by the reader naming that column; and a table lacking a column that is not
// optional is refused naming it.
func TestColumnsDriveReaderAndWriter(t *testing.T) {
	for _, path := range []string{filepath.Join("..", "docs", "claims", "addition.csv"), filepath.Join("testdata", "lm", "lm.csv")} {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := ReadTable(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := TableCSV(rows); !bytes.Equal(got, src) {
			t.Errorf("%s is not written back byte for byte", path)
		}
	}
	src, _ := os.ReadFile(filepath.Join("testdata", "lm", "lm.csv"))
	recs, err := csv.NewReader(bytes.NewReader(src)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(recs[0], Header()) {
		t.Fatalf("lm.csv's header %q is not Header() %q", recs[0], Header())
	}
	write := func(recs [][]string) string {
		var b bytes.Buffer
		csv.NewWriter(&b).WriteAll(recs)
		p := filepath.Join(t.TempDir(), "t.csv")
		os.WriteFile(p, b.Bytes(), 0o644)
		return p
	}
	wholes := 0
	for i, c := range columns() {
		if c.whole == nil {
			continue
		}
		wholes++
		bad := slices.Clone(recs)
		bad[1] = slices.Clone(recs[1])
		bad[1][i] = strconv.Itoa(c.min - 1)
		p := write(bad)
		want := fmt.Sprintf("%s:2: %s: %q is not a whole number ≥ %d", p, c.name, bad[1][i], c.min)
		if _, err := ReadTable(p); err == nil || err.Error() != want {
			t.Errorf("%s below %d: %v, want %s", c.name, c.min, err, want)
		}
	}
	if wholes != 7 {
		t.Errorf("%d whole-number columns, want 7 (length, n, steps, best_step, stop_step, train_min_len, train_max_len)", wholes)
	}
	for i, c := range columns() {
		if c.optional {
			continue
		}
		var cut [][]string
		for _, r := range recs {
			cut = append(cut, slices.Delete(slices.Clone(r), i, i+1))
		}
		if _, err := ReadTable(write(cut)); err == nil {
			t.Errorf("a table without %s was read", c.name)
		}
	}
}
