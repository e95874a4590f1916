package claims

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
)

var tableLine = regexp.MustCompile(`\bline (\d+)`)

// checkExported reads a table exported from a grid back as the claims reader will read it,
// before anything is written. A row the reader refuses came from a run's results, so the error
// names that run (its results.json, or two runs that fall in one cell of the table), never the
// table (not written, and exporting again gives the same rows), and says the fix that works
// there. grid is the grid's directory, rows and dirs the table's rows and the run directory of
// each; train is the grid's training command.
func checkExported(t Table, grid string, csv []byte, rows []Row, dirs []string, train string) error {
	got, err := readTable(t.CSV, map[string][]byte{t.CSV: csv})
	if err == nil {
		err = checkChance(t.CSV, t.Grid, got)
	}
	if err == nil {
		return nil
	}
	var re *rowError
	if !errors.As(err, &re) || re.line < 2 || re.line-2 >= len(rows) { // not about a row: posformer wrote it, so say so
		return fmt.Errorf("the table exported from %s is refused by the claims reader (%s), which is posformer's fault, not the grid's: report it", grid, err)
	}
	at, msg := re.line-2, re.what // what is wrong, without the fix for a table on disk
	// Every other line named is another row: name its run instead.
	other := -1
	msg = tableLine.ReplaceAllStringFunc(msg, func(s string) string {
		line, _ := strconv.Atoi(tableLine.FindStringSubmatch(s)[1])
		if line < 2 || line-2 >= len(rows) {
			return s
		}
		if dirs[line-2] != dirs[at] {
			other = line - 2
		}
		return fmt.Sprintf("the row of %s at length %d", filepath.Base(dirs[line-2]), rows[line-2].Length)
	})
	r := rows[at]
	if other < 0 {
		res := filepath.Join(dirs[at], "results.json")
		return fmt.Errorf("%s at length %d gives a row the per-seed table refuses (%s); exporting again would repeat it: delete %s and evaluate the run again from its checkpoint with `%s -resume`",
			res, r.Length, msg, res, train)
	}
	naming := cmp.Or(t.Variants, VariantsRun)
	fix := fmt.Sprintf("set variants: %s on table %s, so that the values the grid sweeps name each run's variant", VariantsSwept, t.Name)
	if naming != VariantsRun {
		fix = "keep one of them per table (rows:), or train them as two grids"
	}
	return fmt.Errorf("%s and %s fall in one cell of the table (%s · %s%s, seed %d: variants: %s names them alike), which the per-seed table refuses (%s): %s",
		dirs[at], dirs[other], r.Task, r.Scheme, variantSuffix(r.Variant), r.Seed, naming, msg, fix)
}

// variantSuffix is " (variant)", or nothing for no variant.
func variantSuffix(v string) string {
	if v == "" {
		return ""
	}
	return " (" + v + ")"
}
