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

	set options // the options written
	// optsErr is why set does not fit the kind resolvedFor (Spec.Options then nil), resolved by
	// WithDefaults.
	optsErr     error
	resolvedFor string
}

// option is one option key written under position:, its value decoded into the key's type
// (int, float64, string or bool) and as one line of flow YAML, as written (grid.yaml writes it
// back so).
type option struct {
	key   string
	value any
	text  string
	err   error // a value With could not convert to the key's type
}

// options are the options written, sorted by key. A slice never changed in place: setting an
// option in a copy (a grid's cell) never changes the original.
type options []option

// node is the option as it was written, a YAML node.
func (e option) node() (*yaml.Node, error) {
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(e.text), &n); err != nil || len(n.Content) == 0 {
		return nil, fielderr.New("position."+e.key, "%q", e.text)
	}
	return n.Content[0], nil
}

func (o options) get(key string) (option, bool) {
	for _, e := range o {
		if e.key == key {
			return e, true
		}
	}
	return option{}, false
}

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
	s.Spec.Options, s.optsErr = s.resolve()
	s.resolvedFor = s.Kind
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
	if s.resolvedFor != "" && s.resolvedFor == s.Kind {
		return s.Spec.Options, s.optsErr
	}
	return s.resolve()
}

// resolve sets the written options over the kind's defaults.
func (s Position) resolve() (any, error) {
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

// flow is a YAML node as one line of flow YAML.
func flow(n *yaml.Node) string {
	c := *n
	if n.Kind == yaml.ScalarNode {
		if c.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
			c.Style = yaml.DoubleQuotedStyle
		}
	} else {
		c.Style = yaml.FlowStyle
	}
	b, _ := yaml.Marshal(&c)
	return strings.TrimSpace(string(b))
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
	s.setOption(option{key: key, value: v.Interface(), text: flow(n)})
	return nil
}

// setOption records an option written and resolves the options struct again.
func (s *Position) setOption(e option) {
	s.set = s.set.with(e)
	s.reresolve()
}

// reresolve resolves the options struct again for the written options, when it was resolved.
func (s *Position) reresolve() {
	if s.resolvedFor != "" {
		s.Spec.Options, s.optsErr = s.resolve()
		s.resolvedFor = s.Kind
	}
}

// With returns the section with an option set to a Go value, as if written (for code and tests):
// Position{Kind: "rope"}.With("base", 500). An error in the value shows in Validate.
func (s Position) With(key string, value any) Position {
	var n yaml.Node
	if err := n.Encode(value); err != nil {
		panic(err)
	}
	e := option{key: key, value: value, text: flow(&n)}
	if t, ok := schemes.KeyType(key); ok && reflect.ValueOf(value).CanConvert(t) && (t.Kind() == reflect.String) == (reflect.ValueOf(value).Kind() == reflect.String) {
		e.value = reflect.ValueOf(value).Convert(t).Interface()
	} else if !ok {
		e.err = fielderr.Wrap("position."+key, schemes.UnknownKey(key))
	} else {
		e.err = fielderr.New("position."+key, "want a %s, got %v", t, value)
	}
	s.setOption(e)
	return s
}

// Without returns the section without an option key.
func (s Position) Without(key string) Position {
	s.set = s.set.without(key)
	s.reresolve()
	return s
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
func (s Position) MarshalYAML() (any, error) { return s.marshal(false) }

// marshalWritten writes only the keys that were written, as a grid.yaml holds them (nil for none).
func (s Position) marshalWritten() (*yaml.Node, error) {
	m, err := s.marshal(true)
	if err != nil || len(m.Content) == 0 {
		return nil, err
	}
	return m, nil
}

// marshal is MarshalYAML, or with written marshalWritten.
func (s Position) marshal(written bool) (*yaml.Node, error) {
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
	} else if err := s.set.write(m); err != nil {
		return nil, err
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
	return m, nil
}

// write appends the options as they were written to the mapping m.
func (o options) write(m *yaml.Node) error {
	for _, e := range o {
		n, err := e.node()
		if err != nil {
			return err
		}
		pair(m, e.key, n)
	}
	return nil
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

// isWritten tells whether a key of the section was written (an option or a field of Position).
func (s Position) isWritten(key string) bool {
	_, ok := s.set.get(key)
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
