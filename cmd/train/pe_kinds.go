package main

import (
	"strings"

	"github.com/posformer/posformer/position"
	"gorgonia.org/tensor"
)

// peDigit0 is the digit token `train pe` builds the digit schemes with (abacus, coupled number
// the digits of a task's numbers and refuse a task without digits): their table does not depend
// on which tokens are digits, and pe has no task, so any digit token will do.
const peDigit0 = 1

// peUnshown are the option keys no table shows, which `train pe` therefore does not offer:
// log_scaling scales the queries at attention time.
var peUnshown = map[string]bool{"log_scaling": true}

// tabledKinds are the schemes that have a table `train pe` can print (position.Tabler), built
// with their default options.
func tabledKinds() []string {
	dims := position.Dims{DModel: 16, Heads: 2, Dtype: tensor.Float64, Seed: 1, Digit0: peDigit0}
	var with []string
	for _, k := range position.Kinds() {
		if s, err := position.New(position.Spec{Kind: k}, dims); err == nil {
			if _, ok := s.(position.Tabler); ok {
				with = append(with, k)
			}
		}
	}
	return with
}

// defaultNote is " (default X)" for an option whose description does not already say its default
// ("0 (default): off" said it twice, U13), "none" for an option with no default.
func defaultNote(o position.OptionDoc) string {
	if strings.Contains(o.Doc, "(default") {
		return ""
	}
	def := o.Default
	if def == "" {
		def = "none"
	}
	return " (default " + def + ")"
}
