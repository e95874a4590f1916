package main

import (
	"bytes"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/posformer/posformer/position"
	"gorgonia.org/tensor"
)

// TestPEHelpOffersUsableOptions: `pe -h` offers only options a table can show (U4): none of a
// scheme without a table (cope's npos) and not log_scaling, which scales queries at attention
// time; those flags are refused. Each scheme's clause of an option's help names its default once
// (U13 printed "0 (default): off (default none)").
func TestPEHelpOffersUsableOptions(t *testing.T) {
	var help bytes.Buffer
	if err := runPE(t.Context(), []string{"-h"}, io.Discard, &help); err == nil {
		t.Fatal("-h: want flag.ErrHelp")
	}
	h := help.String()
	for _, gone := range []string{"-npos", "-log-scaling"} {
		if strings.Contains(h, "  "+gone+" ") {
			t.Errorf("pe -h offers %s, which no table shows", gone)
		}
		err := runPE(t.Context(), []string{"-scheme", "alibi", gone, "1"}, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "flag provided but not defined: "+gone) {
			t.Errorf("pe %s 1: %v; want the flag refused", gone, err)
		}
	}
	for _, kept := range []string{"-max-offset", "-max-position", "-p", "-num-buckets", "-init-std"} {
		if !strings.Contains(h, "  "+kept+" ") {
			t.Errorf("pe -h lacks %s", kept)
		}
	}
	clause := regexp.MustCompile(`[a-z_0-9]+: [^;]*`)
	for _, line := range strings.Split(h, "\n") {
		for _, c := range clause.FindAllString(line, -1) {
			if strings.Count(c, "(default") > 1 {
				t.Errorf("a clause names its default twice: %q", c)
			}
		}
	}
}

// TestPEDigitSchemes: abacus and coupled, which number a task's digits, print their table
// (pe has no task; it used to tell the user to set task.name, which pe has no flag for).
func TestPEDigitSchemes(t *testing.T) {
	for _, kind := range []string{"abacus", "coupled"} {
		rows := peCSV(t, "-scheme", kind, "-positions", "5", "-dim", "4")
		if len(rows) != 6 || strings.Join(rows[0], ",") != "position,d0,d1,d2,d3" {
			t.Errorf("%s: %v", kind, rows)
		}
	}
}

// TestPENoNegativeZero: no value of any scheme's table prints as "-0" (kerple's and alibi's bias
// at distance 0 is −m·0 = −0), at several sizes, causal and bidirectional.
func TestPENoNegativeZero(t *testing.T) {
	for _, kind := range tabledKinds() {
		for _, args := range [][]string{{"-dim", "8", "-heads", "2"}, {"-dim", "32", "-heads", "8", "-bidirectional"}} {
			var out bytes.Buffer
			if err := runPE(t.Context(), append([]string{"-scheme", kind, "-positions", "40"}, args...), &out, io.Discard); err != nil {
				continue // a scheme that refuses the options (e.g. causal-only)
			}
			for _, field := range strings.FieldsFunc(out.String(), func(r rune) bool { return r == ',' || r == '\n' }) {
				if field == "-0" {
					t.Errorf("%s %v prints -0", kind, args)
					break
				}
			}
		}
	}
	// A kind is left out of pe only because it has no table, never because it failed to build
	// (the count this replaced, "all but 2", broke when fox and stick_breaking came), and the
	// tabled kinds come from the registry (sinusoidal, alibi and rope among them).
	dims := position.Dims{DModel: 16, Heads: 2, Dtype: tensor.Float64, Seed: 1, Digit0: peDigit0}
	for _, k := range position.Kinds() {
		if _, err := position.New(position.Spec{Kind: k}, dims); err != nil {
			t.Errorf("%s cannot be built with pe's dimensions, so pe cannot tell whether it has a table: %v", k, err)
		}
	}
	if ks := tabledKinds(); !slices.Contains(ks, "sinusoidal") || !slices.Contains(ks, "alibi") || !slices.Contains(ks, "rope") {
		t.Errorf("the tabled kinds %v lack sinusoidal, alibi or rope: tabledKinds does not read the registry", ks)
	}
}
