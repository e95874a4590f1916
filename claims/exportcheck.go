package claims

import (
	"cmp"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// fixMarkers begin the part of a per-seed table reader's message that tells how to mend the
// table (correct the row, export it again): advice for a table on disk, which an exported table
// being checked before it is written is not.
var fixMarkers = []string{
	": export the table again", ", or export the table again", "; export the table again", ": export it again",
	": correct the row", "; one run's rows share its training", ": the runs of a cell are averaged", ": a run is tested once",
	", so the row is missing", ": leave it empty", ": write the name without it", ": want a finite number",
}

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
	msg := err.Error()
	at := -1 // the row at fault
	if rest, ok := strings.CutPrefix(msg, t.CSV+":"); ok {
		if n, tail, ok := strings.Cut(rest, ": "); ok {
			if line, err := strconv.Atoi(n); err == nil && line >= 2 && line-2 < len(rows) {
				at, msg = line-2, tail
			}
		}
	}
	if at < 0 { // not about a row (the header, the CSV itself): posformer wrote it, so say so
		return fmt.Errorf("the table exported from %s is refused by the claims reader (%s), which is posformer's fault, not the grid's: report it", grid, err)
	}
	for _, m := range fixMarkers {
		if i := strings.Index(msg, m); i >= 0 {
			msg = msg[:i]
		}
	}
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
