package report

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// wholeTicks ticks an axis of whole quantities (lengths, positions, dimensions, offsets,
// distances in tokens) at whole numbers only, labelled every 1, 2, 5, 10, 20, ... so that at most
// eight steps span the axis, with unlabelled ticks at the whole numbers between.
type wholeTicks struct{}

func (wholeTicks) Ticks(lo, hi float64) []plot.Tick {
	first, last := math.Ceil(lo), math.Floor(hi)
	if last < first {
		return nil
	}
	step := 1.0
	for mag := 1.0; ; mag *= 10 {
		found := false
		for _, m := range []float64{1, 2, 5} {
			if step = m * mag; (last-first)/step <= 8 {
				found = true
				break
			}
		}
		if found {
			break
		}
	}
	minor := step
	if s := step / 5; s >= 1 && s == math.Trunc(s) {
		minor = s
	} else if s := step / 2; s >= 1 && s == math.Trunc(s) {
		minor = s
	}
	var ticks []plot.Tick
	for v := math.Ceil(first/minor) * minor; v <= last; v += minor {
		t := plot.Tick{Value: v}
		if math.Mod(v, step) == 0 {
			t.Label = strconv.FormatFloat(v, 'f', 0, 64)
		}
		ticks = append(ticks, t)
	}
	return ticks
}
