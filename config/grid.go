package config

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/posformer/posformer/internal/fielderr"
	"github.com/posformer/posformer/internal/schemes"
	"github.com/posformer/posformer/internal/yamlkind"
	"go.yaml.in/yaml/v3"
)

// Sweep is the `sweep:` section: an ordered mapping from dotted field paths to lists of values,
//
//	sweep:
//	  position.kind: [sinusoidal, learned, rope, none]
//	  task.name: [copy, reverse]
//	  seed: [1, 2, 3]
//
// Every combination is one run (a cell); the first axis varies slowest.
type Sweep []Axis

// Axis is one swept field and its values, kept as YAML so each is decoded with the field's
// own type checks.
type Axis struct {
	Path   string
	Values []*yaml.Node
}

func (s *Sweep) decodeYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("want a mapping of field paths to lists of values, e.g. position.kind: [rope, none], got %s", yamlkind.Of(n))
	}
	var out Sweep
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if seen[k.Value] {
			return &fielderr.Error{Line: k.Line, Err: fmt.Errorf("%s is swept twice", k.Value)}
		}
		seen[k.Value] = true
		if k.Value == "sweep" || strings.HasPrefix(k.Value, "sweep.") || k.Value == "name" || k.Value == "out" {
			return &fielderr.Error{Line: k.Line, Err: fmt.Errorf("%s cannot be swept", k.Value)}
		}
		for p := range seen { // a section and a field inside it would each set the field
			if p != k.Value && (strings.HasPrefix(k.Value, p+".") || strings.HasPrefix(p, k.Value+".")) {
				return &fielderr.Error{Line: k.Line, Err: fmt.Errorf("%s and %s are both swept, one inside the other; sweep one of them", p, k.Value)}
			}
		}
		ax := Axis{Path: k.Value}
		v = resolveAliases(v)
		switch {
		case v.Kind == yaml.SequenceNode && len(v.Content) > 0:
			ax.Values = v.Content
		case v.Kind == yaml.SequenceNode:
			return &fielderr.Error{Line: k.Line, Err: fmt.Errorf("%s: the list of values is empty", k.Value)}
		case v.Kind == yaml.ScalarNode && v.Tag != "!!null":
			ax.Values = []*yaml.Node{v}
		default:
			return &fielderr.Error{Line: k.Line, Err: fmt.Errorf("%s: want a list of values, got %s", k.Value, yamlkind.Of(v))}
		}
		out = append(out, ax)
	}
	if len(out) == 0 {
		return errors.New("the sweep is empty; list at least one field, e.g. seed: [1, 2]")
	}
	*s = out
	return nil
}

// resolveAliases returns n with every alias (*name) replaced by a copy of what it names and no
// anchors (&name): a sweep value written with an alias is written back to grid.yaml whole, not
// as an alias whose anchor is gone.
func resolveAliases(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	c := *n
	c.Anchor = ""
	if len(n.Content) > 0 {
		c.Content = make([]*yaml.Node, len(n.Content))
		for i, x := range n.Content {
			c.Content[i] = resolveAliases(x)
		}
	}
	return &c
}

// MarshalYAML writes the sweep back as a mapping.
func (s Sweep) MarshalYAML() (any, error) {
	m := &yaml.Node{Kind: yaml.MappingNode}
	for _, ax := range s {
		seq := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle, Content: ax.Values}
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: ax.Path}, seq)
	}
	return m, nil
}

// Cell is one run of a grid.
type Cell struct {
	Index  int               // position in the grid's stable order
	Name   string            // its run directory's name, from its swept values
	Values map[string]string // swept path → value as written
	Config Config            // the full config, defaults filled, validated
}

// CellError is the error of one cell of a grid (Expand's checks, or setup's checks that need the
// model). Config.At leads it with the -set override that gave the failing field, when one did
// (the -set, given to every cell, is the culprit, not the cell's swept values), else with the
// config file.
type CellError struct {
	Cell   string // the cell's name
	Select bool   // a tuning run of select:
	Err    error
}

func (e *CellError) Error() string { return e.where() + ": " + e.Err.Error() }

// where names the cell: "sweep cell NAME" (a select: tuning run's: "select: sweep cell NAME").
func (e *CellError) where() string {
	if e.Select {
		return "select: sweep cell " + e.Cell
	}
	return "sweep cell " + e.Cell
}

func (e *CellError) Unwrap() error { return e.Err }

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._+-]+`)

// Expand returns the cells of a config: one per combination of swept values (one cell, the
// config itself, when there is no sweep). Every cell is validated; an error names the cell.
// Cell configs write to Out/<grid name>/<cell name>, the grid name being the config's name
// (default: "grid").
func Expand(c Config) ([]Cell, error) {
	if len(c.Sweep) == 0 {
		c = c.WithDefaults()
		if _, err := c.Validate(); err != nil {
			return nil, err
		}
		return []Cell{{Index: 0, Name: c.Name, Config: c}}, nil
	}
	if c.Written.Has("name") && c.Name == "" {
		return nil, fielderr.New("name", "empty; remove the key for the default grid name, grid")
	}
	if c.Written.Has("out") && c.Out == "" {
		return nil, fielderr.New("out", "empty; remove the key for the default output directory runs")
	}
	gridName := c.GridName()
	if strings.ContainsAny(gridName, `/\`) || gridName == "." || gridName == ".." || strings.IndexFunc(gridName, unicode.IsControl) >= 0 {
		return nil, fielderr.New("name", "%q must be a plain directory name, the grid's directory under out (no slashes or control characters); choose another name", gridName)
	}
	const maxCells = 100000
	n := 1
	for _, ax := range c.Sweep {
		if len(ax.Values) > maxCells/n { // checked before multiplying: the product could overflow
			return nil, fielderr.New("sweep", "more than %d cells (the product of the lists' lengths); sweep fewer values or split the grid", maxCells)
		}
		n *= len(ax.Values)
	}
	cells := make([]Cell, 0, n)
	names := make(map[string]int, n) // cell name → index
	idx := make([]int, len(c.Sweep))
	for i := 0; i < n; i++ {
		// idx counts in mixed radix, the last axis fastest.
		rem := i
		for a := len(c.Sweep) - 1; a >= 0; a-- {
			idx[a] = rem % len(c.Sweep[a].Values)
			rem /= len(c.Sweep[a].Values)
		}
		cc := c.WithoutSelect()
		cc.Sweep = nil
		cc.Name = ""
		var parts []string
		vals := map[string]string{}
		for a, ax := range c.Sweep {
			v := ax.Values[idx[a]]
			if err := setNode(&cc, ax.Path, v, "sweep"); err != nil {
				return nil, err
			}
			text := v.Value
			if v.Kind != yaml.ScalarNode { // one line of flow YAML, however the file wrote it
				flow := *v
				flow.Style = yaml.FlowStyle
				b, _ := yaml.Marshal(&flow)
				text = strings.TrimSpace(string(b))
			}
			vals[ax.Path] = text
			parts = append(parts, ax.Path+"-"+unsafeName.ReplaceAllString(nameOf(v), "_"))
		}
		cc.Name = strings.Join(parts, "__")
		cc.Out = GridDir(c)
		cc = cc.WithDefaults()
		if j, dup := names[cc.Name]; dup {
			return nil, fielderr.New("sweep", "cells %d and %d are both named %s (a value listed twice, or values that differ only in characters a directory name cannot hold); list each value once", j, i, cc.Name)
		}
		names[cc.Name] = i
		cells = append(cells, Cell{Index: i, Name: cc.Name, Values: vals, Config: cc})
	}
	dropOtherSchemesOptions(c, cells)
	runs := make(map[string]int, len(cells)) // each cell's config but its name → its index
	for i, cell := range cells {
		if _, err := cell.Config.Validate(); err != nil {
			return nil, &CellError{Cell: cell.Name, Err: err}
		}
		anon := cell.Config
		anon.Name = ""
		b, err := yaml.Marshal(anon)
		if err != nil {
			return nil, err
		}
		if j, dup := runs[string(b)]; dup {
			return nil, fielderr.New("sweep", "cells %s and %s are the same run (%s); list each value once", cells[j].Name, cell.Name, sameValues(c.Sweep, cells[j], cell))
		}
		runs[string(b)] = i
	}
	return cells, unmatchedVariant(c, cells)
}

// unmatchedVariant refuses an eval.variants entry whose when: holds for no cell of the grid (a
// misspelt value, position.kind=ropee): it would be evaluated nowhere, without a word.
func unmatchedVariant(c Config, cells []Cell) error {
	for i, v := range c.Eval.Variants {
		if len(v.When) == 0 {
			continue
		}
		matched := false
		for _, cell := range cells {
			matched = matched || v.Applies(cell.Config)
		}
		if !matched {
			return fielderr.New(fmt.Sprintf("eval.variants[%d].when", i), "%s holds for no run of the grid, so the variant %s would be evaluated nowhere; correct the values (they are the runs' resolved fields, e.g. position.kind=rope) or remove the variant", strings.Join(v.When, " and "), v.Name)
		}
	}
	return nil
}

// sameValues says which swept values of two cells that make the same run differ only in how
// they are written ("seed: 1 and 01 are one value").
func sameValues(sweep Sweep, a, b Cell) string {
	var parts []string
	for _, ax := range sweep {
		if va, vb := a.Values[ax.Path], b.Values[ax.Path]; va != vb {
			parts = append(parts, fmt.Sprintf("%s: %s and %s are one value", ax.Path, va, vb))
		}
	}
	return strings.Join(parts, "; ")
}

// dropOtherSchemesOptions lets a grid's base carry the options of every scheme its sweep
// selects (literature.yaml's position.max_positions is learned's): each cell keeps those of its
// own scheme. An option of a scheme no cell selects, or one a cell's own sweep value sets, stays,
// for Validate to refuse.
func dropOtherSchemesOptions(base Config, cells []Cell) {
	selected := map[string]bool{}
	for _, cell := range cells {
		selected[cell.Config.Position.Kind] = true
	}
	for i := range cells {
		p := &cells[i].Config.Position
		for _, key := range p.OptionKeys() {
			if schemes.HasOption(p.Kind, key) || !slices.Contains(base.Position.OptionKeys(), key) || sweptOption(cells[i].Values, key) {
				continue
			}
			for kind := range selected {
				if schemes.HasOption(kind, key) {
					*p = p.Without(key)
					break
				}
			}
		}
	}
}

// sweptOption tells whether a cell's swept values set position.<key>.
func sweptOption(values map[string]string, key string) bool {
	if _, ok := values["position."+key]; ok {
		return true
	}
	v, ok := values["position"]
	if !ok {
		return false
	}
	var m map[string]any
	return yaml.Unmarshal([]byte(v), &m) == nil && m[key] != nil
}

// nameOf is a swept value as it appears in a cell's directory name: a scalar as itself, a
// mapping as its values, each but a "kind" after its key ({kind: rope, rope_scaling: ntk} is
// rope_rope_scaling-ntk), anything else as its YAML text.
func nameOf(v *yaml.Node) string {
	switch v.Kind {
	case yaml.ScalarNode:
		return v.Value
	case yaml.MappingNode:
		var parts []string
		for i := 0; i+1 < len(v.Content); i += 2 {
			k, x := v.Content[i].Value, nameOf(v.Content[i+1])
			if k == "kind" {
				parts = append(parts, x)
			} else {
				parts = append(parts, k+"-"+x)
			}
		}
		return strings.Join(parts, "_")
	}
	b, _ := yaml.Marshal(v)
	return strings.TrimSpace(string(b))
}

// GridDir is where a config's runs go: Out/<name> for a grid, Out for a single run.
func GridDir(c Config) string {
	if len(c.Sweep) == 0 {
		return c.WithDefaults().Out
	}
	return filepath.Join(c.OutDir(), c.GridName())
}

// GridName is a grid's name, its directory under out: name:, or "grid" when it is not written.
func (c Config) GridName() string { return cmp.Or(c.Name, "grid") }

// DefaultOut is the default output directory, out:.
const DefaultOut = "runs"

// OutDir is the output directory: out:, or DefaultOut when it is not written (a grid's base has
// no defaults filled).
func (c Config) OutDir() string { return cmp.Or(c.Out, DefaultOut) }

// gridHeader is the first line of a grid.yaml (MarshalGrid): the file holds the keys the grid's
// config wrote, so the fields it leaves out take their defaults (see Load for older files).
const gridHeader = "# posformer grid: the keys written in the config and its -set overrides; the others take their defaults\n"

// MarshalGrid writes a grid's config as its grid.yaml: gridHeader, then only the keys that were
// written (in the file, by -set), each with its value, and the sweep. Reading it back (Load)
// gives the same config, written keys included.
func MarshalGrid(c Config) ([]byte, error) {
	root := writtenNode(reflect.ValueOf(c), "", nil)
	if root == nil {
		root = &yaml.Node{Kind: yaml.MappingNode}
	}
	b, err := yaml.Marshal(root)
	if err != nil {
		return nil, err
	}
	return append([]byte(gridHeader), b...), nil
}

// writtenNode is the YAML of the written keys of struct v at path (nil when none), h the
// presence record in force.
func writtenNode(v reflect.Value, path string, h *holder) *yaml.Node {
	h = holderOf(v, path, h)
	m := &yaml.Node{Kind: yaml.MappingNode}
	for _, f := range reflect.VisibleFields(v.Type()) {
		name, ok := yamlName(f)
		if !ok {
			continue
		}
		fv, p := v.FieldByIndex(f.Index), join(path, name)
		var val *yaml.Node
		switch {
		case p == "sweep" && fv.Len() > 0:
			val = enc(fv.Interface())
		case fv.Type() == reflect.TypeFor[Position](): // it writes its own keys, the schemes' options among them
			val = fv.Interface().(Position).marshalWritten()
		case fv.Kind() == reflect.Struct:
			val = writtenNode(fv, p, h)
		case p != "sweep" && h.has(p):
			val = enc(fv.Interface())
		}
		if val != nil {
			pair(m, name, val)
		}
	}
	if len(m.Content) == 0 {
		return nil
	}
	return m
}
