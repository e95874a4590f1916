package report

import (
	"bytes"
	"encoding/csv"
	"sort"
	"strconv"
	"strings"

	"github.com/posformer/posformer/train"
)

// SeedRow is one row of a per-seed results file (docs/claims/<paper>.csv): one task, scheme,
// variant (train.RunVariant), seed and test length of a finished run.
type SeedRow struct {
	Task, Scheme, Variant string
	Seed                  uint64
	Length                int
	InRange               bool
	Exact, Token          float64
	N                     int
	// Extras: the run's learning rate, steps, and with early stopping the best and stop steps.
	LR                        float64
	Steps, BestStep, StopStep int
	MinLen, MaxLen            int // the training lengths
	// ChanceExact and ChanceToken are what guessing scores at this length (see train.Chance).
	ChanceExact, ChanceToken float64
}

// SeedHeader is the column list of the per-seed results files.
var SeedHeader = []string{"task", "scheme", "variant", "seed", "length", "in_range", "exact_match", "token_accuracy", "n",
	"lr", "steps", "best_step", "stop_step", "train_min_len", "train_max_len", "chance_exact", "chance_token"}

// SeedRows lists the finished runs of a grid (eval variants included) as per-seed rows, sorted by
// task, scheme, variant, seed and length.
func SeedRows(g *Grid) []SeedRow { return seedRows(g, runVariant) }

// sweptRows are SeedRows with the report's variant instead (train.GroupOf: the swept values
// other than task, scheme and seed): how sections 3–8 name the rows of the claims and literature
// grids, where an option set for every cell (max_positions: 128) is no variant.
func sweptRows(g *Grid) []SeedRow { return seedRows(g, sweptVariant) }

// FollowUpRows are SeedRows whose variant also names the cell's swept values that the run's
// variant leaves out (a follow-up's arm, such as heads=12 or unscaled_logits=true), so that two
// arms of one scheme never share a row of docs/claims/<follow-up>.csv.
func FollowUpRows(g *Grid) []SeedRow { return seedRows(g, bothVariants) }

// A variant rule: how seedRows names a row's variant from its run and its grid cell.
type variantRule int

const (
	runVariant   variantRule = iota // train.RunVariant: the run's resolved scheme and evaluation options
	sweptVariant                    // train.GroupOf: the cell's swept values
	bothVariants                    // the run's, then the swept values it does not already name
)

func seedRows(g *Grid, rule variantRule) []SeedRow {
	var rows []SeedRow
	for i, run := range g.Runs {
		if run == nil {
			continue
		}
		c, r := g.Cells[i].Config, run.Result
		for _, l := range r.Lengths {
			ce, ct := train.Chance(c, l.Length)
			variant := train.RunVariant(c, r)
			switch rule {
			case sweptVariant:
				variant = train.GroupOf(g.Cells[i]).Variant
			case bothVariants:
				variant = unionVariant(variant, train.GroupOf(g.Cells[i]).Variant)
			}
			rows = append(rows, SeedRow{ChanceExact: ce, ChanceToken: ct, Task: c.Task.Name, Scheme: c.Position.Kind, Variant: variant, Seed: c.Seed,
				Length: l.Length, InRange: l.InRange, Exact: l.ExactMatch, Token: l.TokenAccuracy, N: l.N,
				LR: c.Train.LR, Steps: c.Train.Steps, BestStep: r.BestStep, StopStep: r.StopStep, MinLen: r.MinLen, MaxLen: r.MaxLen})
		}
	}
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		switch {
		case a.Task != b.Task:
			return a.Task < b.Task
		case a.Scheme != b.Scheme:
			return a.Scheme < b.Scheme
		case a.Variant != b.Variant:
			return a.Variant < b.Variant
		case a.Seed != b.Seed:
			return a.Seed < b.Seed
		case a.LR != b.LR:
			return a.LR < b.LR
		}
		return a.Length < b.Length
	})
	return rows
}

// SeedCSV renders per-seed rows with SeedHeader.
func SeedCSV(rows []SeedRow) []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write(SeedHeader)
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for _, r := range rows {
		w.Write([]string{r.Task, r.Scheme, r.Variant, strconv.FormatUint(r.Seed, 10), strconv.Itoa(r.Length), strconv.FormatBool(r.InRange),
			g(r.Exact), g(r.Token), strconv.Itoa(r.N), g(r.LR), strconv.Itoa(r.Steps), strconv.Itoa(r.BestStep), strconv.Itoa(r.StopStep),
			strconv.Itoa(r.MinLen), strconv.Itoa(r.MaxLen), g(r.ChanceExact), g(r.ChanceToken)})
	}
	w.Flush()
	return buf.Bytes()
}

// unionVariant is variant a followed by the parts of b ("k=v", comma-separated) a lacks.
func unionVariant(a, b string) string {
	have := map[string]bool{}
	var parts []string
	for _, p := range strings.Split(a, ",") {
		if p != "" && !have[p] {
			have[p] = true
			parts = append(parts, p)
		}
	}
	for _, p := range strings.Split(b, ",") {
		if p != "" && !have[p] {
			have[p] = true
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ",")
}
