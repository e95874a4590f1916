package config

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/posformer/posformer/internal/fielderr"
	"github.com/posformer/posformer/internal/presence"
	"github.com/posformer/posformer/internal/yamlkind"
	"go.yaml.in/yaml/v3"
)

// Decode parses YAML into v (a pointer to a struct) strictly: every key must name a field (by
// its yaml tag), every value must have the field's type, and a key may appear once. Errors read
// `file:line: dotted.path: what is wrong`. Fields absent from the YAML keep their values, so
// Decode also merges YAML into an existing config.
//
// Decode records what it sets (see package internal/presence): every leaf written is marked in
// the presence.Keys field of the nearest enclosing struct that has one (Config.Written,
// model.Config.Written, position.Spec.Written), by its path relative to that struct. The
// WithDefaults methods fill only the fields nobody wrote, so a written value, 0 included, is
// what runs; Validate refuses it, naming the field, when it is not legal.
func Decode(src []byte, file string, v any) error { return decode(src, file, v, false) }

// DecodeNode decodes a parsed YAML value found at path of file into v (a pointer), as Decode
// decodes the value of a key (claims decode each claim's kind options with it).
func DecodeNode(n *yaml.Node, file, path string, v any) error {
	rv := reflect.ValueOf(v).Elem()
	return decodeNode(n, rv, path, file, holderOf(rv, path, nil), false)
}

// decode is Decode; legacy reads a grid.yaml an earlier posformer wrote (compat.go).
func decode(src []byte, file string, v any, legacy bool) error {
	root, err := ParseYAML(src, file)
	if err != nil {
		return err
	}
	if root == nil {
		return fmt.Errorf("%s: the config is empty; start from a file in configs/ (reference: configs/README.md)", file)
	}
	if root.Kind != yaml.MappingNode {
		return fmt.Errorf("%s:%d: the config must be a mapping of sections (seed:, task:, model:, ...), got %s", file, root.Line, yamlkind.Of(root))
	}
	rv := reflect.ValueOf(v).Elem()
	if err := decodeNode(root, rv, "", file, holderOf(rv, "", nil), legacy); err != nil {
		return err
	}
	if c, ok := v.(*Config); ok {
		return checkSweepPaths(c.Sweep, file)
	}
	return nil
}

// syntaxError turns a YAML parser error ("yaml: line 3: did not find expected key") into one
// line that leads with the file and line: "file:3: YAML syntax error: did not find expected key".
func syntaxError(file string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	loc := file
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if n, after, ok := strings.Cut(rest, ": "); ok {
			if _, perr := strconv.Atoi(n); perr == nil {
				loc, msg = file+":"+n, after
			}
		}
	}
	msg = strings.Join(strings.Fields(msg), " ") // the parser's messages may span lines
	return fmt.Errorf("%s: YAML syntax error: %s; check the indentation (spaces, not tabs), colons and brackets", loc, msg)
}

// checkSweepPaths checks, at decoding, that every swept path names a field and every value has
// the field's type, so an error points at the sweep's line rather than surfacing when the grid
// is expanded.
func checkSweepPaths(s Sweep, file string) error {
	for _, ax := range s {
		if _, err := fieldAt(reflect.ValueOf(&Config{}).Elem(), ax.Path); err != nil {
			line := 0
			if len(ax.Values) > 0 {
				line = ax.Values[0].Line
			}
			loc := file
			if line > 0 {
				loc = fmt.Sprintf("%s:%d", file, line)
			}
			return fmt.Errorf("%s: sweep.%s: %w; sweep fields are dotted paths such as model.d_model or position.kind", loc, ax.Path, err)
		}
		// Each value with the field's own checks, reported at its line.
		for i, val := range ax.Values {
			if val.Kind == yaml.ScalarNode && val.Tag == "!!null" {
				return fmt.Errorf("%s:%d: sweep.%s: value %d is empty; give every value, e.g. %s: [a, b]", file, val.Line, ax.Path, i+1, ax.Path)
			}
			var scratch Config
			if err := setNode(&scratch, ax.Path, val, file); err != nil {
				return err
			}
		}
	}
	return nil
}

// Set applies one `dotted.path=value` override, the value written in YAML (`model.d_model=128`,
// `eval.lengths=1..64`, `eval.lengths=[1,2,4]`, `position.kind=rope`), with Decode's checks.
func Set(v any, assignment string) error {
	path, value, ok := strings.Cut(assignment, "=")
	if !ok || path == "" {
		return fmt.Errorf("-set %s: want key=value, e.g. -set model.d_model=128", assignment)
	}
	return setPath(v, strings.TrimSpace(path), value, "-set "+assignment)
}

// setPath sets the field at a dotted path (yaml names) to a value written in YAML.
func setPath(v any, path, value, label string) error {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(value), &doc); err != nil {
		return fmt.Errorf("%s: the value is not valid YAML: %s", label, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	node := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: ""}
	if len(doc.Content) > 0 {
		node = doc.Content[0]
		if err := checkLimits(node, label); err != nil {
			return err
		}
	}
	return setNode(v, path, node, label)
}

// setNode sets the field at a dotted path to a parsed YAML value, marking it written.
func setNode(v any, path string, node *yaml.Node, label string) error {
	f, h, opt, err := locate(reflect.ValueOf(v).Elem(), path)
	if err != nil {
		return fmt.Errorf("%s: %w", label, err)
	}
	if opt != "" {
		if err := f.Addr().Interface().(optionDecoder).DecodeOption(opt, node); err != nil {
			return fmt.Errorf("%s: %s: %w", label, path, err)
		}
		return nil
	}
	return decodeNode(node, f, path, label, h, false)
}

// optionDecoder is a section with keys of its own besides its fields: position.Spec, whose
// scheme options are declared by the schemes (position.Def). DecodeOption records a key the
// struct has no field for, or says why it cannot.
type optionDecoder interface {
	DecodeOption(key string, n *yaml.Node) error
}

var optionDecoderType = reflect.TypeFor[optionDecoder]()

// holder is where decoding marks the keys it writes: the presence.Keys field of the nearest
// enclosing struct that has one, and that struct's dotted path (paths are marked relative to it).
type holder struct {
	keys   reflect.Value // a settable presence.Keys
	prefix string        // "" for the root, "model." below model:
}

var keysType = reflect.TypeFor[presence.Keys]()

// holderOf returns the holder for struct v at path: v's own presence.Keys field if it has one,
// else the enclosing holder h.
func holderOf(v reflect.Value, path string, h *holder) *holder {
	if v.Kind() != reflect.Struct {
		return h
	}
	for _, f := range reflect.VisibleFields(v.Type()) {
		if f.Type == keysType {
			prefix := ""
			if path != "" {
				prefix = path + "."
			}
			return &holder{keys: v.FieldByIndex(f.Index), prefix: prefix}
		}
	}
	return h
}

// mark records path as written.
func (h *holder) mark(path string) {
	if h == nil {
		return
	}
	k := h.keys.Interface().(presence.Keys)
	h.keys.Set(reflect.ValueOf(k.With(strings.TrimPrefix(path, h.prefix))))
}

// has tells whether path was written.
func (h *holder) has(path string) bool {
	return h != nil && h.keys.Interface().(presence.Keys).Has(strings.TrimPrefix(path, h.prefix))
}

// fieldAt walks a dotted path of yaml names down nested structs. For a key an optionDecoder
// decodes itself (a scheme's option), it returns the section.
func fieldAt(v reflect.Value, path string) (reflect.Value, error) {
	f, _, _, err := locate(v, path)
	return f, err
}

// locate is fieldAt that also returns the holder of the field's presence and, when the path
// ends in a key that the section decodes itself (optionDecoder), that key.
func locate(v reflect.Value, path string) (reflect.Value, *holder, string, error) {
	h := holderOf(v, "", nil)
	var walked []string
	keys := strings.Split(path, ".")
	for n, key := range keys {
		if v.Kind() != reflect.Struct {
			return v, nil, "", fmt.Errorf("%s has no field %q (it is a single value)", strings.Join(walked, "."), key)
		}
		fields := yamlFields(v.Type())
		i, ok := fields[key]
		if !ok && n == len(keys)-1 && v.Addr().Type().Implements(optionDecoderType) {
			return v, h, key, nil
		}
		if !ok {
			where := "the config"
			if len(walked) > 0 {
				where = "section " + strings.Join(walked, ".")
			}
			return v, nil, "", fmt.Errorf("unknown key %q in %s (known: %s)", key, where, knownKeys(fields))
		}
		v = v.FieldByIndex(i)
		walked = append(walked, key)
		h = holderOf(v, strings.Join(walked, "."), h)
	}
	return v, h, "", nil
}

// yamlFields maps a struct's yaml names to field index paths, the fields of an embedded struct
// (position.Spec in Position, `yaml:",inline"`) among them.
func yamlFields(t reflect.Type) map[string][]int {
	m := map[string][]int{}
	for _, f := range reflect.VisibleFields(t) {
		if name, ok := yamlName(f); ok {
			m[name] = f.Index
		}
	}
	return m
}

// yamlName is a field's key: its yaml tag's name, else its name in lower case; false for a
// field no key names (yaml:"-", unexported or embedded).
func yamlName(f reflect.StructField) (string, bool) {
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	if name == "-" || !f.IsExported() || f.Anonymous {
		return "", false
	}
	return cmp.Or(name, strings.ToLower(f.Name)), true
}

// knownKeys lists a section's keys, sorted, for an error.
func knownKeys(fields map[string][]int) string {
	return strings.Join(slices.Sorted(maps.Keys(fields)), ", ")
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// unmarshaler is implemented by field types with their own syntax (Lengths).
type unmarshaler interface {
	decodeYAML(n *yaml.Node) error
}

// decodeNode decodes n into v (at the dotted path) and marks the leaves it sets in h. With
// legacy, a zero is left unmarked (legacyUnset).
func decodeNode(n *yaml.Node, v reflect.Value, path, file string, h *holder, legacy bool) error {
	if err := decodeValue(n, v, path, file, h, legacy); err != nil {
		return err
	}
	if v.Kind() != reflect.Struct || v.Addr().Type().Implements(unmarshalerType) {
		if !(legacy && legacyUnset(v)) && !(n.Kind == yaml.ScalarNode && n.Tag == "!!null") {
			h.mark(path)
		}
	}
	if v.Kind() == reflect.Struct && !legacy && v.Addr().Type().Implements(switchSectionType) && setsNothing(n) {
		h.mark(path) // written empty: Validate refuses it rather than read it as off
	}
	return nil
}

var unmarshalerType = reflect.TypeFor[unmarshaler]()

// switchSection is a section that is off unless written (train.early_stop). Written empty ({} or
// no value) it is marked as written, so that Validate refuses it, naming the section, instead of
// reading the ambiguous section as off.
type switchSection interface {
	offUnlessWritten()
}

var switchSectionType = reflect.TypeFor[switchSection]()

// setsNothing tells whether a YAML value written for a section sets no key: {} or no value.
func setsNothing(n *yaml.Node) bool {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n.Kind == yaml.MappingNode && len(n.Content) == 0 || n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

func decodeValue(n *yaml.Node, v reflect.Value, path, file string, h *holder, legacy bool) error {
	fail := func(format string, a ...any) error {
		e := &fielderr.Error{File: file, Path: path, Err: fmt.Errorf(format, a...)}
		if !strings.HasPrefix(file, "-set") {
			e.Line = n.Line
		}
		return e
	}
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if u, ok := v.Addr().Interface().(unmarshaler); ok {
		if legacy && legacyEmptyList(n) {
			return nil
		}
		if err := u.decodeYAML(n); err != nil {
			// An error at a line of its own (a sweep's key) is reported at that line.
			var at *fielderr.Error
			if errors.As(err, &at) && at.Line > 0 && !strings.HasPrefix(file, "-set") {
				return &fielderr.Error{File: file, Line: at.Line, Path: path, Err: at.Err}
			}
			return fail("%v", err)
		}
		return nil
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		if v.Kind() == reflect.Struct {
			return nil // an empty section keeps its defaults
		}
		return fail("no value given; write a value or remove the key to use the default")
	}
	switch v.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return fail("want a section of key: value lines, got %s", yamlkind.Of(n))
		}
		fields := yamlFields(v.Type())
		h := holderOf(v, path, h)
		od, options := v.Addr().Interface().(optionDecoder)
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			at := func(err error) error {
				return &fielderr.Error{File: file, Line: k.Line, Path: join(path, k.Value), Err: err}
			}
			idx, ok := fields[k.Value]
			switch {
			case !ok && !options:
				where := "the config"
				if path != "" {
					where = "section " + path
				}
				return at(fmt.Errorf("unknown key %q in %s (known: %s)", k.Value, where, knownKeys(fields)))
			case !ok:
				if err := od.DecodeOption(k.Value, val); err != nil {
					return at(err)
				}
			}
			if seen[k.Value] {
				return at(errors.New("key given twice"))
			}
			seen[k.Value] = true
			if ok {
				if err := decodeNode(val, v.FieldByIndex(idx), join(path, k.Value), file, h, legacy); err != nil {
					return err
				}
			}
		}
		return nil
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return fail("want a list, got %s", yamlkind.Of(n))
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, item := range n.Content {
			// the list is marked as a whole, not its items
			if err := decodeNode(item, s.Index(i), fmt.Sprintf("%s[%d]", path, i), file, nil, legacy); err != nil {
				return err
			}
		}
		v.Set(s)
		return nil
	case reflect.Pointer: // an optional value (task.depth): nil unless written
		p := reflect.New(v.Type().Elem())
		if err := decodeValue(n, p.Elem(), path, file, h, legacy); err != nil {
			return err
		}
		v.Set(p)
		return nil
	}
	x, err := yamlkind.Scalar(v.Type(), n)
	if err != nil {
		return fail("%v", err)
	}
	v.Set(x)
	return nil
}

// MaxLength bounds every input length (task and eval): attention over a sequence of twice as many
// tokens would not fit in memory, and a typo such as max_len: 16000000 must fail at once rather
// than allocate.
const MaxLength = 1 << 16

// Lengths is a strictly increasing list of sequence lengths. In YAML it is a list of integers or
// a string of comma-separated items, each a length ("32"), a range ("1..16") or a range with a
// step ("8..64:8").
type Lengths []int

// parseLengths parses the string form.
func parseLengths(s string) (Lengths, error) {
	var out Lengths
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return nil, errors.New(`empty item; write lengths like "1..64" or "1..16,32,64"`)
		}
		rng, stepStr, hasStep := strings.Cut(item, ":")
		lo, hi, isRange := strings.Cut(rng, "..")
		if !isRange {
			hi = lo
		}
		a, err1 := strconv.Atoi(strings.TrimSpace(lo))
		b, err2 := strconv.Atoi(strings.TrimSpace(hi))
		step := 1
		var err3 error
		if hasStep {
			step, err3 = strconv.Atoi(strings.TrimSpace(stepStr))
		}
		if err1 != nil || err2 != nil || err3 != nil || step < 1 || (hasStep && !isRange) {
			return nil, fmt.Errorf(`cannot read %q; write lengths like "1..64", "1..16,32,64" or "8..64:8"`, item)
		}
		if b < a {
			return nil, fmt.Errorf("range %q goes down; write it as %d..%d", item, b, a)
		}
		if a < 1 {
			return nil, fmt.Errorf("%q: every length must be at least 1", item)
		}
		if b > MaxLength {
			return nil, fmt.Errorf("%q: %d is beyond the longest length posformer handles, %d", item, b, MaxLength)
		}
		if len(out)+(b-a)/step+1 > MaxLength {
			return nil, fmt.Errorf("%q: more than %d lengths in all; lengths must be strictly increasing", item, MaxLength)
		}
		for L := a; L <= b; L += step {
			out = append(out, L)
		}
	}
	return out, nil
}

func (l *Lengths) decodeYAML(n *yaml.Node) error {
	switch {
	case n.Kind == yaml.ScalarNode && n.Tag == "!!int":
		x, err := strconv.Atoi(n.Value)
		if err != nil {
			return err
		}
		*l = Lengths{x}
	case n.Kind == yaml.ScalarNode && n.Tag == "!!str":
		p, err := parseLengths(n.Value)
		if err != nil {
			return err
		}
		*l = p
	case n.Kind == yaml.SequenceNode:
		out := make(Lengths, len(n.Content))
		for i, item := range n.Content {
			x, err := strconv.Atoi(item.Value)
			if err != nil || item.Kind != yaml.ScalarNode || item.Tag != "!!int" {
				return fmt.Errorf("item %d: want a whole number, got %s", i, yamlkind.Of(item))
			}
			out[i] = x
		}
		*l = out
	default:
		return fmt.Errorf(`want a list of lengths or a string like "1..64", got %s`, yamlkind.Of(n))
	}
	return nil
}

// String is the compact form: runs of consecutive lengths become ranges ("1..16,32").
func (l Lengths) String() string {
	var parts []string
	for i := 0; i < len(l); {
		j := i
		for j+1 < len(l) && l[j+1] == l[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d..%d", l[i], l[j]))
		} else {
			parts = append(parts, strconv.Itoa(l[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// MarshalYAML writes the compact form, so a resolved config reads back identically.
func (l Lengths) MarshalYAML() (any, error) { return l.String(), nil }
