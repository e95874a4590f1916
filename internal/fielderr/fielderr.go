// Package fielderr is an error at a config key, its location as data: the file and line that
// wrote the key (or the -set override that gave it) and the key's dotted path, so that no one
// parses an error's text to find them. Every check that names a field returns one (New); the
// config reader fills in where the field was written (config.Config.At); errors.As finds it
// through any wrapping.
package fielderr

import (
	"errors"
	"fmt"
	"strconv"
)

// Error is what is wrong with the field at Path, written at File:Line.
type Error struct {
	// File is the config file ("configs/x.yaml") or the override that gave the field ("-set
	// model.heads=3"); "" until the reader locates the error.
	File string
	// Line is File's line that wrote the field; 0 when not known (or an override).
	Line int
	// Path is the field's dotted key path (model.heads, eval.variants[0].when); "" for the
	// config as a whole.
	Path string
	// Err says what is wrong and the fix. When it wraps an *Error at the same path (a located
	// error around a field's), the path is written once.
	Err error
}

// New is the error of the field at path: fmt.Errorf(format, a...) led by the path.
func New(path, format string, a ...any) error {
	return &Error{Path: path, Err: fmt.Errorf(format, a...)}
}

// Wrap is err at the field at path (err when it is nil).
func Wrap(path string, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Path: path, Err: err}
}

// Error reads "file:line: path: what is wrong", each part when known.
func (e *Error) Error() string {
	s := e.Err.Error()
	if inner := (*Error)(nil); e.Path != "" && !(errors.As(e.Err, &inner) && inner.Path == e.Path) {
		s = e.Path + ": " + s
	}
	switch {
	case e.File != "" && e.Line > 0:
		return e.File + ":" + strconv.Itoa(e.Line) + ": " + s
	case e.File != "":
		return e.File + ": " + s
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// PathOf is the dotted path of the field err is about ("" when it names none).
func PathOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Path
	}
	return ""
}
