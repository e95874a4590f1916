package position

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

	"github.com/posformer/posformer/internal/yamlkind"
	"go.yaml.in/yaml/v3"
)

// A scheme's options are a struct of its own, declared in the scheme's file. Each exported field
// is one key of the `position:` section, described by its tags:
//
//	yaml:"base"           the key (",omitempty": left out of a resolved config when zero)
//	default:"10000"       the value when the key is not written (no tag: the zero value)
//	doc:"frequency base"  one line for configs/README.md and the `pe` flags' help
//
// Field types are int, float64, string or bool. A written value is kept, 0 included; the
// scheme's constructor refuses it, naming position.<key>, when it cannot be used.

// Def registers a scheme: its kind, its options type O (struct{} for none) and how to build it.
type Def[O any] struct {
	Kind string
	// Doc is one line for configs/README.md: what the scheme is, with its source.
	Doc string
	// New builds the scheme from its options (defaults filled) for the model's dimensions.
	// Errors name the config field and the fix.
	New func(o O, d Dims) (Scheme, error)
	// Params counts the trainable parameters the scheme adds, from the sizes alone (the
	// config's size check runs before anything is allocated); nil for none.
	Params func(o O, d Dims) int
	// Randomizable: the scheme takes randomized positions (position.randomized, Ruoss et al.
	// 2023), the scheme reading each token's position from Ctx.Pos.
	Randomizable bool
}

// kindDef is a Def without its options type.
type kindDef struct {
	kind, doc    string
	optType      reflect.Type // the options struct
	build        func(o any, d Dims) (Scheme, error)
	params       func(o any, d Dims) int
	randomizable bool
}

var registry = map[string]*kindDef{}

// Register adds a scheme (from an init function: a new scheme is one file). It panics on a
// kind registered twice or an options type whose tags are not understood.
func Register[O any](d Def[O]) {
	if _, dup := registry[d.Kind]; dup {
		panic("position: scheme registered twice: " + d.Kind)
	}
	t := reflect.TypeFor[O]()
	if t.Kind() != reflect.Struct {
		panic("position: the options of " + d.Kind + " must be a struct")
	}
	k := &kindDef{kind: d.Kind, doc: d.Doc, optType: t, randomizable: d.Randomizable,
		build: func(o any, dims Dims) (Scheme, error) { return d.New(o.(O), dims) }}
	if d.Params != nil {
		k.params = func(o any, dims Dims) int { return d.Params(o.(O), dims) }
	}
	for _, f := range optionFields(t) {
		if common[f.key] {
			panic("position: option " + f.key + " of " + d.Kind + " is a key of every scheme")
		}
		if f.def != "" {
			if _, err := parseScalar(f.typ, f.def); err != nil {
				panic(fmt.Sprintf("position: default of %s.%s: %v", d.Kind, f.key, err))
			}
		}
	}
	registry[d.Kind] = k
}

// Kinds lists the registered schemes, sorted.
func Kinds() []string {
	ks := make([]string, 0, len(registry))
	for k := range registry {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// common are the keys of position: that every scheme has (the fields of Spec).
var common = map[string]bool{"kind": true, "randomized": true, "max_random": true, "eval_positions": true}

// OptionDoc describes one option of a scheme.
type OptionDoc struct {
	Key     string // the key under position:
	Type    string // int, float, string or bool
	Default string // as written when the key is absent ("" for the zero value)
	Doc     string
}

// optionField is one option of a scheme's options struct.
type optionField struct {
	OptionDoc
	key       string
	index     int
	typ       reflect.Type
	def       string
	omitempty bool
}

func optionFields(t reflect.Type) []optionField {
	var out []optionField
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" || name == "-" {
			panic("position: option field " + t.Name() + "." + f.Name + " needs a yaml key")
		}
		typ := map[reflect.Kind]string{reflect.Int: "int", reflect.Float64: "float", reflect.String: "string", reflect.Bool: "bool"}[f.Type.Kind()]
		if typ == "" {
			panic("position: option " + name + " has type " + f.Type.String() + " (want int, float64, string or bool)")
		}
		out = append(out, optionField{
			OptionDoc: OptionDoc{Key: name, Type: typ, Default: f.Tag.Get("default"), Doc: f.Tag.Get("doc")},
			key:       name, index: i, typ: f.Type, def: f.Tag.Get("default"), omitempty: opts == "omitempty",
		})
	}
	return out
}

// Options lists the options of a kind, in their declared order (nil for an unknown kind).
func Options(kind string) []OptionDoc {
	k, ok := registry[kind]
	if !ok {
		return nil
	}
	var out []OptionDoc
	for _, f := range optionFields(k.optType) {
		out = append(out, f.OptionDoc)
	}
	return out
}

// Doc is a kind's one-line description.
func Doc(kind string) string {
	if k, ok := registry[kind]; ok {
		return k.doc
	}
	return ""
}

// Randomizable tells whether a kind takes randomized positions.
func Randomizable(kind string) bool {
	k, ok := registry[kind]
	return ok && k.randomizable
}

// kindsWith lists the kinds that have an option key.
func kindsWith(key string) []string {
	var out []string
	for _, kind := range Kinds() {
		if slices.ContainsFunc(Options(kind), func(o OptionDoc) bool { return o.Key == key }) {
			out = append(out, kind)
		}
	}
	return out
}

// IsOption tells whether key is an option of some registered scheme.
func IsOption(key string) bool { return len(kindsWith(key)) > 0 }

// HasOption tells whether key is an option of kind.
func HasOption(kind, key string) bool { return slices.Contains(kindsWith(key), kind) }

// AllKeys lists every key position: accepts: the common ones and every scheme's options.
func AllKeys() []string {
	keys := []string{"kind", "randomized", "max_random", "eval_positions"}
	for _, kind := range Kinds() {
		for _, o := range Options(kind) {
			if !slices.Contains(keys, o.Key) {
				keys = append(keys, o.Key)
			}
		}
	}
	sort.Strings(keys)
	return keys
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
// that is not a field of Spec). The value must have the key's type in every scheme that has
// the key; whether the key belongs to the chosen kind is checked when the scheme is built (the
// kind may be written after it, or swept).
func (s *Spec) DecodeOption(key string, n *yaml.Node) error {
	kinds := kindsWith(key)
	if len(kinds) == 0 {
		return fmt.Errorf("unknown key %q in section position (known: %s)", key, strings.Join(AllKeys(), ", "))
	}
	for _, kind := range kinds {
		for _, f := range optionFields(registry[kind].optType) {
			if f.key == key {
				if _, err := scalarValue(f.typ, n); err != nil {
					return err
				}
			}
		}
	}
	s.raw = s.raw.with(key, flow(n))
	return nil
}

// With returns the spec with an option set to a Go value (for code and tests):
// Spec{Kind: "rope"}.With("base", 500). An error in the value shows when the scheme is built.
func (s Spec) With(key string, value any) Spec {
	var n yaml.Node
	if err := n.Encode(value); err != nil {
		panic(err)
	}
	s.raw = s.raw.with(key, flow(&n))
	return s
}

// Without returns the spec without an option key.
func (s Spec) Without(key string) Spec {
	s.raw = s.raw.without(key)
	return s
}

// OptionKeys lists the option keys written, sorted.
func (s Spec) OptionKeys() []string {
	var out []string
	for _, e := range s.raw.entries() {
		out = append(out, e[0])
	}
	return out
}

// Option returns the value of an option of the spec's kind, its default when not written; false
// when the kind has no such option or the written value does not decode.
func (s Spec) Option(key string) (any, bool) {
	s = s.WithDefaults()
	k, ok := registry[s.Kind]
	if !ok {
		return nil, false
	}
	o, err := s.options(k)
	if err != nil {
		return nil, false
	}
	for _, f := range optionFields(k.optType) {
		if f.key == key {
			return reflect.ValueOf(o).Field(f.index).Interface(), true
		}
	}
	return nil, false
}

// options decodes the written options of kind k over its defaults. A key that is not one of
// k's options is an error naming it.
func (s Spec) options(k *kindDef) (any, error) {
	fields := optionFields(k.optType)
	v := reflect.New(k.optType).Elem()
	for _, f := range fields {
		if f.def != "" {
			d, _ := parseScalar(f.typ, f.def)
			v.Field(f.index).Set(d)
		}
	}
	for _, e := range s.raw.entries() {
		i := slices.IndexFunc(fields, func(f optionField) bool { return f.key == e[0] })
		if i < 0 {
			var own []string
			for _, f := range fields {
				own = append(own, f.key)
			}
			has := "no options"
			if len(own) > 0 {
				has = "options " + strings.Join(own, ", ")
			}
			return nil, fmt.Errorf("position.%s: not an option of %s (it has %s; %s is an option of %s); remove it or change position.kind", e[0], k.kind, has, e[0], strings.Join(kindsWith(e[0]), ", "))
		}
		x, err := parseScalar(fields[i].typ, e[1])
		if err != nil {
			return nil, fmt.Errorf("position.%s: %w", e[0], err)
		}
		v.Field(fields[i].index).Set(x)
	}
	return v.Interface(), nil
}

// MarshalYAML writes the section as a resolved config holds it: kind, the kind's options (its
// defaults filled, in their declared order) and the randomized-positions keys when set. A spec
// of an unknown kind (or with options the kind does not have) is written as it was given.
func (s Spec) MarshalYAML() (any, error) {
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
	k, ok := registry[s.Kind]
	var o any
	var err error
	if ok {
		o, err = s.options(k)
	}
	if ok && err == nil {
		for _, f := range optionFields(k.optType) {
			fv := reflect.ValueOf(o).Field(f.index)
			if f.omitempty && fv.IsZero() {
				continue
			}
			if err := add(f.key, fv.Interface()); err != nil {
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
func (s Spec) MarshalWritten() (*yaml.Node, error) {
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

// Written tells whether a key of the section was written (an option or a field of Spec).
func (s Spec) IsWritten(key string) bool {
	_, ok := s.raw.get(key)
	return ok || s.Written.Has(key)
}

// ParamCount is the number of trainable parameters the spec's scheme adds for the dimensions,
// from the sizes alone (0 when it adds none or the spec does not build).
func ParamCount(s Spec, d Dims) int {
	s = s.WithDefaults()
	k, ok := registry[s.Kind]
	if !ok || k.params == nil {
		return 0
	}
	o, err := s.options(k)
	if err != nil {
		return 0
	}
	return k.params(o, d)
}

// OptionsMarkdown is the reference of the registered schemes and their options, as
// configs/README.md holds it (a test checks the file against it).
func OptionsMarkdown() string {
	var b strings.Builder
	b.WriteString("| kind | scheme | options | randomized positions |\n| --- | --- | --- | --- |\n")
	for _, kind := range Kinds() {
		var keys []string
		for _, o := range Options(kind) {
			keys = append(keys, "`"+o.Key+"`")
		}
		opts, rnd := strings.Join(keys, ", "), ""
		if opts == "" {
			opts = "–"
		}
		if Randomizable(kind) {
			rnd = "yes"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", kind, Doc(kind), opts, rnd)
	}
	b.WriteString("\n| kind | option | default | meaning |\n| --- | --- | --- | --- |\n")
	for _, kind := range Kinds() {
		for _, o := range Options(kind) {
			def := "`" + o.Default + "`"
			if o.Default == "" {
				def = map[string]string{"int": "`0`", "float": "`0`", "string": "none", "bool": "`false`"}[o.Type]
			}
			fmt.Fprintf(&b, "| `%s` | `%s` | %s | %s |\n", kind, o.Key, def, o.Doc)
		}
	}
	return b.String()
}

// MarshalJSON writes the section as MarshalYAML does (kind, the kind's options with their
// defaults, the randomized-positions keys), as one JSON object in that order.
func (s Spec) MarshalJSON() ([]byte, error) {
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
