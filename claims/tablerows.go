package claims

import (
	"fmt"
	"math"
	"strings"

	"github.com/posformer/posformer/metric"
)

// The per-seed table's checks of what its rows say against themselves and their run (S3): a
// row that contradicts itself, or a run whose rows disagree on its training, is refused naming
// the row and the column, never judged.

// notDecimal is the first column of a row whose number is written as Go's ParseFloat reads but
// posformer never writes: hexadecimal (0x1p-2) or with digit separators (1_000).
func notDecimal(header, rec []string) (string, bool) {
	for i, v := range rec {
		if i < len(header) && isNumberColumn(header[i]) && strings.ContainsAny(v, "xXpP_") {
			return header[i], true
		}
	}
	return "", false
}

// isNumberColumn: the column holds a number (every column but the names and in_range).
func isNumberColumn(h string) bool {
	switch h {
	case "task", "scheme", "variant", "in_range":
		return false
	}
	return true
}

// checkRow refuses a row whose numbers contradict one another: a step beyond the run's steps,
// or an exact match that is not a whole number of its n examples.
func checkRow(x Row) error {
	for _, s := range []struct {
		h string
		v int
	}{{"best_step", x.BestStep}, {"stop_step", x.StopStep}, {"diverged_step", x.DivergedStep}} {
		if s.v > x.Steps {
			return fmt.Errorf("%s is %d, beyond the run's steps %d", s.h, s.v, x.Steps)
		}
	}
	if x.unbounded() || x.N == 0 {
		return nil
	}
	// (Exact match may exceed token accuracy: where answers differ in length, a short answer
	// right and a long one wrong score 1/2 exact and less than 1/2 of the tokens.)
	em := x.Scores[metric.ExactMatch]
	if k := em * float64(x.N); math.Abs(k-math.Round(k)) > 1e-6*float64(x.N) {
		return fmt.Errorf("exact_match %g is not a whole number of the n = %d examples (%g of them)", em, x.N, k)
	}
	return nil
}

// sameRun refuses a row of run a that disagrees with a's first row on its training: the
// training lengths, the step counts and the best validation score are the run's, one per run.
func sameRun(first, r Row) error {
	for _, f := range []struct {
		h    string
		a, b int
	}{{"train_min_len", first.MinLen, r.MinLen}, {"train_max_len", first.MaxLen, r.MaxLen}, {"steps", first.Steps, r.Steps},
		{"best_step", first.BestStep, r.BestStep}, {"stop_step", first.StopStep, r.StopStep}, {"diverged_step", first.DivergedStep, r.DivergedStep}} {
		if f.a != f.b {
			return fmt.Errorf("%s is %d here but %d", f.h, f.b, f.a)
		}
	}
	if a, b := first.BestScore, r.BestScore; a != b && !(math.IsNaN(a) && math.IsNaN(b)) {
		return fmt.Errorf("best_val_score is %g here but %g", b, a)
	}
	return nil
}
