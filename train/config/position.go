package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/posformer/posformer/internal/presence"
	"github.com/posformer/posformer/internal/yamlkind"
	"github.com/posformer/posformer/position"
	"go.yaml.in/yaml/v3"
)

// Position is the `position:` section as a config holds it: the kind, the randomized-positions
// keys, and the scheme's own options (declared by the schemes, position.Def) as the YAML wrote
// them, with a record of the keys written. Spec decodes the options once into the scheme's
// options struct and hands position a typed position.Spec; position itself reads no YAML.
type Position struct {
	// Kind is the scheme (position.Kinds()). Default: sinusoidal. Empty: refused.
	Kind string `yaml:"kind" json:"kind"`
	// Randomized trains on randomized positions (Ruoss et al. 2023), for the schemes that take
	// them (position.Randomizable). Default: false.
	Randomized bool `yaml:"randomized,omitempty" json:"randomized,omitempty"`
	// MaxRandom is L_max, the bound of randomized positions. Default: 256 (with randomized).
	// 0: refused.
	MaxRandom int `yaml:"max_random,omitempty" json:"max_random,omitempty"`
	// EvalPositions is how a randomized model is evaluated: random or plain. Default: random
	// (with randomized). Empty: refused.
	EvalPositions string `yaml:"eval_positions,omitempty" json:"eval_positions,omitempty"`

	// Written records the fields above that were written below position: ("kind", ...); the
	// options written are in raw.
	Written presence.Keys `yaml:"-" json:"-"`
	raw     rawOptions
}

// WithDefaults fills the fields that were not written (and hold zero) with their defaults; the
// scheme's options take theirs in Spec.
func (s Position) WithDefaults() Position {
	w := s.Written
	presence.Fill(w, "kind", &s.Kind, position.DefaultKind)
	if s.Randomized {
		presence.Fill(w, "max_random", &s.MaxRandom, position.DefaultMaxRandom)
		presence.Fill(w, "eval_positions", &s.EvalPositions, position.DefaultEvalPositions)
	}
	return s
}

// Spec is the section as the scheme takes it (defaults filled): the written options decoded
// into the kind's options struct over its defaults. A key the kind does not have, a value of the
// wrong type, or a randomized-positions key without randomized is an error naming the field.
func (s Position) Spec() (position.Spec, error) {
	s = s.WithDefaults()
	if !slices.Contains(position.Kinds(), s.Kind) {
		return position.Spec{}, fmt.Errorf("position.kind: unknown scheme %q (known: %s)", s.Kind, strings.Join(position.Kinds(), ", "))
	}
	if !s.Randomized {
		for _, key := range []string{"max_random", "eval_positions"} {
			if s.Written.Has(key) {
				return position.Spec{}, fmt.Errorf("position.%s: applies to randomized positions only; remove it or set position.randomized: true", key)
			}
		}
	}
	opts, err := s.options()
	if err != nil {
		return position.Spec{}, err
	}
	if s.Randomized && s.MaxRandom < 1 {
		return position.Spec{}, fmt.Errorf("position.max_random: must be positive, got %d", s.MaxRandom)
	}
	return position.Spec{Kind: s.Kind, Options: opts, Randomized: s.Randomized, MaxRandom: s.MaxRandom, EvalPositions: s.EvalPositions}, nil
}

// ParamCount is the number of trainable parameters the section's scheme adds for the dimensions
// (position.ParamCount), 0 when it adds none or the section does not decode.
func (s Position) ParamCount(d position.Dims) int {
	spec, err := s.Spec()
	if err != nil {
		return 0
	}
	return position.ParamCount(spec, d)
}

// options decodes the written options of the section's kind over its defaults. A key that is
// not one of the kind's options is an error naming it.
func (s Position) options() (any, error) {
	opts, ok := position.DefaultOptions(s.Kind)
	if !ok {
		return nil, fmt.Errorf("position.kind: unknown scheme %q (known: %s)", s.Kind, strings.Join(position.Kinds(), ", "))
	}
	for _, e := range s.raw.entries() {
		t, ok := position.OptionType(s.Kind, e[0])
		if !ok {
			return nil, position.NotAnOption(s.Kind, e[0])
		}
		x, err := parseScalar(t, e[1])
		if err != nil {
			return nil, fmt.Errorf("position.%s: %w", e[0], err)
		}
		if opts, err = position.SetOption(s.Kind, opts, e[0], x.Interface()); err != nil {
			return nil, err
		}
	}
	return opts, nil
}

// parseScalar reads a YAML scalar as a value of type t, strictly: an int must be a whole number,
// a float a finite number, a bool true or false, a string a word.
func parseScalar(t reflect.Type, text string) (reflect.Value, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		return reflect.Value{}, fmt.Errorf("the value is not valid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}
	if len(doc.Content) > 0 {
		n = doc.Content[0]
	}
	return scalarValue(t, n)
}

// scalarValue decodes n as a value of type t, with the config decoder's checks.
func scalarValue(t reflect.Type, n *yaml.Node) (reflect.Value, error) {
	v := reflect.New(t).Elem()
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return v, fmt.Errorf("no value given; write a value or remove the key to use the default")
	}
	if n.Kind != yaml.ScalarNode {
		return v, fmt.Errorf("want a single value, got %s", yamlkind.Of(n))
	}
	switch t.Kind() {
	case reflect.Int:
		x, err := strconv.ParseInt(n.Value, 10, 64)
		if err != nil || n.Tag != "!!int" {
			return v, fmt.Errorf("want a whole number, got %s", yamlkind.Of(n))
		}
		v.SetInt(x)
	case reflect.Float64:
		x, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
		if err != nil || (n.Tag != "!!float" && n.Tag != "!!int") {
			return v, fmt.Errorf("want a number, got %s", yamlkind.Of(n))
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return v, fmt.Errorf("want a finite number, got %s", yamlkind.Of(n))
		}
		v.SetFloat(x)
	case reflect.String:
		if n.Tag != "!!str" {
			return v, fmt.Errorf("want a word, got %s; quote it if you mean the text", yamlkind.Of(n))
		}
		v.SetString(n.Value)
	case reflect.Bool:
		x, err := strconv.ParseBool(n.Value)
		if err != nil || n.Tag != "!!bool" {
			return v, fmt.Errorf("want true or false, got %s", yamlkind.Of(n))
		}
		v.SetBool(x)
	}
	return v, nil
}

// rawOptions are the option keys written under position:, each with its value as one line of
// YAML ("key\tvalue\n" lines, sorted by key). A string, so a Spec copies as a value: setting an
// option in a copy (a grid's cell) never changes the original.
type rawOptions string

func (r rawOptions) entries() [][2]string {
	var out [][2]string
	for _, line := range strings.Split(string(r), "\n") {
		if k, v, ok := strings.Cut(line, "\t"); ok {
			out = append(out, [2]string{k, v})
		}
	}
	return out
}

func (r rawOptions) get(key string) (string, bool) {
	for _, e := range r.entries() {
		if e[0] == key {
			return e[1], true
		}
	}
	return "", false
}

func (r rawOptions) with(key, value string) rawOptions {
	m := map[string]string{key: value}
	for _, e := range r.entries() {
		if e[0] != key {
			m[e[0]] = e[1]
		}
	}
	return fromMap(m)
}

func (r rawOptions) without(key string) rawOptions {
	m := map[string]string{}
	for _, e := range r.entries() {
		if e[0] != key {
			m[e[0]] = e[1]
		}
	}
	return fromMap(m)
}

func fromMap(m map[string]string) rawOptions {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k + "\t" + m[k] + "\n")
	}
	return rawOptions(b.String())
}

// flow is a YAML node as one line of flow YAML.
func flow(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		c := *n
		if c.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
			c.Style = yaml.DoubleQuotedStyle
		}
		b, _ := yaml.Marshal(&c)
		return strings.TrimSpace(string(b))
	}
	c := *n
	c.Style = yaml.FlowStyle
	b, _ := yaml.Marshal(&c)
	return strings.TrimSpace(string(b))
}

// DecodeOption sets one option key of the section (the config decoder calls it for every key
// that is not a field of Position). The value must have the key's type in every scheme that has
// the key; whether the key belongs to the chosen kind is checked when the scheme is built (the
// kind may be written after it, or swept).
func (s *Position) DecodeOption(key string, n *yaml.Node) error {
	types := position.OptionTypes(key)
	if len(types) == 0 {
		return fmt.Errorf("unknown key %q in section position (known: %s)", key, strings.Join(position.AllKeys(), ", "))
	}
	for _, t := range types {
		if _, err := scalarValue(t, n); err != nil {
			return err
		}
	}
	s.raw = s.raw.with(key, flow(n))
	return nil
}

// With returns the section with an option set to a Go value, as if written (for code and tests):
// Position{Kind: "rope"}.With("base", 500). An error in the value shows in Spec.
func (s Position) With(key string, value any) Position {
	var n yaml.Node
	if err := n.Encode(value); err != nil {
		panic(err)
	}
	s.raw = s.raw.with(key, flow(&n))
	return s
}

// Without returns the section without an option key.
func (s Position) Without(key string) Position {
	s.raw = s.raw.without(key)
	return s
}

// OptionKeys lists the option keys written, sorted.
func (s Position) OptionKeys() []string {
	var out []string
	for _, e := range s.raw.entries() {
		out = append(out, e[0])
	}
	return out
}

// Option returns the value of an option of the section's kind, its default when not written;
// false when the kind has no such option or the written value does not decode.
func (s Position) Option(key string) (any, bool) {
	s = s.WithDefaults()
	o, err := s.options()
	if err != nil {
		return nil, false
	}
	return position.OptionOf(o, key)
}

// MarshalYAML writes the section as a resolved config holds it: kind, the kind's options (its
// defaults filled, in their declared order) and the randomized-positions keys when set. A spec
// of an unknown kind (or with options the kind does not have) is written as it was given.
func (s Position) MarshalYAML() (any, error) {
	m := &yaml.Node{Kind: yaml.MappingNode}
	add := func(key string, value any) error {
		var n yaml.Node
		if err := n.Encode(value); err != nil {
			return err
		}
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, &n)
		return nil
	}
	if err := add("kind", s.Kind); err != nil {
		return nil, err
	}
	if o, err := s.options(); err == nil {
		for _, f := range position.Options(s.Kind) {
			v, _ := position.OptionOf(o, f.Key)
			if position.OmitEmpty(s.Kind, f.Key) && reflect.ValueOf(v).IsZero() {
				continue
			}
			if err := add(f.Key, v); err != nil {
				return nil, err
			}
		}
	} else {
		for _, e := range s.raw.entries() {
			var n yaml.Node
			if err := yaml.Unmarshal([]byte(e[1]), &n); err != nil || len(n.Content) == 0 {
				return nil, fmt.Errorf("position.%s: %q", e[0], e[1])
			}
			m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: e[0]}, n.Content[0])
		}
	}
	if s.Randomized {
		if err := add("randomized", true); err != nil {
			return nil, err
		}
	}
	if s.MaxRandom != 0 || s.Written.Has("max_random") {
		if err := add("max_random", s.MaxRandom); err != nil {
			return nil, err
		}
	}
	if s.EvalPositions != "" || s.Written.Has("eval_positions") {
		if err := add("eval_positions", s.EvalPositions); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// MarshalWritten writes only the keys that were written, as a grid.yaml holds them.
func (s Position) MarshalWritten() (*yaml.Node, error) {
	m := &yaml.Node{Kind: yaml.MappingNode}
	add := func(key string, n *yaml.Node) {
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, n)
	}
	enc := func(v any) *yaml.Node {
		var n yaml.Node
		_ = n.Encode(v)
		return &n
	}
	if s.Written.Has("kind") {
		add("kind", enc(s.Kind))
	}
	for _, e := range s.raw.entries() {
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(e[1]), &n); err != nil || len(n.Content) == 0 {
			return nil, fmt.Errorf("position.%s: %q", e[0], e[1])
		}
		add(e[0], n.Content[0])
	}
	if s.Written.Has("randomized") {
		add("randomized", enc(s.Randomized))
	}
	if s.Written.Has("max_random") {
		add("max_random", enc(s.MaxRandom))
	}
	if s.Written.Has("eval_positions") {
		add("eval_positions", enc(s.EvalPositions))
	}
	if len(m.Content) == 0 {
		return nil, nil
	}
	return m, nil
}

// IsWritten tells whether a key of the section was written (an option or a field of Position).
func (s Position) IsWritten(key string) bool {
	_, ok := s.raw.get(key)
	return ok || s.Written.Has(key)
}

// MarshalJSON writes the section as MarshalYAML does (kind, the kind's options with their
// defaults, the randomized-positions keys), as one JSON object in that order.
func (s Position) MarshalJSON() ([]byte, error) {
	y, err := s.MarshalYAML()
	if err != nil {
		return nil, err
	}
	m := y.(*yaml.Node)
	var b bytes.Buffer
	b.WriteByte('{')
	for i := 0; i+1 < len(m.Content); i += 2 {
		var v any
		if err := m.Content[i+1].Decode(&v); err != nil {
			return nil, err
		}
		k, _ := json.Marshal(m.Content[i].Value)
		x, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(x)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
