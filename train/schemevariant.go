package train

import (
	"reflect"
	"strconv"
	"strings"

	"github.com/posformer/posformer/position"
)

// schemeOptions lists, per scheme, the position options it reads (yaml names, in Spec's order);
// an option another scheme would read is no part of this one's variant.
var schemeOptions = map[string][]string{
	"sinusoidal": {"base", "randomized", "max_random", "eval_positions"},
	"learned":    {"max_positions", "init_std", "randomized", "max_random", "eval_positions"},
	"rope":       {"base", "rotary_fraction", "rope_scaling", "randomized", "max_random", "eval_positions"},
	"t5":         {"init_std", "num_buckets", "max_distance"},
	"alibi":      nil,
	"none":       nil,
}

// SchemeVariant names how a run's scheme differs from the plain one: its resolved position
// options that differ from their defaults for its kind, as key=value joined by commas in the
// order of position.Spec (randomized=true,max_random=2048; rotary_fraction=0.25), "" for the
// plain scheme, whether the options were swept or not. Unknown kinds list every option that
// differs.
func SchemeVariant(s position.Spec) string {
	def := position.Spec{Kind: s.Kind, Randomized: s.Randomized}.WithDefaults()
	opts, known := schemeOptions[s.Kind]
	v, d := reflect.ValueOf(s), reflect.ValueOf(def)
	var parts []string
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" || name == "kind" || !f.IsExported() || (known && !contains(opts, name)) {
			continue
		}
		x := v.Field(i).Interface()
		differs := x != d.Field(i).Interface()
		if name == "randomized" {
			differs = s.Randomized
		}
		if name == "rope_scaling" && (s.RopeScaling == "none" || s.RopeScaling == "") {
			differs = false // "none" is the default, written or not
		}
		if differs {
			parts = append(parts, name+"="+format(x))
		}
	}
	return strings.Join(parts, ",")
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func format(x any) string {
	switch x := x.(type) {
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case int:
		return strconv.Itoa(x)
	case string:
		return x
	}
	return ""
}

// RunVariant is the variant of a result: its scheme's (SchemeVariant) and, for the results of an
// eval variant, its "eval=<name>" after it.
func RunVariant(c Config, r *Result) string {
	v := SchemeVariant(c.Position)
	if r != nil && r.Variant != "" {
		if v != "" {
			v += ","
		}
		v += r.Variant
	}
	return v
}
