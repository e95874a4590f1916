package table

import (
	"encoding/csv"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestCSVFloat: a missing value (NaN) is an empty field; every other value reads back to the
// same bits, over many random values.
func TestCSVFloat(t *testing.T) {
	if got := CSVFloat(math.NaN()); got != "" {
		t.Errorf("NaN: %q, want an empty field", got)
	}
	r := rand.New(rand.NewPCG(3, 5))
	for i := 0; i < 2000; i++ {
		x := math.Float64frombits(r.Uint64())
		if math.IsNaN(x) {
			continue
		}
		back, err := strconv.ParseFloat(CSVFloat(x), 64)
		if err != nil || math.Float64bits(back) != math.Float64bits(x) {
			t.Fatalf("%v written as %q reads back as %v (%v)", x, CSVFloat(x), back, err)
		}
	}
}

// TestCSV: the header then the rows, quoted where a field needs it, read back as written.
func TestCSV(t *testing.T) {
	header, rows := []string{"a", "b"}, [][]string{{"1", "x, y"}, {"", `say "hi"`}}
	recs, err := csv.NewReader(strings.NewReader(string(CSV(header, rows)))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(recs[0], header) || len(recs) != 3 || !slices.Equal(recs[1], rows[0]) || !slices.Equal(recs[2], rows[1]) {
		t.Errorf("read back %q", recs)
	}
}

// TestMarkdown: the heading row, the separator derived from the columns' alignment, and rows,
// each cell between "| " and " |".
func TestMarkdown(t *testing.T) {
	var b strings.Builder
	MarkdownHead(&b, L("task"), R("seeds"), L("verdict"))
	MarkdownRow(&b, "copy", "3", "")
	want := "| task | seeds | verdict |\n| --- | ---: | --- |\n| copy | 3 |  |\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
