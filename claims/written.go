package claims

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/posformer/posformer/internal/yamlkind"
	"go.yaml.in/yaml/v3"
)

// The checks of what a claims file writes that hold for every key alike: the file's shape, a
// list written empty, a control character in a one-line value, a number outside its metric's
// range, a plot that is not a file beside the document.

// fileShape refuses a claims file that holds nothing, is not a mapping of keys, or has a key a
// claims file does not (said as a claims file's, not as the config decoder says it).
func fileShape(root *yaml.Node, path string) error {
	switch {
	case root == nil:
		return fmt.Errorf("%s: the claims file is empty: give title:, tables:, statistic: and claims: (docs/claims/README.md, \"The claims file format\")", path)
	case root.Kind != yaml.MappingNode:
		return fmt.Errorf("%s:%d: a claims file is a mapping of keys (title:, tables:, statistic:, claims:, ...), got %s", path, root.Line, yamlkind.Of(root))
	}
	known := yamlKeys(reflect.TypeFor[File]())
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k := root.Content[i]; !slices.Contains(known, k.Value) {
			return fmt.Errorf("%s:%d: %s: unknown key %q in the claims file (known: %s)", path, k.Line, k.Value, k.Value, strings.Join(slices.Sorted(slices.Values(known)), ", "))
		}
	}
	return nil
}

// prose are the values printed as paragraphs of the document, which may span lines; every
// other value is one line of it (a heading, a table's cell, a link) where a line break would
// start new markdown.
var prose = regexp.MustCompile(`^(about|follow_ups\[\d+\]\.about|notes\[\d+\]\.text)$`)

// markup: a character that changes the markdown around a one-line value: a control character
// (a line break starts a new block) or | (a new cell of a table).
func markup(r rune) bool { return unicode.IsControl(r) || r == '|' }

// checkWritten walks every value the file writes: a list written empty ([]) is refused, not read
// as absent, and a one-line value may hold no markup character.
func (f *File) checkWritten() error {
	var walk func(n *yaml.Node, p string) error
	walk = func(n *yaml.Node, p string) error {
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				if err := walk(n.Content[i+1], strings.TrimPrefix(p+"."+n.Content[i].Value, ".")); err != nil {
					return err
				}
			}
		case yaml.SequenceNode:
			if len(n.Content) == 0 {
				return f.errAt(p, "written empty ([]): list at least one, or remove the key (an empty list is not read as an absent one)")
			}
			for i, c := range n.Content {
				if err := walk(c, fmt.Sprintf("%s[%d]", p, i)); err != nil {
					return err
				}
			}
		case yaml.ScalarNode:
			if i := strings.IndexFunc(n.Value, markup); i >= 0 && !prose.MatchString(p) {
				return f.errAt(p, "holds %+q: it is one line of the document (a heading, a table's cell or a link), where a line break starts new markdown and | a new cell: write it on one line without control characters or | (prose goes in about: or notes:)",
					[]rune(n.Value[i:])[0])
			}
		}
		return nil
	}
	return walk(f.root, "")
}

// metricRange is the range a score of the metric lies in: [0, 1] for an accuracy, [0, ∞) for
// bits per byte.
func metricRange(metric string) (lo, hi float64) {
	if lowerBetter(metric) {
		return 0, math.Inf(1)
	}
	return 0, 1
}

// spread is the largest difference of two scores of the metric (1 for an accuracy, ∞ for bits
// per byte): the range of a margin, a gap or a change.
func spread(metric string) float64 {
	lo, hi := metricRange(metric)
	return hi - lo
}

// within refuses v at path p unless it is finite and lo ≤ v ≤ hi (lo < v when openLo), naming
// what v is and the range.
func within(f *File, p string, v, lo, hi float64, openLo bool, what string) error {
	if v >= lo && v <= hi && !(openLo && v == lo) && !math.IsInf(v, 0) {
		return nil
	}
	in := fmt.Sprintf("in [%g, %g]", lo, hi)
	switch {
	case math.IsInf(lo, -1):
		in = "that is finite"
	case math.IsInf(hi, 1) && openLo:
		in = fmt.Sprintf("> %g, finite", lo)
	case math.IsInf(hi, 1):
		in = fmt.Sprintf("≥ %g, finite", lo)
	case openLo:
		in = fmt.Sprintf("in (%g, %g]", lo, hi)
	}
	return f.errAt(p, "%g is outside the range of %s: give a value %s", v, what, in)
}

// checkPlots refuses a plot that is not an image file beside the document: a link (a scheme such
// as https: or javascript:), an absolute path, or a path that leaves the project the document
// belongs to (the nearest directory above it holding .git or go.mod, else its own directory).
func (f *File) checkPlots() error {
	dir, err := filepath.Abs(filepath.Dir(f.Path))
	if err != nil {
		return err
	}
	root := dir
	for d := dir; ; d = filepath.Dir(d) {
		if exists(filepath.Join(d, ".git")) || exists(filepath.Join(d, "go.mod")) {
			root = d
			break
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	for i, p := range f.Plots {
		at := fmt.Sprintf("plots[%d]", i)
		full := filepath.Join(dir, filepath.FromSlash(p))
		rel, err := filepath.Rel(root, full)
		switch {
		case strings.Contains(strings.SplitN(p, "/", 2)[0], ":"):
			return f.errAt(at, "%q is a link: give the path of an image file relative to the document", p)
		case filepath.IsAbs(p) || strings.HasPrefix(p, "/"):
			return f.errAt(at, "%q is an absolute path: give the image's path relative to the document, so that the link holds wherever the project is", p)
		case err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)):
			return f.errAt(at, "%q leaves the project the document belongs to (the directory above it holding .git or go.mod, else its own): keep the image inside it", p)
		}
		if info, err := os.Stat(full); err != nil || !info.Mode().IsRegular() {
			return f.errAt(at, "no image file %s: give the path of an existing image relative to the document, or remove it", filepath.Join(filepath.Dir(f.Path), p))
		}
	}
	return nil
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
