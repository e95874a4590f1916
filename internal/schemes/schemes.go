// Package schemes is the catalogue of the position schemes as data: each kind's name, its
// one-line doc, whether it takes randomized positions, and its options struct with the keys,
// types, defaults and docs its tags declare. It holds no scheme: package position registers every
// kind here (position.Register) beside how to build it, and package config reads a config's
// `position:` section against it, decoding the written options into the kind's options struct
// once. The catalogue is filled by position's init, which every program that reads configs links
// (config's Position embeds position.Spec).
//
// A scheme's options are a struct of its own, declared in the scheme's file. Each exported field
// is one key of the `position:` section, described by its tags:
//
//	yaml:"base"           the key (",omitempty": left out of a resolved config when zero)
//	default:"10000"       the value when the key is not written (no tag: the zero value)
//	doc:"frequency base"  one line for configs/README.md and the `pe` flags' help
//
// Field types are int, float64, string or bool; a key two schemes share has one type. A written
// value is kept, 0 included; the scheme's constructor refuses it, naming position.<key>, when it
// cannot be used.
package schemes

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/posformer/posformer/internal/fielderr"
	"github.com/posformer/posformer/internal/yamlkind"
)

// kind is one registered scheme, without how to build it.
type kind struct {
	doc          string
	optType      reflect.Type // the options struct
	randomizable bool
}

var registry = map[string]*kind{}

// Common are the keys of position: that every scheme has (the fields of position.Spec besides
// the options).
var Common = []string{"kind", "randomized", "max_random", "eval_positions"}

// Add registers a kind (package position's Register does, from an init function). It panics on a
// kind registered twice, an options type whose tags are not understood, or a key another kind
// declares with another type.
func Add(name, doc string, optType reflect.Type, randomizable bool) {
	if _, dup := registry[name]; dup {
		panic("position: scheme registered twice: " + name)
	}
	if optType.Kind() != reflect.Struct {
		panic("position: the options of " + name + " must be a struct")
	}
	for _, f := range optionFields(optType) {
		if slices.Contains(Common, f.Key) {
			panic("position: option " + f.Key + " of " + name + " is a key of every scheme")
		}
		if t, ok := KeyType(f.Key); ok && t != f.typ {
			panic(fmt.Sprintf("position: option %s of %s is a %s, another scheme's is a %s", f.Key, name, f.typ, t))
		}
		if f.Default != "" {
			if _, err := yamlkind.Parse(f.typ, f.Default); err != nil {
				panic(fmt.Sprintf("position: default of %s.%s: %v", name, f.Key, err))
			}
		}
	}
	registry[name] = &kind{doc: doc, optType: optType, randomizable: randomizable}
}

// Kinds lists the registered schemes, sorted.
func Kinds() []string { return slices.Sorted(maps.Keys(registry)) }

// Known tells whether a kind is registered.
func Known(name string) bool { _, ok := registry[name]; return ok }

// UnknownKind is the error of a position.kind that names no scheme.
func UnknownKind(name string) error {
	return fielderr.New("position.kind", "unknown scheme %q (known: %s)", name, strings.Join(Kinds(), ", "))
}

// UnknownKey is the error of a key of position: that is neither a common key nor any scheme's
// option.
func UnknownKey(key string) error {
	return fmt.Errorf("unknown key %q in section position (known: %s)", key, strings.Join(AllKeys(), ", "))
}

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
	index     int
	typ       reflect.Type
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
			index:     i, typ: f.Type, omitempty: opts == "omitempty",
		})
	}
	return out
}

// field is kind's option key; false when kind is unknown or has no such option.
func field(name, key string) (optionField, bool) {
	k, ok := registry[name]
	if !ok {
		return optionField{}, false
	}
	for _, f := range optionFields(k.optType) {
		if f.Key == key {
			return f, true
		}
	}
	return optionField{}, false
}

// Options lists the options of a kind, in their declared order (nil for an unknown kind).
func Options(name string) []OptionDoc {
	k, ok := registry[name]
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
func Doc(name string) string {
	if k, ok := registry[name]; ok {
		return k.doc
	}
	return ""
}

// Randomizable tells whether a kind takes randomized positions.
func Randomizable(name string) bool {
	k, ok := registry[name]
	return ok && k.randomizable
}

// KindsWith lists the kinds that have an option key, sorted.
func KindsWith(key string) []string {
	var out []string
	for _, name := range Kinds() {
		if HasOption(name, key) {
			out = append(out, name)
		}
	}
	return out
}

// IsOption tells whether key is an option of some registered scheme.
func IsOption(key string) bool { _, ok := KeyType(key); return ok }

// HasOption tells whether key is an option of kind.
func HasOption(name, key string) bool { _, ok := field(name, key); return ok }

// KeyType is the Go type (int, float64, string or bool) of an option key, the same in every
// scheme that has it; false when no scheme has it.
func KeyType(key string) (reflect.Type, bool) {
	for name := range registry {
		if f, ok := field(name, key); ok {
			return f.typ, true
		}
	}
	return nil, false
}

// AllKeys lists every key position: accepts: the common ones and every scheme's options, sorted.
func AllKeys() []string {
	keys := slices.Clone(Common)
	for _, name := range Kinds() {
		for _, o := range Options(name) {
			if !slices.Contains(keys, o.Key) {
				keys = append(keys, o.Key)
			}
		}
	}
	sort.Strings(keys)
	return keys
}

// OmitEmpty tells whether a resolved config leaves kind's option key out when its value is the
// zero value (its yaml tag's omitempty).
func OmitEmpty(name, key string) bool {
	f, ok := field(name, key)
	return ok && f.omitempty
}

// DefaultOptions is kind's options struct with every default filled; false for an unknown kind.
func DefaultOptions(name string) (any, bool) {
	k, ok := registry[name]
	if !ok {
		return nil, false
	}
	v := reflect.New(k.optType).Elem()
	for _, f := range optionFields(k.optType) {
		if f.Default != "" {
			d, _ := yamlkind.Parse(f.typ, f.Default)
			v.Field(f.index).Set(d)
		}
	}
	return v.Interface(), true
}

// NotAnOption is the error of an option key written for a kind that does not have it.
func NotAnOption(name, key string) error {
	var own []string
	for _, o := range Options(name) {
		own = append(own, o.Key)
	}
	has := "no options"
	if len(own) > 0 {
		has = "options " + strings.Join(own, ", ")
	}
	return fielderr.New("position."+key, "not an option of %s (it has %s; %s is an option of %s); remove it or change position.kind", name, has, key, strings.Join(KindsWith(key), ", "))
}

// SetOption returns opts (an options struct of kind) with key set to v, converted to the field's
// type where Go converts it (an int to a float); an error names the key when it is not one of
// kind's or v does not convert.
func SetOption(name string, opts any, key string, v any) (any, error) {
	f, ok := field(name, key)
	if !ok {
		return nil, NotAnOption(name, key)
	}
	x := reflect.ValueOf(v)
	if !x.IsValid() || !x.Type().ConvertibleTo(f.typ) || (f.typ.Kind() == reflect.String) != (x.Kind() == reflect.String) {
		return nil, fielderr.New("position."+key, "want a %s, got %v", f.typ, v)
	}
	out := reflect.New(reflect.TypeOf(opts)).Elem()
	out.Set(reflect.ValueOf(opts))
	out.Field(f.index).Set(x.Convert(f.typ))
	return out.Interface(), nil
}

// OptionOf is the value of key in opts, an options struct; false when it has no such key.
func OptionOf(opts any, key string) (any, bool) {
	v := reflect.ValueOf(opts)
	if !v.IsValid() || v.Kind() != reflect.Struct {
		return nil, false
	}
	for _, f := range optionFields(v.Type()) {
		if f.Key == key {
			return v.Field(f.index).Interface(), true
		}
	}
	return nil, false
}

// Markdown is the reference of the registered schemes and their options, as configs/README.md
// holds it (a test checks the file against it).
func Markdown() string {
	var b strings.Builder
	b.WriteString("| kind | scheme | options | randomized positions |\n| --- | --- | --- | --- |\n")
	for _, name := range Kinds() {
		var keys []string
		for _, o := range Options(name) {
			keys = append(keys, "`"+o.Key+"`")
		}
		opts, rnd := strings.Join(keys, ", "), ""
		if opts == "" {
			opts = "–"
		}
		if Randomizable(name) {
			rnd = "yes"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", name, Doc(name), opts, rnd)
	}
	b.WriteString("\n| kind | option | default | meaning |\n| --- | --- | --- | --- |\n")
	for _, name := range Kinds() {
		for _, o := range Options(name) {
			def := "`" + o.Default + "`"
			if o.Default == "" {
				def = map[string]string{"int": "`0`", "float": "`0`", "string": "none", "bool": "`false`"}[o.Type]
			}
			fmt.Fprintf(&b, "| `%s` | `%s` | %s | %s |\n", name, o.Key, def, o.Doc)
		}
	}
	return b.String()
}
