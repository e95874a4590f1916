package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/position"
)

// benchEntry is one model `train bench` measures: a registered scheme with its defaults, or a
// variant of one (a name of the form KIND+VARIANT).
type benchEntry struct {
	name string
	spec position.Spec
	// evalOnly: an evaluation variant (rope's scalings act beyond the training length only), whose
	// training step is its scheme's; bench measures its evaluations alone.
	evalOnly bool
}

// benchVariant builds a variant's spec; longest is the longest length bench runs (a randomized
// model's max_random must cover it), dRot the rotated dimensions of a head (longrope's factors).
type benchVariant struct {
	name     string
	evalOnly bool
	spec     func(longest, dRot int) position.Spec
}

// benchVariants are the variants -schemes all measures besides every scheme: the options that
// change the computation's cost, as the grids use them (configs/press2022_2024.yaml,
// literature_2024.yaml): rope's log-length scaling at s = 0.43, randomized positions, and rope's
// scalings at the evaluation lengths beyond -len.
var benchVariants = []benchVariant{
	{"rope+log_scaling", false, func(int, int) position.Spec { return position.Spec{Kind: "rope"}.With("log_scaling", 0.43) }},
	{"rope+randomized", false, func(longest, _ int) position.Spec {
		return position.Spec{Kind: "rope", Randomized: true, MaxRandom: max(position.DefaultMaxRandom, longest)}
	}},
	{"rope+interpolate", true, scaling("interpolate")},
	{"rope+ntk", true, scaling("ntk")},
	{"rope+dynamic_ntk", true, func(int, int) position.Spec {
		return position.Spec{Kind: "rope"}.With("rope_scaling", "dynamic_ntk").With("rope_factor", 2.0)
	}},
	{"rope+yarn", true, scaling("yarn")},
	{"rope+llama3", true, scaling("llama3")},
	{"rope+longrope", true, func(_, dRot int) position.Spec {
		return position.Spec{Kind: "rope"}.With("rope_scaling", "longrope").With("rope_long_factor", longFactors(dRot/2))
	}},
}

func scaling(name string) func(int, int) position.Spec {
	return func(int, int) position.Spec { return position.Spec{Kind: "rope"}.With("rope_scaling", name) }
}

// longFactors are n factors λᵢ from 1 to 16, geometric (as configs/press2022_2024.yaml's).
func longFactors(n int) string {
	f := make([]string, n)
	for i := range f {
		x := 1.0
		if n > 1 {
			x = math.Pow(16, float64(i)/float64(n-1))
		}
		f[i] = strconv.FormatFloat(x, 'g', 3, 64)
	}
	return strings.Join(f, ",")
}

// allSchemes is what -schemes all measures: every scheme and every variant, with none (the
// ratios' base) first, in the middle and last, so that a change of the machine's load during the
// run moves its base as it moves the others (ratioLines takes the median of none's three).
func allSchemes() []string {
	var rest []string
	for _, k := range append(position.Kinds(), variantNames()...) {
		if k != "none" {
			rest = append(rest, k)
		}
	}
	h := len(rest) / 2
	return append(append(append(append([]string{"none"}, rest[:h]...), "none"), rest[h:]...), "none")
}

func variantNames() []string {
	var out []string
	for _, v := range benchVariants {
		out = append(out, v.name)
	}
	return out
}

// parseSchemes reads -schemes into o.entries: scheme kinds, variant names, or all (every scheme,
// then every variant); a digit scheme (abacus, coupled) needs -task.
func (o *benchOptions) parseSchemes() error {
	longest := slices.Max(append([]int{o.speed.Len}, o.evalLens...))
	dRot := o.cfg.DModel / o.cfg.Heads &^ 1
	add := func(s string) error {
		for _, e := range o.entries {
			if e.name == s && s != "none" {
				return nil // named twice: measured once (none, the ratios' base, as often as named)
			}
		}
		if slices.Contains(position.Kinds(), s) {
			if position.ReadsTokens(s) {
				if err := o.checkTask(s); err != nil {
					return err
				}
			}
			spec := position.Spec{Kind: s}
			if s == "learned" { // a table of positions: as many rows as the longest length needs
				spec = spec.With("max_positions", max(256, longest))
			}
			o.entries = append(o.entries, benchEntry{name: s, spec: spec})
			return nil
		}
		for _, v := range benchVariants {
			if v.name == s {
				o.entries = append(o.entries, benchEntry{name: s, spec: v.spec(longest, dRot), evalOnly: v.evalOnly})
				return nil
			}
		}
		return fmt.Errorf("-schemes: unknown scheme %q (known: %s; variants: %s; or all)", s, strings.Join(position.Kinds(), ", "), strings.Join(variantNames(), ", "))
	}
	for _, s := range strings.Split(o.schemesFlag, ",") {
		s = strings.TrimSpace(s)
		names := []string{s}
		switch s {
		case "":
			continue
		case "all":
			names = allSchemes()
		}
		for _, n := range names {
			if err := add(n); err != nil {
				return err
			}
		}
	}
	if len(o.entries) == 0 {
		return fmt.Errorf("-schemes is empty; name at least one of %s, or all", strings.Join(position.Kinds(), ", "))
	}
	o.cfg.Digit0 = o.digit0() // the digit schemes number -task's digit tokens; no other scheme reads it
	if o.evalOnlyAll() && len(o.evalLens) == 0 {
		return fmt.Errorf("-schemes %s are evaluation variants (rope's scalings act beyond -len only) and -eval-lens is empty: give -eval-lens", o.schemesFlag)
	}
	return nil
}

func (o *benchOptions) evalOnlyAll() bool {
	for _, e := range o.entries {
		if !e.evalOnly {
			return false
		}
	}
	return true
}

// checkTask checks that -task names a task with digits whose tokens fit in -vocab, for the digit
// scheme kind.
func (o *benchOptions) checkTask(kind string) error {
	if o.task == "" {
		return fmt.Errorf("-schemes %s numbers the digits of a task's numbers, but -task is empty; set -task addition (the default)", kind)
	}
	t, err := data.New(o.task, data.Options{})
	if err != nil {
		return fmt.Errorf("-task: %w", err)
	}
	if _, ok := data.Digit0(t); !ok {
		return fmt.Errorf("-task %s has no digit tokens, which -schemes %s numbers; set -task addition", o.task, kind)
	}
	if t.Vocab() > o.cfg.Vocab {
		return fmt.Errorf("-task %s has %d tokens but -vocab is %d; set -vocab %d or more", o.task, t.Vocab(), o.cfg.Vocab, t.Vocab())
	}
	return nil
}

// digit0 is -task's token of digit 0 when a digit scheme is measured, else 0 (no digits).
func (o *benchOptions) digit0() int {
	for _, e := range o.entries {
		if position.ReadsTokens(e.spec.Kind) {
			if t, err := data.New(o.task, data.Options{}); err == nil {
				d, _ := data.Digit0(t)
				return d
			}
		}
	}
	return 0
}
