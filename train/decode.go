package train

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Decode parses YAML into v (a pointer to a struct) strictly: every key must name a field (by
// its yaml tag), every value must have the field's type, and a key may appear once. Errors read
// `file:line: dotted.path: what is wrong`. Fields absent from the YAML keep their values, so
// Decode also merges YAML into an existing config.
func Decode(src []byte, file string, v any) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return fmt.Errorf("%s: YAML syntax error: %s", file, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return fmt.Errorf("%s: the config is empty; start from a file in configs/ (reference: configs/README.md)", file)
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return fmt.Errorf("%s:%d: the config must be a mapping of sections (seed:, task:, model:, ...), got %s", file, root.Line, kindName(root))
	}
	return decodeNode(root, reflect.ValueOf(v).Elem(), "", file)
}

// Set applies one `dotted.path=value` override, the value written in YAML (`model.d_model=128`,
// `eval.lengths=1..64`, `eval.lengths=[1,2,4]`, `position.kind=rope`), with Decode's checks.
func Set(v any, assignment string) error {
	path, value, ok := strings.Cut(assignment, "=")
	if !ok || path == "" {
		return fmt.Errorf("-set %s: want key=value, e.g. -set model.d_model=128", assignment)
	}
	return SetPath(v, strings.TrimSpace(path), value, "-set "+assignment)
}

// SetPath sets the field at a dotted path (yaml names) to a value written in YAML.
func SetPath(v any, path, value, label string) error {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(value), &doc); err != nil {
		return fmt.Errorf("%s: the value is not valid YAML: %s", label, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	node := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: ""}
	if len(doc.Content) > 0 {
		node = doc.Content[0]
	}
	return setNode(v, path, node, label)
}

// setNode sets the field at a dotted path to a parsed YAML value.
func setNode(v any, path string, node *yaml.Node, label string) error {
	f, err := fieldAt(reflect.ValueOf(v).Elem(), path)
	if err != nil {
		return fmt.Errorf("%s: %w", label, err)
	}
	return decodeNode(node, f, path, label)
}

// fieldAt walks a dotted path of yaml names down nested structs.
func fieldAt(v reflect.Value, path string) (reflect.Value, error) {
	var walked []string
	for _, key := range strings.Split(path, ".") {
		if v.Kind() != reflect.Struct {
			return v, fmt.Errorf("%s has no field %q (it is a single value)", strings.Join(walked, "."), key)
		}
		fields := yamlFields(v.Type())
		i, ok := fields[key]
		if !ok {
			where := "the config"
			if len(walked) > 0 {
				where = "section " + strings.Join(walked, ".")
			}
			return v, fmt.Errorf("unknown key %q in %s (known: %s)", key, where, knownKeys(fields))
		}
		v = v.Field(i)
		walked = append(walked, key)
	}
	return v, nil
}

// yamlFields maps a struct's yaml names to field indices.
func yamlFields(t reflect.Type) map[string]int {
	m := map[string]int{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		m[name] = i
	}
	return m
}

func knownKeys(fields map[string]int) string {
	ks := make([]string, 0, len(fields))
	for k := range fields {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ", ")
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "nothing"
		}
		return fmt.Sprintf("%q", n.Value)
	}
	return "an alias"
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

func decodeNode(n *yaml.Node, v reflect.Value, path, file string) error {
	fail := func(format string, a ...any) error {
		loc := file
		if n.Line > 0 && !strings.HasPrefix(file, "-set") {
			loc = fmt.Sprintf("%s:%d", file, n.Line)
		}
		return fmt.Errorf("%s: %s: %s", loc, path, fmt.Sprintf(format, a...))
	}
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if u, ok := v.Addr().Interface().(unmarshaler); ok {
		if err := u.decodeYAML(n); err != nil {
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
			return fail("want a section of key: value lines, got %s", kindName(n))
		}
		fields := yamlFields(v.Type())
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			key := k.Value
			where := "the config"
			if path != "" {
				where = "section " + path
			}
			idx, ok := fields[key]
			if !ok {
				return fmt.Errorf("%s:%d: %s: unknown key %q in %s (known: %s)", file, k.Line, join(path, key), key, where, knownKeys(fields))
			}
			if seen[key] {
				return fmt.Errorf("%s:%d: %s: key given twice", file, k.Line, join(path, key))
			}
			seen[key] = true
			if err := decodeNode(val, v.Field(idx), join(path, key), file); err != nil {
				return err
			}
		}
		return nil
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return fail("want a list, got %s", kindName(n))
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, item := range n.Content {
			if err := decodeNode(item, s.Index(i), fmt.Sprintf("%s[%d]", path, i), file); err != nil {
				return err
			}
		}
		v.Set(s)
		return nil
	}
	if n.Kind != yaml.ScalarNode {
		return fail("want a single value, got %s", kindName(n))
	}
	switch v.Kind() {
	case reflect.String:
		if n.Tag != "!!str" {
			return fail("want a word, got %s; quote it if you mean the text", kindName(n))
		}
		v.SetString(n.Value)
	case reflect.Int:
		x, err := strconv.ParseInt(n.Value, 10, 64)
		if err != nil || n.Tag != "!!int" {
			return fail("want a whole number, got %s", kindName(n))
		}
		v.SetInt(x)
	case reflect.Uint64:
		x, err := strconv.ParseUint(n.Value, 10, 64)
		if err != nil || n.Tag != "!!int" {
			return fail("want a whole number ≥ 0, got %s", kindName(n))
		}
		v.SetUint(x)
	case reflect.Float64:
		if n.Tag != "!!float" && n.Tag != "!!int" {
			return fail("want a number, got %s", kindName(n))
		}
		x, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
		if err != nil {
			return fail("want a number, got %s", kindName(n))
		}
		v.SetFloat(x)
	case reflect.Bool:
		if n.Tag != "!!bool" {
			return fail("want true or false, got %s", kindName(n))
		}
		x, err := strconv.ParseBool(n.Value)
		if err != nil {
			return fail("want true or false, got %s", kindName(n))
		}
		v.SetBool(x)
	default:
		return fail("cannot be set from YAML (%s)", v.Type())
	}
	return nil
}

// Lengths is a strictly increasing list of sequence lengths. In YAML it is a list of integers or
// a string of comma-separated items, each a length ("32"), a range ("1..16") or a range with a
// step ("8..64:8").
type Lengths []int

// ParseLengths parses the string form.
func ParseLengths(s string) (Lengths, error) {
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
		p, err := ParseLengths(n.Value)
		if err != nil {
			return err
		}
		*l = p
	case n.Kind == yaml.SequenceNode:
		out := make(Lengths, len(n.Content))
		for i, item := range n.Content {
			x, err := strconv.Atoi(item.Value)
			if err != nil || item.Kind != yaml.ScalarNode || item.Tag != "!!int" {
				return fmt.Errorf("item %d: want a whole number, got %s", i, kindName(item))
			}
			out[i] = x
		}
		*l = out
	default:
		return fmt.Errorf(`want a list of lengths or a string like "1..64", got %s`, kindName(n))
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
