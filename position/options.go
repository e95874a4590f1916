package position

import (
	"reflect"
	"slices"

	"github.com/posformer/posformer/internal/fielderr"
	"github.com/posformer/posformer/internal/schemes"
)

// A scheme's options are a struct of its own, declared in the scheme's file, whose tags declare
// its keys under `position:` (yaml), defaults (default) and docs (doc): see package
// internal/schemes, the catalogue Register adds it to. The config reads the YAML (package
// config decodes each written key into this struct, once, against the catalogue); a Spec
// carries the struct's value, typed.

// Def registers a scheme: its kind, its options type O (struct{} for none), the type S of the
// scheme New builds, and how to build it. S's methods are the scheme's hooks: KindHooks reads
// them from the type, without building a scheme.
type Def[O any, S Scheme] struct {
	Kind string
	// Doc is one line for configs/README.md: what the scheme is, with its source.
	Doc string
	// New builds the scheme from its options (defaults filled) for the model's dimensions.
	// Errors name the config field and the fix.
	New func(o O, d Dims) (S, error)
	// Params counts the trainable parameters the scheme adds, from the sizes alone (the
	// config's size check runs before anything is allocated); nil for none.
	Params func(o O, d Dims) int
	// Randomizable: the scheme takes randomized positions (position.randomized, Ruoss et al.
	// 2023), the scheme reading each token's position from Ctx.Pos.
	Randomizable bool
}

// kindDef is a Def without its types.
type kindDef struct {
	kind         string
	optType      reflect.Type // the options struct
	build        func(o any, d Dims) (Scheme, error)
	params       func(o any, d Dims) int
	hooks        Hooks
	randomizable bool
	readsTokens  bool // S is a TokenPositioner
}

var registry = map[string]*kindDef{}

// Register adds a scheme (from an init function: a new scheme is one file) to the registry and
// its options to the catalogue (package internal/schemes). It panics on a kind registered twice
// or an options type whose tags are not understood.
func Register[O any, S Scheme](d Def[O, S]) {
	t := reflect.TypeFor[O]()
	schemes.Add(d.Kind, d.Doc, t, d.Randomizable)
	var zero S // a scheme's hooks are its type's methods, whatever its value
	_, reads := any(zero).(TokenPositioner)
	k := &kindDef{kind: d.Kind, optType: t, randomizable: d.Randomizable, hooks: HooksOf(zero), readsTokens: reads,
		build: func(o any, dims Dims) (Scheme, error) {
			s, err := d.New(o.(O), dims)
			if err != nil {
				return nil, err
			}
			return s, nil
		}}
	k.params = func(o any, dims Dims) int {
		n := 0
		if d.Params != nil {
			n = d.Params(o.(O), dims)
		}
		if s, ok := schemes.OptionOf(o, "log_scaling"); ok {
			n += logScaleCount(s.(float64), dims)
		}
		return n
	}
	registry[d.Kind] = k
}

// Kinds lists the registered schemes, sorted.
func Kinds() []string { return schemes.Kinds() }

// OptionDoc describes one option of a scheme.
type OptionDoc = schemes.OptionDoc

// Options lists the options of a kind, in their declared order (nil for an unknown kind).
func Options(kind string) []OptionDoc { return schemes.Options(kind) }

// Doc is a kind's one-line description.
func Doc(kind string) string { return schemes.Doc(kind) }

// Randomizable tells whether a kind takes randomized positions.
func Randomizable(kind string) bool { return schemes.Randomizable(kind) }

// KindHooks returns the hooks of a kind's scheme type (Def's S), known without building one;
// every hook for an unknown kind.
func KindHooks(kind string) Hooks {
	if k, ok := registry[kind]; ok {
		return k.hooks
	}
	return Hooks{AddsEmbedding: true, RotatesQK: true, BiasesLogits: true, RelativeKeys: true}
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
		if opts, ok = schemes.DefaultOptions(kind); !ok {
			s.bad = append(slices.Clip(s.bad), schemes.UnknownKind(kind))
			return s
		}
	}
	o, err := schemes.SetOption(kind, opts, key, value)
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
	return schemes.OptionOf(o, key)
}

// options is the spec's options struct for kind k: Options, or k's defaults when nil; an error
// when Options is another kind's or With refused a key.
func (s Spec) options(k *kindDef) (any, error) {
	if len(s.bad) > 0 {
		return nil, s.bad[0]
	}
	if s.Options == nil {
		o, _ := schemes.DefaultOptions(k.kind)
		return o, nil
	}
	if t := reflect.TypeOf(s.Options); t != k.optType {
		return nil, fielderr.New("position", "the options of %s are %s, got %s", k.kind, k.optType, t)
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
func OptionsMarkdown() string { return schemes.Markdown() }
