package main

import (
	"bytes"
	"encoding/csv"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func peCSV(t *testing.T, args ...string) [][]string {
	t.Helper()
	var out bytes.Buffer
	if err := runPE(t.Context(), args, &out, io.Discard); err != nil {
		t.Fatalf("pe %v: %v", args, err)
	}
	rows, err := csv.NewReader(&out).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestPERelativeSchemes: pe prints alibi's bias by distance and t5's buckets.
func TestPERelativeSchemes(t *testing.T) {
	a := peCSV(t, "-scheme", "alibi", "-heads", "8", "-dim", "64", "-positions", "3")
	if strings.Join(a[0], ",") != "position,head0,head1,head2,head3,head4,head5,head6,head7" || len(a) != 4 {
		t.Fatalf("alibi table: %v", a)
	}
	if strings.Join(a[2], ",") != "1,-0.5,-0.25,-0.125,-0.0625,-0.03125,-0.015625,-0.0078125,-0.00390625" {
		t.Errorf("alibi row for distance 1: %v, want −1/2 … −1/256", a[2])
	}
	c := peCSV(t, "-scheme", "t5", "-heads", "2", "-dim", "8", "-positions", "200")
	if c[0][1] != "bucket" || len(c) != 201 {
		t.Fatalf("t5 table: header %v, %d rows", c[0], len(c))
	}
	for _, w := range [][2]string{{"0", "0"}, {"15", "15"}, {"16", "16"}, {"112", "30"}, {"113", "31"}, {"199", "31"}} {
		var row []string
		for _, r := range c[1:] {
			if r[0] == w[0] {
				row = r
			}
		}
		if row == nil || row[1] != w[1] {
			t.Errorf("t5 distance %s: row %v, want bucket %s", w[0], row, w[1])
		}
	}
	b := peCSV(t, "-scheme", "t5", "-heads", "1", "-dim", "4", "-positions", "2", "-bidirectional")
	if strings.Join(b[0], ",") != "position,bucket_before,bucket_after,head0_before,head0_after" || b[2][1] != "1" || b[2][2] != "17" {
		t.Errorf("bidirectional t5 table: %v", b)
	}
	err := runPE(t.Context(), []string{"-scheme", "none"}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "alibi") {
		t.Errorf("pe -scheme none: %v, want an error listing the schemes with tables", err)
	}
}

// TestPEBounds: sizes that would not fit in memory are errors naming the flag, not a crash.
func TestPEBounds(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-positions", "100000000"}, "-positions must be between 1 and 1048576"},
		{[]string{"-positions", "0"}, "-positions must be between 1 and"},
		{[]string{"-dim", "100000"}, "-dim must be between 1 and 16384"},
		{[]string{"-scheme", "learned", "-max-positions", "1000000000"}, "learned options give a table of 16000000000 values, more than 67108864; lower -max-positions"},
		{[]string{"-scheme", "dpb", "-mlp-width", "4096", "-mlp-depth", "16"}, "dpb options give a table of 251731969 values, more than 67108864; lower -mlp-depth or -mlp-width"},
		{[]string{"-scheme", "sinusoidal", "-max-positions", "10"}, "-max-positions: position.max_positions: not an option of sinusoidal"},
		{[]string{"-scheme", "rope", "-base", "x"}, "-base: want a number"},
		{[]string{"-positions", "1000000", "-dim", "1024"}, "more than 67108864 values"},
	} {
		err := run(t.Context(), append([]string{"pe"}, c.args...), io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("pe %v: error %v, want one containing %q", c.args, err, c.want)
		}
	}
}

// TestPEZeroFlags: every flag of pe given its zero value is either used as written or refused
// naming the flag; 0 never silently becomes a default.
func TestPEZeroFlags(t *testing.T) {
	legal := map[string]bool{"seed": true, "bidirectional": true}
	for _, scheme := range []string{"sinusoidal", "learned", "rope", "t5", "alibi"} {
		for _, f := range []string{"positions", "dim", "heads", "base", "rotary-fraction", "max-positions", "seed", "num-buckets", "max-distance", "init-std", "bidirectional", "scheme"} {
			zero := "0"
			switch f {
			case "bidirectional":
				zero = "false"
			case "scheme":
				zero = ""
			}
			args := []string{"-scheme", scheme, "-dim", "8", "-heads", "2", "-positions", "4", "-" + f + "=" + zero}
			err := runPE(t.Context(), args, io.Discard, io.Discard)
			switch {
			case err != nil && !strings.Contains(err.Error(), "-"+f):
				t.Errorf("pe %v: %v does not name -%s", args, err, f)
			case err == nil && !legal[f] && peUses(scheme, f):
				t.Errorf("pe %v: 0 accepted where the scheme uses -%s", args, f)
			}
		}
	}
}

// peUses tells whether a scheme reads a pe flag.
func peUses(scheme, flag string) bool {
	switch flag {
	case "base":
		return scheme == "sinusoidal" || scheme == "rope"
	case "rotary-fraction":
		return scheme == "rope"
	case "max-positions":
		return scheme == "learned"
	case "num-buckets", "max-distance":
		return scheme == "t5"
	case "init-std":
		return scheme == "t5" || scheme == "learned"
	}
	return true
}

// TestPERopeScaling: -rope-scaling is not accepted and ignored (issue 35 point 12): with
// -train-len the table is the rotation of -positions tokens scaled as training-time rope scales
// it (interpolate: every angle divided by s = positions/train-len; ntk and dynamic_ntk: a larger
// base, so every pair but the first turns slower; yarn: the fast pairs kept, the slow ones
// divided by s), and at positions ≤ train-len the plain table bit for bit; without -train-len it
// is refused in one line naming the flag, through runPE and as a process.
func TestPERopeScaling(t *testing.T) {
	base := []string{"-scheme", "rope", "-dim", "16", "-positions", "64"}
	plain := peCSV(t, base...)
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, sc := range []string{"interpolate", "ntk", "dynamic_ntk", "yarn"} {
		args := append(append([]string{}, base...), "-rope-scaling", sc)
		if sc == "dynamic_ntk" {
			args = append(args, "-rope-factor", "2")
		}
		same := peCSV(t, append(args, "-train-len", "64")...)
		if !slices.EqualFunc(same, plain, slices.Equal) {
			t.Errorf("%s at the training length differs from the plain table", sc)
		}
		got := peCSV(t, append(args, "-train-len", "16")...) // s = 4
		last := len(got) - 1
		first, slow := num(got[last][1])/num(plain[last][1]), num(got[last][8])/num(plain[last][8])
		switch sc {
		case "interpolate":
			if math.Abs(first-0.25) > 1e-12 || math.Abs(slow-0.25) > 1e-12 {
				t.Errorf("interpolate: angles × %g and × %g, want × 1/4", first, slow)
			}
		case "ntk", "dynamic_ntk":
			if first != 1 || !(slow < 0.9) {
				t.Errorf("%s: the first pair × %g (want 1), the last × %g (want slower)", sc, first, slow)
			}
		case "yarn":
			if first != 1 || math.Abs(slow-0.25) > 1e-12 {
				t.Errorf("yarn: the fastest pair × %g (want kept), the slowest × %g (want 1/4)", first, slow)
			}
		}
	}
	for _, c := range []struct{ args, want []string }{
		{append(append([]string{}, base...), "-rope-scaling", "yarn"), []string{"-rope-scaling yarn", "give -train-len N"}},
		{append(append([]string{}, base...), "-train-len", "8"), []string{"-train-len: only rope with -rope-scaling"}},
		{[]string{"-scheme", "sinusoidal", "-train-len", "8"}, []string{"-train-len: only rope with -rope-scaling"}},
		{append(append([]string{}, base...), "-rope-scaling", "ntk", "-train-len", "0"), []string{"-rope-scaling ntk", "N ≥ 1"}},
	} {
		err := runPE(t.Context(), c.args, io.Discard, io.Discard)
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("pe %v: %v, want %q", c.args, err, w)
			}
		}
		if testing.Short() {
			continue
		}
		_, stderr, code := runChild(t, append([]string{"pe"}, c.args...)...)
		oneLineError(t, strings.Join(c.args, " "), stderr, code, c.want...)
	}
}
