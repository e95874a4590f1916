package train

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/posformer/posformer/data"
)

// newTaskOf builds a registered task, failing the test on an error.
func newTaskOf(t *testing.T, name string, opt data.Options) data.Task {
	t.Helper()
	task, err := data.New(name, opt)
	if err != nil {
		t.Fatal(err)
	}
	return task
}

// TestFormatTokensGolden: one line per way FormatTokens writes tokens: a lettered task (copy),
// addition's digits and + (in every format), passkey's bytes with the escapes, a task of many
// symbols as ids; the mark brackets a token in each.
func TestFormatTokensGolden(t *testing.T) {
	b := func(s string) []int { // bytes as passkey's tokens
		var out []int
		for _, c := range []byte(s) {
			out = append(out, data.FirstSymbol+int(c))
		}
		return out
	}
	S := data.FirstSymbol
	for _, c := range []struct {
		name   string
		task   data.Task
		tokens []int
		mark   int
		want   string
	}{
		{"copy", newTaskOf(t, "copy", data.Options{}), []int{S, S + 1, data.SEP, S + 7, data.PAD, 99}, 3, "ab|[h].<99>"},
		{"copy, end token", newTaskOf(t, "copy", data.Options{EndToken: true}), []int{S + 2, S + 8}, -1, "c$"},
		{"addition", newTaskOf(t, "addition", data.Options{}), []int{S + 4, S + 7, S + 2, S + 10, S + 5, S + 1, S + 9, data.SEP, S + 7, S + 8}, 8, "472+519|[7]8"},
		{"addition, end token", newTaskOf(t, "addition", data.Options{EndToken: true}), []int{S + 0, S + 9, S + 11}, -1, "09$"},
		{"addition, slots", newTaskOf(t, "addition", data.Options{Format: data.FormatSlots}), []int{S + 3, S + 10, S + 3, S + 11, S + 11}, 4, "3+3_[_]"},
		{"passkey", newTaskOf(t, "passkey", data.Options{}), b("The pass key is 7.\nok"), 16, `The pass key is [7].\x0aok`},
		{"passkey, escapes", newTaskOf(t, "passkey", data.Options{}), append(b("a\\|`<[]\x00\x7f\xff~ "), data.SEP, data.PAD, 300), -1, `a\x5c\x7c\x60\x3c\x5b\x5d\x00\x7f\xff~ <sep><pad><300>`},
		{"passkey, end token", newTaskOf(t, "passkey", data.Options{EndToken: true}), append(b("42"), S+256), 2, "42[<end>]"},
		{"passkey, slots", newTaskOf(t, "passkey", data.Options{Format: data.FormatSlots}), append(b("x"), S+256), -1, "x<slot>"},
		{"copy of 30 symbols", newTaskOf(t, "copy", data.Options{Symbols: 30}), []int{S, S + 29, data.SEP}, 1, "2 [31] 1"},
	} {
		if got := FormatTokens(c.task, c.tokens, c.mark); got != c.want {
			t.Errorf("%s: FormatTokens = %q, want %q", c.name, got, c.want)
		}
	}
}

// TestFormatTokensDigits: for every format of a task with digits (data.Digit0), digit d is
// written '0'+d, over every digit.
func TestFormatTokensDigits(t *testing.T) {
	for _, opt := range []data.Options{{}, {EndToken: true}, {Format: data.FormatSlots}} {
		task := newTaskOf(t, "addition", opt)
		d0, ok := data.Digit0(task)
		if !ok {
			t.Fatalf("addition %+v: no Digit0", opt)
		}
		for d := range 10 {
			if got := FormatTokens(task, []int{d0 + d}, -1); got != strconv.Itoa(d) {
				t.Errorf("addition %+v: digit %d written %q", opt, d, got)
			}
		}
	}
}

// TestFormatTokensBytesUnambiguous: a byte task's rendering reads back to the tokens and the mark
// it was written from, for random sequences of every byte and every special token (a property
// over many inputs: no two sequences are written alike), and every printable character but the
// escaped ones is itself.
func TestFormatTokensBytesUnambiguous(t *testing.T) {
	for _, opt := range []data.Options{{}, {EndToken: true}, {Format: data.FormatSlots}} {
		task := newTaskOf(t, "passkey", opt)
		specials := map[string]int{"sep": data.SEP, "pad": data.PAD}
		if e, ok := data.EndToken(task); ok {
			specials["end"] = e
		}
		if s, ok := data.SlotToken(task); ok {
			specials["slot"] = s
		}
		rng := rand.New(rand.NewPCG(1, 2))
		for range 2000 {
			tokens := make([]int, 1+rng.IntN(12))
			for i := range tokens {
				switch r := rng.IntN(10); {
				case r == 0:
					tokens[i] = rng.IntN(task.Vocab() + 5) // specials, and ids beyond the vocabulary
				case r < 5:
					tokens[i] = data.FirstSymbol + 0x20 + rng.IntN(0x5f) // printable
				default:
					tokens[i] = data.FirstSymbol + rng.IntN(256)
				}
			}
			mark := rng.IntN(len(tokens)+2) - 1
			s := FormatTokens(task, tokens, mark)
			got, gotMark, err := readByteTokens(s, specials)
			if err != nil || !slices.Equal(got, tokens) || (mark >= 0 && mark < len(tokens) && gotMark != mark) {
				t.Fatalf("passkey %+v: %v (mark %d) written %q, read back as %v (mark %d, %v)", opt, tokens, mark, s, got, gotMark, err)
			}
		}
		for c := byte(0x20); c <= 0x7e; c++ {
			want := string(c)
			if strings.IndexByte("\\|`<[]", c) >= 0 {
				want = fmt.Sprintf(`\x%02x`, c)
			}
			if got := FormatTokens(task, []int{data.FirstSymbol + int(c)}, -1); got != want {
				t.Errorf("passkey %+v: byte %q written %q, want %q", opt, c, got, want)
			}
		}
	}
}

// readByteTokens reads FormatTokens' rendering of a byte task back: the tokens and the index of
// the bracketed one (-1 without).
func readByteTokens(s string, specials map[string]int) (tokens []int, mark int, err error) {
	mark = -1
	for s != "" {
		switch {
		case s[0] == '[':
			mark, s = len(tokens), s[1:]
		case s[0] == ']':
			s = s[1:]
		case strings.HasPrefix(s, `\x`) && len(s) >= 4:
			v, err := strconv.ParseUint(s[2:4], 16, 8)
			if err != nil {
				return nil, 0, err
			}
			tokens, s = append(tokens, data.FirstSymbol+int(v)), s[4:]
		case s[0] == '<':
			end := strings.IndexByte(s, '>')
			if end < 0 {
				return nil, 0, fmt.Errorf("unclosed < in %q", s)
			}
			name := s[1:end]
			tok, ok := specials[name]
			if !ok {
				if tok, err = strconv.Atoi(name); err != nil {
					return nil, 0, fmt.Errorf("unknown token <%s>", name)
				}
			}
			tokens, s = append(tokens, tok), s[end+1:]
		case s[0] == '\\' || s[0] < 0x20 || s[0] > 0x7e:
			return nil, 0, fmt.Errorf("unescaped byte %q", s[0])
		default:
			tokens, s = append(tokens, data.FirstSymbol+int(s[0])), s[1:]
		}
	}
	return tokens, mark, nil
}
