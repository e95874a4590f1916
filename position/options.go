package position

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// A scheme's options are a struct of its own, declared in the scheme's file. Each exported field
// is one key of the `position:` section, described by its tags:
//
//	yaml:"base"           the key (",omitempty": left out of a resolved config when zero)
//	default:"10000"       the value when the key is not written (no tag: the zero value)
//	doc:"frequency base"  one line for configs/README.md and the `pe` flags' help
//
// Field types are int, float64, string or bool. A written value is kept, 0 included; the
// scheme's constructor refuses it, naming position.<key>, when it cannot be used. The config reads
// the YAML (package train/config decodes each written key into this struct, once); a Spec carries
// the struct's value, typed.

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
			if _, err := parseDefault(f.typ, f.def); err != nil {
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

// parseDefault reads a default tag as a value of type t: an int a whole number, a float a finite
// number, a bool true or false, a string as it is.
func parseDefault(t reflect.Type, text string) (reflect.Value, error) {
	v := reflect.New(t).Elem()
	switch t.Kind() {
	case reflect.Int:
		x, err := strconv.Atoi(text)
		if err != nil {
			return v, err
		}
		v.SetInt(int64(x))
	case reflect.Float64:
		x, err := strconv.ParseFloat(text, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return v, fmt.Errorf("want a finite number, got %q", text)
		}
		v.SetFloat(x)
	case reflect.String:
		v.SetString(text)
	case reflect.Bool:
		x, err := strconv.ParseBool(text)
		if err != nil {
			return v, err
		}
		v.SetBool(x)
	}
	return v, nil
}

// DefaultOptions is kind's options struct with every default filled; false for an unknown kind.
func DefaultOptions(kind string) (any, bool) {
	k, ok := registry[kind]
	if !ok {
		return nil, false
	}
	v := reflect.New(k.optType).Elem()
	for _, f := range optionFields(k.optType) {
		if f.def != "" {
			d, _ := parseDefault(f.typ, f.def)
			v.Field(f.index).Set(d)
		}
	}
	return v.Interface(), true
}

// OptionType is the Go type of kind's option key (int, float64, string or bool); false when kind
// has no such option.
func OptionType(kind, key string) (reflect.Type, bool) {
	k, ok := registry[kind]
	if !ok {
		return nil, false
	}
	for _, f := range optionFields(k.optType) {
		if f.key == key {
			return f.typ, true
		}
	}
	return nil, false
}

// OmitEmpty tells whether a resolved config leaves kind's option key out when its value is the
// zero value (its yaml tag's omitempty).
func OmitEmpty(kind, key string) bool {
	k, ok := registry[kind]
	if !ok {
		return false
	}
	for _, f := range optionFields(k.optType) {
		if f.key == key {
			return f.omitempty
		}
	}
	return false
}

// OptionTypes are the Go types key has in the schemes that have it.
func OptionTypes(key string) []reflect.Type {
	var out []reflect.Type
	for _, kind := range kindsWith(key) {
		t, _ := OptionType(kind, key)
		out = append(out, t)
	}
	return out
}

// NotAnOption is the error of an option key written for a kind that does not have it.
func NotAnOption(kind, key string) error {
	var own []string
	for _, o := range Options(kind) {
		own = append(own, o.Key)
	}
	has := "no options"
	if len(own) > 0 {
		has = "options " + strings.Join(own, ", ")
	}
	return fmt.Errorf("position.%s: not an option of %s (it has %s; %s is an option of %s); remove it or change position.kind", key, kind, has, key, strings.Join(kindsWith(key), ", "))
}

// SetOption returns opts (an options struct of kind) with key set to v, converted to the field's
// type where Go converts it (an int to a float); an error names the key when it is not one of
// kind's or v does not convert.
func SetOption(kind string, opts any, key string, v any) (any, error) {
	t, ok := OptionType(kind, key)
	if !ok {
		return nil, NotAnOption(kind, key)
	}
	x := reflect.ValueOf(v)
	if !x.IsValid() || !x.Type().ConvertibleTo(t) || (t.Kind() == reflect.String) != (x.Kind() == reflect.String) {
		return nil, fmt.Errorf("position.%s: want a %s, got %v", key, t, v)
	}
	out := reflect.New(reflect.TypeOf(opts)).Elem()
	out.Set(reflect.ValueOf(opts))
	for _, f := range optionFields(out.Type()) {
		if f.key == key {
			out.Field(f.index).Set(x.Convert(t))
		}
	}
	return out.Interface(), nil
}

// OptionOf is the value of key in opts, an options struct; false when it has no such key.
func OptionOf(opts any, key string) (any, bool) {
	v := reflect.ValueOf(opts)
	if !v.IsValid() || v.Kind() != reflect.Struct {
		return nil, false
	}
	for _, f := range optionFields(v.Type()) {
		if f.key == key {
			return v.Field(f.index).Interface(), true
		}
	}
	return nil, false
}

// With returns the spec with an option set to a Go value (for code and tests):
// Spec{Kind: "rope"}.With("base", 500.0). A key the kind does not have, or a value of the wrong
// type, is an error when the scheme is built (New).
func (s Spec) With(key string, value any) Spec {
	kind := s.Kind
	if kind == "" {
		kind = DefaultKind
	}
	opts := s.Options
	if opts == nil {
		var ok bool
		if opts, ok = DefaultOptions(kind); !ok {
			s.bad = append(slices.Clip(s.bad), fmt.Errorf("position.kind: unknown scheme %q (known: %s)", kind, strings.Join(Kinds(), ", ")))
			return s
		}
	}
	o, err := SetOption(kind, opts, key, value)
	if err != nil {
		s.bad = append(slices.Clip(s.bad), err)
		return s
	}
	s.Options = o
	return s
}

// Option returns the value of an option of the spec's kind, its default when not set; false when
// the kind has no such option.
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
	return OptionOf(o, key)
}

// options is the spec's options struct for kind k: Options, or k's defaults when nil; an error
// when Options is another kind's or With refused a key.
func (s Spec) options(k *kindDef) (any, error) {
	if len(s.bad) > 0 {
		return nil, s.bad[0]
	}
	if s.Options == nil {
		o, _ := DefaultOptions(k.kind)
		return o, nil
	}
	if t := reflect.TypeOf(s.Options); t != k.optType {
		return nil, fmt.Errorf("position: the options of %s are %s, got %s", k.kind, k.optType, t)
	}
	return s.Options, nil
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
