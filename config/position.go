package config

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"

	"github.com/posformer/posformer/internal/fielderr"
	"github.com/posformer/posformer/internal/schemes"
	"github.com/posformer/posformer/internal/yamlkind"
	"github.com/posformer/posformer/position"
	"go.yaml.in/yaml/v3"
)

// Position is the `position:` section as a config holds it: position.Spec (the kind, the
// randomized-positions keys and the record of the keys written, with the defaults position
// declares) and the scheme's own options (declared by the schemes: package internal/schemes, the
// catalogue package position registers them in), each written key decoded once, where the YAML
// is read, into its key's type. WithDefaults, once the kind is known, sets the written values
// over the kind's defaults in the kind's options struct (Spec.Options), which the model's builder
// (package setup) hands the scheme as it is: nothing downstream reads YAML.
type Position struct {
	position.Spec `yaml:",inline"`

	set options // the options written; Spec.Options is them resolved for Kind (nil when they do not fit it)
}

// option is one option key written under position:, its value decoded into the key's type
// (int, float64, string or bool) and as its YAML node, in one line (grid.yaml writes it back so).
type option struct {
	key   string
	value any
	node  *yaml.Node
	err   error // a value With could not convert to the key's type
}

// options are the options written, sorted by key. A slice never changed in place: setting an
// option in a copy (a grid's cell) never changes the original.
type options []option

func (o options) with(e option) options {
	out := make(options, 0, len(o)+1)
	for _, x := range o {
		if x.key != e.key {
			out = append(out, x)
		}
	}
	out = append(out, e)
	slices.SortFunc(out, func(a, b option) int { return strings.Compare(a.key, b.key) })
	return out
}

func (o options) without(key string) options {
	return slices.DeleteFunc(slices.Clone(o), func(x option) bool { return x.key == key })
}

// WithDefaults fills the fields that were not written (and hold zero) with their defaults
// (position.Spec's), and resolves the kind's options struct: its defaults with the written
// options over them.
func (s Position) WithDefaults() Position {
	s.Spec = s.Spec.WithDefaults()
	s.Spec.Options, _ = s.Options()
	return s
}

// Validate checks the section (defaults filled) as data: a known kind, the written options all
// the kind's, the randomized-positions keys with randomized only. The values' ranges are the
// scheme's to check when it is built (package setup).
func (s Position) Validate() error {
	if !schemes.Known(s.Kind) {
		return schemes.UnknownKind(s.Kind)
	}
	if !s.Randomized {
		for _, key := range []string{"max_random", "eval_positions"} {
			if s.Written.Has(key) {
				return fielderr.New("position."+key, "applies to randomized positions only; remove it or set position.randomized: true")
			}
		}
	}
	if _, err := s.Options(); err != nil {
		return err
	}
	if s.Randomized && s.MaxRandom < 1 {
		return fielderr.New("position.max_random", "must be positive, got %d", s.MaxRandom)
	}
	return nil
}

// Options is the kind's options struct (its type is the scheme's, package position's Def's O):
// the kind's defaults with the written options set over them. A key that is not one of the
// kind's options is an error naming it.
func (s Position) Options() (any, error) {
	opts, ok := schemes.DefaultOptions(s.Kind)
	if !ok {
		return nil, schemes.UnknownKind(s.Kind)
	}
	for _, e := range s.set {
		if e.err != nil {
			return nil, e.err
		}
		var err error
		if opts, err = schemes.SetOption(s.Kind, opts, e.key, e.value); err != nil {
			return nil, err
		}
	}
	return opts, nil
}

// flow is a YAML node written in one line.
func flow(n *yaml.Node) *yaml.Node {
	c := *n
	if n.Kind == yaml.ScalarNode {
		if c.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
			c.Style = yaml.DoubleQuotedStyle
		}
	} else {
		c.Style = yaml.FlowStyle
	}
	return &c
}

// DecodeOption sets one option key of the section (the config decoder calls it for every key
// that is not a field of Position), decoding the value into the key's type (the same in every
// scheme that has the key); whether the key belongs to the chosen kind is checked by Validate
// (the kind may be written after it, or swept).
func (s *Position) DecodeOption(key string, n *yaml.Node) error {
	t, ok := schemes.KeyType(key)
	if !ok {
		return schemes.UnknownKey(key)
	}
	v, err := yamlkind.Scalar(t, n)
	if err != nil {
		return err
	}
	*s = s.with(s.set.with(option{key: key, value: v.Interface(), node: flow(n)}))
	return nil
}

// with is the section with the options written set, the options struct resolved again.
func (s Position) with(set options) Position {
	s.set = set
	s.Spec.Options, _ = s.Options()
	return s
}

// With returns the section with an option set to a Go value, as if written (for code and tests):
// Position{Kind: "rope"}.With("base", 500). An error in the value shows in Validate.
func (s Position) With(key string, value any) Position {
	var n yaml.Node
	if err := n.Encode(value); err != nil {
		panic(err)
	}
	e := option{key: key, value: value, node: flow(&n)}
	if t, ok := schemes.KeyType(key); ok && reflect.ValueOf(value).CanConvert(t) && (t.Kind() == reflect.String) == (reflect.ValueOf(value).Kind() == reflect.String) {
		e.value = reflect.ValueOf(value).Convert(t).Interface()
	} else if !ok {
		e.err = fielderr.Wrap("position."+key, schemes.UnknownKey(key))
	} else {
		e.err = fielderr.New("position."+key, "want a %s, got %v", t, value)
	}
	return s.with(s.set.with(e))
}

// Without returns the section without an option key.
func (s Position) Without(key string) Position {
	return s.with(s.set.without(key))
}

// OptionKeys lists the option keys written, sorted.
func (s Position) OptionKeys() []string {
	var out []string
	for _, e := range s.set {
		out = append(out, e.key)
	}
	return out
}

// Option returns the value of an option of the section's kind, its default when not written;
// false when the kind has no such option or the written options do not fit the kind.
func (s Position) Option(key string) (any, bool) {
	o, err := s.WithDefaults().Options()
	if err != nil {
		return nil, false
	}
	return schemes.OptionOf(o, key)
}

// MarshalYAML writes the section as a resolved config holds it: kind, the kind's options (its
// defaults filled, in their declared order) and the randomized-positions keys when set. A spec
// of an unknown kind (or with options the kind does not have) is written as it was given.
func (s Position) MarshalYAML() (any, error) { return s.marshal(false), nil }

// marshalWritten writes only the keys that were written, as a grid.yaml holds them (nil for none).
func (s Position) marshalWritten() *yaml.Node {
	if m := s.marshal(true); len(m.Content) > 0 {
		return m
	}
	return nil
}

// marshal is MarshalYAML, or with written marshalWritten.
func (s Position) marshal(written bool) *yaml.Node {
	m, has := &yaml.Node{Kind: yaml.MappingNode}, s.Written.Has
	if !written || has("kind") {
		pair(m, "kind", enc(s.Kind))
	}
	if o, err := s.Options(); err == nil && !written {
		for _, f := range schemes.Options(s.Kind) {
			if v, _ := schemes.OptionOf(o, f.Key); !schemes.OmitEmpty(s.Kind, f.Key) || !reflect.ValueOf(v).IsZero() {
				pair(m, f.Key, enc(v))
			}
		}
	} else {
		for _, e := range s.set {
			pair(m, e.key, e.node)
		}
	}
	if has("randomized") && written || s.Randomized && !written {
		pair(m, "randomized", enc(s.Randomized))
	}
	if has("max_random") || s.MaxRandom != 0 && !written {
		pair(m, "max_random", enc(s.MaxRandom))
	}
	if has("eval_positions") || s.EvalPositions != "" && !written {
		pair(m, "eval_positions", enc(s.EvalPositions))
	}
	return m
}

// pair appends key: v to the mapping m.
func pair(m *yaml.Node, key string, v *yaml.Node) {
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, v)
}

// enc is a value of the section (a word, a number, a flag) as a YAML node.
func enc(v any) *yaml.Node {
	var n yaml.Node
	_ = n.Encode(v)
	return &n
}

// MarshalJSON writes the section as MarshalYAML does (kind, the kind's options with their
// defaults, the randomized-positions keys), as one JSON object in that order.
func (s Position) MarshalJSON() ([]byte, error) {
	m := s.marshal(false)
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
