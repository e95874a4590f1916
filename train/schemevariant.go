package train

import (
	"fmt"
	"strings"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/position"
)

// SchemeVariant names how a run's scheme differs from the plain one: its resolved options
// (position.Options of its kind, in their declared order, then the randomized-positions keys)
// that differ from their defaults, as key=value joined by commas (randomized=true,max_random=2048;
// rotary_fraction=0.25), "" for the plain scheme, whether the options were swept or not. A
// string option written "none" where the default is empty is the default.
func SchemeVariant(s config.Position) string {
	var parts []string
	for _, o := range position.Options(s.Kind) {
		x, ok := s.Option(o.Key)
		if !ok {
			continue
		}
		d, _ := position.Spec{Kind: s.Kind}.Option(o.Key)
		if x == d || (o.Type == "string" && x == "none" && d == "") {
			continue
		}
		parts = append(parts, o.Key+"="+fmt.Sprint(x))
	}
	if s.Randomized {
		def := position.Spec{Kind: s.Kind, Randomized: true}.WithDefaults()
		parts = append(parts, "randomized=true")
		if s.MaxRandom != def.MaxRandom {
			parts = append(parts, "max_random="+fmt.Sprint(s.MaxRandom))
		}
		if s.EvalPositions != def.EvalPositions {
			parts = append(parts, "eval_positions="+fmt.Sprint(s.EvalPositions))
		}
	}
	return strings.Join(parts, ",")
}

// ResultVariant is the variant of a result: its scheme's (SchemeVariant) and, for the results of an
// eval variant, its "eval=<name>" after it.
func ResultVariant(c config.Config, r *Result) string {
	v := SchemeVariant(c.Position)
	if r != nil && r.Variant != "" {
		if v != "" {
			v += ","
		}
		v += r.Variant
	}
	return v
}
