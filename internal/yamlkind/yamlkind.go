// Package yamlkind names what a YAML node holds and reads a scalar into a typed value, for the
// one-line errors of the config decoders (a config's fields, each position scheme's options and
// the default tags that declare them), so all say it the same way.
package yamlkind

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Of says what n is, as an error message puts it: "a mapping", "a list", "nothing" (an empty
// value), the quoted scalar, or "an alias".
func Of(n *yaml.Node) string {
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

// Scalar decodes n as a value of type t (int, uint64, float64, string or bool) strictly: a
// whole number for an int, a finite number for a float, a word (not a number or a flag written
// bare) for a string, true or false for a bool. The error says what was wanted and what n is.
func Scalar(t reflect.Type, n *yaml.Node) (reflect.Value, error) {
	v := reflect.New(t).Elem()
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return v, fmt.Errorf("no value given; write a value or remove the key to use the default")
	}
	if n.Kind != yaml.ScalarNode {
		return v, fmt.Errorf("want a single value, got %s", Of(n))
	}
	switch t.Kind() {
	case reflect.Int:
		x, err := strconv.ParseInt(n.Value, 10, 64)
		if err != nil || n.Tag != "!!int" {
			return v, fmt.Errorf("want a whole number, got %s", Of(n))
		}
		v.SetInt(x)
	case reflect.Uint64:
		x, err := strconv.ParseUint(n.Value, 10, 64)
		if err != nil || n.Tag != "!!int" {
			return v, fmt.Errorf("want a whole number ≥ 0, got %s", Of(n))
		}
		v.SetUint(x)
	case reflect.Float64:
		x, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
		if err != nil || (n.Tag != "!!float" && n.Tag != "!!int") {
			return v, fmt.Errorf("want a number, got %s", Of(n))
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return v, fmt.Errorf("want a finite number, got %s", Of(n))
		}
		v.SetFloat(x)
	case reflect.String:
		if n.Tag != "!!str" {
			return v, fmt.Errorf("want a word, got %s; quote it if you mean the text", Of(n))
		}
		v.SetString(n.Value)
	case reflect.Bool:
		x, err := strconv.ParseBool(n.Value)
		if err != nil || n.Tag != "!!bool" {
			return v, fmt.Errorf("want true or false, got %s", Of(n))
		}
		v.SetBool(x)
	default:
		return v, fmt.Errorf("cannot be set from YAML (%s)", t)
	}
	return v, nil
}

// Parse is Scalar of text written as YAML (a default tag: "10000", "0.02", "true"); a string
// is taken as it is.
func Parse(t reflect.Type, text string) (reflect.Value, error) {
	if t.Kind() == reflect.String {
		return reflect.ValueOf(text).Convert(t), nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil || len(doc.Content) == 0 {
		return reflect.New(t).Elem(), fmt.Errorf("cannot read %q", text)
	}
	return Scalar(t, doc.Content[0])
}
