package config

import (
	"errors"
	"fmt"
	"go.yaml.in/yaml/v3"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/posformer/posformer/internal/fielderr"
	"github.com/posformer/posformer/internal/schemes"
)

// EvalVariant is one entry of `eval.variants:`: another way to evaluate the same trained
// weights, written as its own result (Out/Name/eval-<name>/results.json and .csv) and reported
// as its own row, with variant "eval=<name>". Only options that act at evaluation alone can be
// set, so a variant never needs its own training:
//
//	eval:
//	  variants:
//	    - {name: rope_scaling_ntk, when: [position.kind=rope], rope_scaling: ntk}
//	    - {name: rope_scaling_interpolate, when: [position.kind=rope], rope_scaling: interpolate}
type EvalVariant struct {
	// Name labels the variant's results (letters, digits, _ and -).
	Name string `yaml:"name" json:"name"`
	// When restricts the variant to the runs whose resolved config has every listed
	// `dotted.path=value` (position.kind=rope, position.randomized=false), so a grid sweeping
	// schemes evaluates rope_scaling on its plain rope cells only. Default: every run, and then
	// the variant's options must suit every run's scheme.
	When []string `yaml:"when,omitempty" json:"when,omitempty"`
	// RopeScaling replaces position.rope_scaling (none, interpolate, ntk, dynamic_ntk, yarn,
	// llama3, longrope; rope only).
	RopeScaling string `yaml:"rope_scaling,omitempty" json:"rope_scaling,omitempty"`
	// RopeFactor replaces position.rope_factor (dynamic_ntk's α; with rope_scaling: dynamic_ntk
	// only). A variant that sets rope_scaling without it removes the run's rope_factor.
	RopeFactor float64 `yaml:"rope_factor,omitempty" json:"rope_factor,omitempty"`
	// RopeLongFactor replaces position.rope_long_factor (longrope's per-pair factors; with
	// rope_scaling: longrope only). A variant that sets rope_scaling without it removes the
	// run's.
	RopeLongFactor string `yaml:"rope_long_factor,omitempty" json:"rope_long_factor,omitempty"`
	// EvalPositions replaces position.eval_positions (random, plain; randomized schemes only).
	EvalPositions string `yaml:"eval_positions,omitempty" json:"eval_positions,omitempty"`
	// Depth replaces task.depth (passkey only); IgnoreProb task.ignore_prob (flip_flop only):
	// the test sets of the same trained weights with the needle elsewhere, or of another split.
	Depth      *float64 `yaml:"depth,omitempty" json:"depth,omitempty"`
	IgnoreProb *float64 `yaml:"ignore_prob,omitempty" json:"ignore_prob,omitempty"`
}

var variantName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// Applies tells whether the variant is evaluated for a config (every condition of When holds;
// a condition naming no field is an error, reported by Validate).
func (v EvalVariant) Applies(c Config) bool {
	for _, w := range v.When {
		ok, err := holds(c, w)
		if err != nil || !ok {
			return false
		}
	}
	return true
}

// holds tells whether a `dotted.path=value` condition holds for a config.
func holds(c Config, cond string) (bool, error) {
	path, want, ok := strings.Cut(cond, "=")
	if !ok {
		return false, fmt.Errorf("want dotted.path=value, e.g. position.kind=rope, got %q", cond)
	}
	path = strings.TrimSpace(path)
	if key, ok := strings.CutPrefix(path, "position."); ok && schemes.IsOption(key) {
		v, ok := c.Position.Option(key) // a scheme's option: absent from other schemes
		if !ok {
			return false, nil
		}
		return sameValue(reflect.ValueOf(v), want)
	}
	f, err := fieldAt(reflect.ValueOf(&c).Elem(), path)
	if err != nil {
		return false, err
	}
	if f.Type() == reflect.TypeFor[Position]() {
		key := strings.TrimPrefix(path, "position.")
		return false, schemes.UnknownKey(key)
	}
	return sameValue(f, want)
}

// sameValue tells whether a condition's value, read as YAML into the field's type, equals the
// field's value v: train.lr=1e-3 holds for 0.001, log_scaling=0.430 for 0.43, seed=01 for 1 and
// randomized=False for false, as the sweep that wrote them reads them (U3; they were compared as
// text). A value the field's type cannot hold is an error naming both.
func sameValue(v reflect.Value, want string) (bool, error) {
	want = strings.TrimSpace(want)
	w := reflect.New(v.Type())
	if err := yaml.Unmarshal([]byte(want), w.Interface()); err != nil {
		return false, fmt.Errorf("%q is not a value of the field's type, %s; write one as the field holds it, e.g. %v", want, v.Type(), v.Interface())
	}
	return reflect.DeepEqual(w.Elem().Interface(), v.Interface()), nil
}

// VariantConfig is the config a variant evaluates with: the run's, with the variant's options
// in place and no variants of its own.
func (c Config) VariantConfig(v EvalVariant) Config {
	vc := c
	vc.Eval.Variants = nil
	vc.Written = c.Written.Without("eval.variants")
	if v.RopeScaling != "" {
		vc.Position = vc.Position.With("rope_scaling", v.RopeScaling).Without("rope_factor").Without("rope_long_factor")
		if v.RopeFactor != 0 {
			vc.Position = vc.Position.With("rope_factor", v.RopeFactor)
		}
		if v.RopeLongFactor != "" {
			vc.Position = vc.Position.With("rope_long_factor", v.RopeLongFactor)
		}
	}
	if v.EvalPositions != "" {
		vc.Position.EvalPositions = v.EvalPositions
		vc.Position.Written = vc.Position.Written.With("eval_positions")
	}
	if v.Depth != nil {
		vc.Task.Depth = v.Depth
	}
	if v.IgnoreProb != nil {
		vc.Task.IgnoreProb = v.IgnoreProb
	}
	return vc
}

// ActiveVariants lists the eval variants that apply to this config (EvalVariant.Applies).
func (c Config) ActiveVariants() []EvalVariant {
	var out []EvalVariant
	for _, v := range c.Eval.Variants {
		if v.Applies(c) {
			out = append(out, v)
		}
	}
	return out
}

func (c Config) validateVariants() error {
	if len(c.Eval.Variants) == 0 && (c.Eval.Variants != nil || c.Written.Has("eval.variants")) {
		return fielderr.New("eval.variants", "the list is empty; list at least one variant, or remove the key for none")
	}
	seen := map[string]bool{}
	for i, v := range c.Eval.Variants {
		field := fmt.Sprintf("eval.variants[%d]", i)
		switch {
		case !variantName.MatchString(v.Name):
			return fielderr.New(field+".name", "want a name of letters, digits, _ and -, got %q", v.Name)
		case seen[v.Name]:
			return fielderr.New(field+".name", "%q is used twice; give each variant its own name", v.Name)
		case v.RopeScaling == "" && v.EvalPositions == "" && v.Depth == nil && v.IgnoreProb == nil:
			return fielderr.New(field, "set rope_scaling, eval_positions, depth or ignore_prob (the options a variant changes at evaluation)")
		case v.RopeFactor != 0 && v.RopeScaling == "":
			return fielderr.New(field+".rope_factor", "a factor goes with rope_scaling: dynamic_ntk; add it, or remove rope_factor")
		case v.RopeLongFactor != "" && v.RopeScaling == "":
			return fielderr.New(field+".rope_long_factor", "per-pair factors go with rope_scaling: longrope; add it, or remove rope_long_factor")
		}
		seen[v.Name] = true
		for j, w := range v.When {
			if _, err := holds(c, w); err != nil {
				return fielderr.Wrap(fmt.Sprintf("%s.when[%d]", field, j), err)
			}
		}
		if !v.Applies(c) {
			if err := c.unknownKindIn(v); err != nil {
				return fielderr.Wrap(field+".when", err)
			}
			continue
		}
		switch {
		case v.RopeScaling != "" && !schemes.HasOption(c.Position.Kind, "rope_scaling"):
			takes := strings.Join(schemes.KindsWith("rope_scaling"), ", ") + " takes"
			if len(schemes.KindsWith("rope_scaling")) > 1 {
				takes = strings.TrimSuffix(takes, "s")
			}
			return fielderr.New(field+".rope_scaling", "only %s it, and this run's position.kind is %s; add when: [position.kind=rope] to the variant", takes, c.Position.Kind)
		case v.EvalPositions != "" && !c.Position.Randomized:
			return fielderr.New(field+".eval_positions", "only randomized positions take it (position.randomized is off in this run); remove it or restrict the variant with when: [position.randomized=true]")
		}
		vc := c.VariantConfig(v)
		if _, err := vc.NewTask(); err != nil { // the variant's task options (depth, ignore_prob)
			var fe *fielderr.Error
			if errors.As(err, &fe) && strings.HasPrefix(fe.Path, "task.") && fe.Path != "task.name" {
				return fielderr.New(field+"."+strings.TrimPrefix(fe.Path, "task."), "%v", fe.Err)
			}
		}
		if _, err := vc.Validate(); err != nil {
			return fielderr.Wrap("", fmt.Errorf("%s (%s): %w", field, v.Name, err)) // the variant's field, not the file's
		}
	}
	return nil
}

// unknownKindIn refuses a when: condition on position.kind that names no scheme (ropee): it
// can hold for no run, whatever the grid.
func (c Config) unknownKindIn(v EvalVariant) error {
	for _, w := range v.When {
		path, want, _ := strings.Cut(w, "=")
		if strings.TrimSpace(path) == "position.kind" && !slices.Contains(schemes.Kinds(), strings.TrimSpace(want)) {
			return fmt.Errorf("%s names no position scheme, so the variant %s is evaluated for no run (known: %s)", w, v.Name, strings.Join(schemes.Kinds(), ", "))
		}
	}
	return nil
}
