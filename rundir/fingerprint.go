package rundir

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// evalOnly are the fields of a resolved config that only the evaluation after training reads:
// changing them re-evaluates a trained run instead of training it again. name and out only place
// the run; position.rope_scaling acts only beyond the training lengths, and so does
// position.rope_factor and position.rope_long_factor (dynamic_ntk's α, longrope's factors; an
// eval variant may set them). eval.seed and
// position.eval_positions are not among them: validation reads them. tfevents is no setting of
// training either: it only chooses whether the run writes an event file.
var evalOnly = map[string]bool{"name": true, "out": true, "tfevents": true, "eval.lengths": true, "eval.examples": true, "eval.batch_size": true, "eval.variants": true,
	"position.rope_scaling": true, "position.rope_factor": true, "position.rope_long_factor": true}

// Fingerprint is the training-relevant part of a resolved config (config.yaml's bytes) as sorted
// "dotted.path: value" lines: every field but evalOnly, a sweep as one value. Checkpoints carry
// it (package train's trainState.Config), so a checkpoint trained with another config is told
// apart.
func Fingerprint(resolved []byte) string {
	return fields(resolved, false, func(p string) bool { return !evalOnly[p] && !strings.HasPrefix(p, "eval.variants") })
}

// GridFields is a grid.yaml's fields as Fingerprint's lines, every one but out (which only
// places the grid) and each swept field its own line (sweep.<path>), for FingerprintDiff to
// name what changed in a grid.
func GridFields(grid []byte) string {
	return fields(grid, true, func(p string) bool { return p != "out" })
}

// fields is the YAML src's fields that keep keeps as sorted "dotted.path: value" lines; a sweep
// is one value and a list is in block style ("- a - b") unless grid (then sweep.<path> and "[a, b]").
func fields(src []byte, grid bool, keep func(path string) bool) string {
	var root map[string]any
	if err := yaml.Unmarshal(src, &root); err != nil {
		return "unreadable: " + err.Error()
	}
	var lines []string
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		if m, ok := v.(map[string]any); ok && (grid || prefix != "sweep") {
			for k, x := range m {
				p := k
				if prefix != "" {
					p = prefix + "." + k
				}
				walk(p, x)
			}
			return
		}
		if !keep(prefix) {
			return
		}
		b, _ := yaml.Marshal(v)
		if grid {
			n := &yaml.Node{}
			n.Encode(v)
			n.Style = yaml.FlowStyle
			b, _ = yaml.Marshal(n)
		}
		flow := strings.Join(strings.Fields(string(b)), " ")
		lines = append(lines, prefix+": "+flow)
	}
	walk("", root)
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// FingerprintDiff names the fields whose values differ between two fingerprints, as
// "field (old → new)", at most five.
func FingerprintDiff(old, cur string) string {
	parse := func(s string) map[string]string {
		m := map[string]string{}
		for _, l := range strings.Split(s, "\n") {
			if k, v, ok := strings.Cut(l, ": "); ok {
				m[k] = v
			}
		}
		return m
	}
	a, b := parse(old), parse(cur)
	keys := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var diffs []string
	for _, k := range keys {
		if a[k] != b[k] {
			show := func(m map[string]string) string {
				if v, ok := m[k]; ok {
					return v
				}
				return "unset"
			}
			diffs = append(diffs, fmt.Sprintf("%s (%s → %s)", k, show(a), show(b)))
		}
	}
	if len(diffs) > 5 {
		diffs = append(diffs[:5], fmt.Sprintf("and %d more", len(diffs)-5))
	}
	return strings.Join(diffs, ", ")
}
