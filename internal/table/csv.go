// Package table writes the tables posformer writes: CSV files (CSV, CSVFloat) and markdown
// tables (Markdown), each written one way for every package that writes one.
package table

import (
	"bytes"
	"encoding/csv"
	"math"
	"strconv"
)

// CSV is a CSV file of a header and its rows, as every table posformer writes is.
func CSV(header []string, rows [][]string) []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write(header)
	w.WriteAll(rows) // flushes; writing to memory cannot fail
	return buf.Bytes()
}

// CSVFloat is a CSV field for x: empty for a missing value (NaN: a group with no in-range
// length, a diverged group), as other tools read a missing value, never the text NaN.
func CSVFloat(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}
