package claims

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"slices"

	"github.com/posformer/posformer/internal/presence"
	"github.com/posformer/posformer/metric"
)

// Choose is a table's learning-rate choice, the rule of a grid's select: applied to the scores
// its exported rows carry: per cell, the rate among LR whose run of seed Seed has the best
// validation score (By: best_val_score; ties go to the rate listed first); the table keeps each
// cell's runs at its chosen rate only.
type Choose struct {
	By   string    `yaml:"by"`
	Seed uint64    `yaml:"seed"`
	LR   []float64 `yaml:"lr"`

	Written presence.Keys `yaml:"-"`
}

// chooses: the table chooses a rate (choose: is written, even empty: check refuses that).
func (t Table) chooses() bool { return t.chooseKey || t.Choose.Written.Len() > 0 }

// ChooseBy is the score a choice compares (the only one: the runs' best validation score).
const ChooseBy = "best_val_score"

// chooseForm is a whole choose: section, for the messages of a half-written one.
const chooseForm = "choose: {by: " + ChooseBy + ", seed: N, lr: [r1, r2, ...]}"

// check validates a table's choose: section (p is its path in the file).
func (c Choose) check(f *File, p string) error {
	switch {
	case c.Written.Len() == 0:
		return f.errAt(p, "written empty: write %s (each cell keeps its runs at the rate whose seed-N run validates best), or remove choose:", chooseForm)
	case !c.Written.Has("by"):
		return f.errAt(p+".by", "missing: write %s", chooseForm)
	case c.By != ChooseBy:
		return f.errAt(p+".by", "%q: write by: %s (the runs' best validation score, what select: compares)", c.By, ChooseBy)
	case !c.Written.Has("seed"):
		return f.errAt(p+".seed", "missing: give the seed whose runs choose the rate (select: seeds), e.g. seed: 1")
	case !c.Written.Has("lr"):
		return f.errAt(p+".lr", "missing: give the candidate learning rates, at least two, in the order ties are broken (the first wins), e.g. lr: [0.001, 0.003]")
	case len(c.LR) == 0:
		return f.errAt(p+".lr", "empty: give the candidate learning rates, at least two, in the order ties are broken (the first wins), e.g. lr: [0.001, 0.003]")
	case len(c.LR) == 1:
		return f.errAt(p+".lr", "one rate: a choice needs at least two candidates, in the order ties are broken (the first wins), e.g. lr: [0.001, 0.003]")
	}
	for i, r := range c.LR {
		if !(r > 0) || math.IsInf(r, 0) || slices.Index(c.LR, r) != i {
			return f.errAt(fmt.Sprintf("%s.lr[%d]", p, i), "%g: give distinct positive learning rates", r)
		}
	}
	return nil
}

// rateChoice is one cell's choice: its seed's validation score at each candidate rate, that
// run's score in the file's statistic there, and the rate chosen.
type rateChoice struct {
	k        key
	val      []float64 // by candidate; NaN where its run diverged
	score    []float64 // by candidate
	chosen   float64
	diverged []float64 // the candidate rates whose run diverged (never chosen)
}

// choose applies t.Choose to rows: per cell, the candidate rate whose seed run has the best
// validation score (higher; lower for a language model's bits per byte), the first listed on a
// tie; it returns the rows of each cell at its chosen rate and the choices (with each run's
// score in the statistic st).
func choose(f *File, path string, t Table, rows []Row, st Statistic) ([]Row, []rateChoice, error) {
	ch := t.Choose
	cells, order := cellsOf(rows, st.Metric)
	chosen := map[key]float64{}
	var out []rateChoice
	for _, k := range order {
		c := cells[k]
		rc := rateChoice{k: k}
		lo, hi, inRange := c.span(st)
		for _, lr := range ch.LR {
			i := slices.IndexFunc(c.rows, func(r Row) bool { return r.Seed == ch.Seed && r.LR == lr })
			if i < 0 {
				return nil, nil, f.errAt(path+".choose", "table %s: %s · %s has no run of seed %d at lr %g, which choose: compares: train it, or list only the rates its runs have", t.Name, k.Task, k, ch.Seed, lr)
			}
			r := c.rows[i]
			if r.DivergedStep > 0 { // select: makes a diverged candidate lose
				rc.val = append(rc.val, math.NaN())
				rc.score = append(rc.score, math.NaN())
				rc.diverged = append(rc.diverged, lr)
				continue
			}
			if math.IsNaN(r.BestScore) {
				return nil, nil, f.errAt(path+".choose", "table %s: %s · %s, seed %d at lr %g has no best_val_score (its CSV was exported before the column): export it again from its grid (claims -export)", t.Name, k.Task, k, ch.Seed, lr)
			}
			rc.val = append(rc.val, r.BestScore)
			one := &cell{key: k, metric: st.Metric}
			for _, x := range c.rows {
				if x.Seed == ch.Seed && x.LR == lr {
					one.rows = append(one.rows, x)
				}
			}
			s, _ := one.scores(lo, hi, inRange)
			rc.score = append(rc.score, meanOf(s))
		}
		if len(rc.diverged) == len(ch.LR) {
			return nil, nil, f.errAt(path+".choose", "table %s: %s · %s, seed %d diverged at every rate: there is no rate to choose", t.Name, k.Task, k, ch.Seed)
		}
		if !slices.ContainsFunc(rc.val, func(v float64) bool { return v != 0 && !math.IsNaN(v) }) {
			return nil, nil, f.errAt(path+".choose", "table %s: %s · %s, seed %d has a best_val_score of 0 at every rate: its grid had no early stopping, which records the best validation score, so there is nothing to choose by: give the grid train.early_stop and train it again", t.Name, k.Task, k, ch.Seed)
		}
		lower := c.rows[0].unbounded() // such a run validates in bits per byte, lower better
		best := -1
		for i, v := range rc.val {
			if !math.IsNaN(v) && (best < 0 || lower && v < rc.val[best] || !lower && v > rc.val[best]) {
				best = i
			}
		}
		rc.chosen = ch.LR[best]
		chosen[k] = rc.chosen
		out = append(out, rc)
	}
	return slices.DeleteFunc(rows, func(r Row) bool { return r.LR != chosen[r.rowKey().key] }), out, nil
}

// unionRows is the rows of the tables a union names, in order, with a run that two of them hold
// counted once: its rows must agree in every column both tables have (the same config and seed
// trained twice give the same bits), a column one lacks taken from the other (best_val_score of
// a table exported before it). It returns the runs held twice, named.
func unionRows(f *File, path string, t Table, tables map[string]*loaded) ([]Row, []string, error) {
	at := map[rowKey]int{}
	from := map[rowKey]string{}
	var rows []Row
	var twice []string
	named := map[string]bool{} // twice as a set: a run is held at every length, named once
	for _, u := range t.Union {
		for _, r := range tables[u].rows {
			rk := r.rowKey()
			i, seen := at[rk]
			if !seen {
				at[rk], from[rk] = len(rows), u
				rows = append(rows, r)
				continue
			}
			merged, diff := mergeRows(rows[i], r)
			if diff != "" {
				return nil, nil, f.errAt(path+".union", "table %s: %s · %s, seed %d, lr %g at length %d is in tables %s and %s with different %s: the same run trained twice must give the same bits; find out why, or keep it in one table only",
					t.Name, r.Task, rk.key, r.Seed, r.LR, r.Length, from[rk], u, diff)
			}
			rows[i] = merged
			if a, b := tables[from[rk]].CSV, tables[u].CSV; a != "" && a == b {
				continue // the same file read by two tables: nothing was trained twice
			}
			if name := fmt.Sprintf("%s · %s, seed %d, lr %g (%s and %s)", r.Task, rk.key, r.Seed, r.LR, from[rk], u); !named[name] {
				twice, named[name] = append(twice, name), true
			}
		}
	}
	return rows, twice, nil
}

// mergeRows is a and b, the same run's row in two tables, as one row; diff names the first
// column where they differ as written ("" when they agree), a best_val_score missing from one
// (NaN) being taken from the other.
func mergeRows(a, b Row) (Row, string) {
	if math.IsNaN(a.BestScore) {
		a.BestScore = b.BestScore
	}
	if math.IsNaN(b.BestScore) {
		b.BestScore = a.BestScore
	}
	ra, _ := csv.NewReader(bytes.NewReader(TableCSV([]Row{a}))).ReadAll()
	rb, _ := csv.NewReader(bytes.NewReader(TableCSV([]Row{b}))).ReadAll()
	if len(ra[1]) != len(rb[1]) {
		return a, metric.Unbounded()[0].Name + " (given in one, empty in the other)"
	}
	for i, h := range ra[0] {
		if ra[1][i] != rb[1][i] {
			return a, fmt.Sprintf("%s (%s against %s)", h, ra[1][i], rb[1][i])
		}
	}
	return a, ""
}
