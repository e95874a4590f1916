package claims

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/metric"
)

// maxBits bounds a language model's bits per byte: guessing uniformly among 256 bytes scores 8,
// so a number far above that is not a trained model's score (a diverged run says so in
// diverged_step and keeps its last finite scores).
const maxBits = 64

// checkCSV refuses what a CSV's records would misread: a UTF-8 byte-order mark (glued to the
// first column's name), lines ended by CR alone (read as one line), a column named twice, a
// header without rows. For a per-seed table (known: its columns, some of them optional; a table
// that lacks one that is not is left to its reader to name) it refuses a column it does not
// know; readTable checks the rows.
func checkCSV(path string, src []byte, recs [][]string, known []string, optional func(string) bool) error {
	if bytes.HasPrefix(src, []byte("\uFEFF")) {
		return fmt.Errorf("%s starts with a UTF-8 byte-order mark, which would glue itself to the first column's name: save the file as UTF-8 without one", path)
	}
	if i := bytes.IndexByte(src, '\r'); i >= 0 && (i+1 == len(src) || src[i+1] != '\n') {
		return fmt.Errorf("%s:%d: a CR not followed by LF (old Mac line ends, or a stray CR), which CSV does not read as a line end: save the file with LF (or CRLF) line ends", path, 1+bytes.Count(src[:i], []byte("\n")))
	}
	header := recs[0]
	for _, h := range known {
		if !slices.Contains(header, h) && !optional(h) {
			return nil // the caller names the missing column
		}
	}
	for i, h := range header {
		if j := slices.Index(header, h); j < i {
			return fmt.Errorf("%s:1: column %q is named twice (columns %d and %d): keep one", path, h, j+1, i+1)
		}
		if known != nil && !slices.Contains(known, h) {
			return fmt.Errorf("%s:1: unknown column %q: a per-seed table has the columns %s; remove it, or export the table again (claims -export)", path, h, strings.Join(known, ","))
		}
	}
	if len(recs) == 1 {
		return fmt.Errorf("%s has a header and no rows: export it again from its grid (claims -export), or name a table that has rows", path)
	}
	return nil
}

// taskKey is a task section by value (its optional fields' values, not their addresses).
func taskKey(t config.TaskConfig) string {
	depth, ignore := math.NaN(), math.NaN()
	if t.Depth != nil {
		depth = *t.Depth
	}
	if t.IgnoreProb != nil {
		ignore = *t.IgnoreProb
	}
	t.Depth, t.IgnoreProb = nil, nil
	return fmt.Sprintf("%+v %v %v", t, depth, ignore)
}

// checkChance refuses a row of a table exported from grid whose chance columns are not what
// guessing scores at its length on its task as any cell of the grid sets the task up
// (metric.Chance, what the export wrote) or one of its eval variants does, naming the row. A grid that does not load is left to
// the document to say.
func checkChance(path, grid string, rows []Row) error {
	_, cells, err := config.Read(nil, grid, nil)
	if err != nil {
		return nil
	}
	var tasks []config.Config // one cell per distinct task set-up
	seen := map[string]bool{}
	for _, cell := range cells {
		set := []config.Config{cell.Config} // the cell's task, and its eval variants' (task.depth, task.ignore_prob)
		for _, v := range cell.Config.ActiveVariants() {
			set = append(set, cell.Config.VariantConfig(v))
		}
		for _, c := range set {
			if k := taskKey(c.Task); !seen[k] {
				seen[k] = true
				tasks = append(tasks, c)
			}
		}
	}
	near := func(x, y float64) bool {
		return x == y || math.IsNaN(x) && math.IsNaN(y) || math.Abs(x-y) <= 1e-5*math.Abs(y)
	}
	for i, r := range rows {
		var want []string
		for _, c := range tasks {
			if c.Task.Name != r.Task {
				continue
			}
			e, t := metric.Chance(c.Task.Name, c.TaskOptions(), r.Length)
			if near(r.ChanceExact, e) && near(r.ChanceToken, t) {
				want = nil
				break
			}
			want = append(want, fmt.Sprintf("%g and %g", e, t))
		}
		if len(want) > 0 {
			return rowErr(path, i+2, ": export the table again (claims -export)", "chance_exact %g and chance_token %g are not what guessing scores on %s at length %d as grid %s sets it up (%s)",
				r.ChanceExact, r.ChanceToken, r.Task, r.Length, grid, strings.Join(slices.Compact(want), "; "))
		}
	}
	return nil
}
