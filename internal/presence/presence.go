// Package presence records which keys of a config section were written (in a YAML file, by a
// -set override, by a grid's sweep cell or by a command-line flag), so that a written value is
// kept whatever it is (0, false, "") and only the keys nobody wrote take their defaults.
//
// A config struct holds the record in a field of type Keys tagged `yaml:"-" json:"-"`
// (config.Config, model.Config, position.Spec). The strict decoder (config.Decode) marks, in the
// nearest enclosing struct that has such a field, every leaf it sets, by its dotted path
// relative to that struct ("train.lr" in config.Config, "d_model" in model.Config). A
// WithDefaults method then fills a field only when its key is absent from the record (and the
// field holds its zero value, so a value set from Go code is kept too):
//
//	presence.Fill(c.Written, "train.lr", &c.Train.LR, 1e-3)
//
// Keys is an immutable value: copying a config copies its record, and marking a key in a copy
// never changes the original.
package presence

import (
	"sort"
	"strings"
)

// Keys is a set of dotted paths. The zero value is the empty set.
type Keys struct {
	s string // "\n"-separated sorted paths, with a leading and trailing "\n"; "" when empty
}

// Of returns the set of the given paths.
func Of(paths ...string) Keys {
	var k Keys
	for _, p := range paths {
		k = k.With(p)
	}
	return k
}

// Has tells whether path was written.
func (k Keys) Has(path string) bool { return strings.Contains(k.s, "\n"+path+"\n") }

// HasUnder tells whether path or any path below it (path.x, path.x.y, ...) was written.
func (k Keys) HasUnder(path string) bool {
	return k.Has(path) || strings.Contains(k.s, "\n"+path+".")
}

// FirstUnder is the first path written below path (path.x), or path itself when none was.
func (k Keys) FirstUnder(path string) string {
	for _, p := range k.List() {
		if strings.HasPrefix(p, path+".") {
			return p
		}
	}
	return path
}

// With returns the set with path added.
func (k Keys) With(path string) Keys {
	if path == "" || k.Has(path) {
		return k
	}
	l := append(k.List(), path)
	sort.Strings(l)
	return Keys{s: "\n" + strings.Join(l, "\n") + "\n"}
}

// Without returns the set without path and the paths below it.
func (k Keys) Without(path string) Keys {
	var l []string
	for _, p := range k.List() {
		if p != path && !strings.HasPrefix(p, path+".") {
			l = append(l, p)
		}
	}
	return Of(l...)
}

// List returns the paths, sorted.
func (k Keys) List() []string {
	if k.s == "" {
		return nil
	}
	return strings.Split(strings.Trim(k.s, "\n"), "\n")
}

// Len is the number of paths.
func (k Keys) Len() int { return len(k.List()) }

// Fill sets *field to def when path was not written and *field holds its zero value: the one
// rule by which every WithDefaults fills a default.
func Fill[T comparable](k Keys, path string, field *T, def T) {
	var zero T
	if *field == zero && !k.Has(path) {
		*field = def
	}
}
