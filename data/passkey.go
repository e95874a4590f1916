package data

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/posformer/posformer/internal/fielderr"
)

// The passkey task's template (the landmark-attention prompt, also used by the position-
// interpolation and YaRN papers): the lines below joined by newlines, the filler cut from
// filler repeated with single spaces.
const (
	passkeyName        = "passkey"
	passkeyDescription = "There is an important info hidden inside a lot of irrelevant text. Find it and memorize them. I will quiz you about the important information there."
	passkeyFiller      = "The grass is green. The sky is blue. The sun is yellow. Here we go. There and back again."
	passkeyNeedle      = "The pass key is %d. Remember it. %d is the pass key."
	passkeyQuestion    = "What is the pass key? The pass key is"
)

// Passkey keys: every key has PasskeyDigits digits, drawn uniformly from
// [PasskeyMinKey, PasskeyMaxKey] (the papers draw 1..50000; a fixed width keeps the answer's
// length a function of L, and one digit keeps it learnable by a 2-layer d_model 64 model in a few
// hundred steps: docs/tasks.md says what two and three digits gave).
const (
	PasskeyDigits = 1
	PasskeyMinKey = 1
	PasskeyMaxKey = 9
)

func init() {
	Register(passkeyName, func(opt Options) (Task, error) {
		if opt.Symbols != 0 && opt.Symbols != DefaultSymbols {
			return nil, fielderr.New("task.symbols", "the passkey task's tokens are bytes (%d symbols); remove task.symbols", 256)
		}
		if d := opt.Depth; d != nil && !(*d >= 0 && *d <= 1) {
			return nil, fielderr.New("task.depth", "the needle's depth is a fraction of the filler in [0, 1] (0: right after the task description, 1: right before the question), got %g", *d)
		}
		return passkeyTask{depth: opt.Depth}, nil
	})
}

// passkeyTask is "passkey": byte-level passkey retrieval (docs/tasks.md).
//
//   - Input: the prompt, exactly L bytes (byte b is token FirstSymbol+b): the task description,
//     n_prefix bytes of filler, the needle with the key k, n−n_prefix bytes of filler, the
//     question, joined by newlines; n is what L leaves for the filler, each run of filler the
//     first bytes of the filler repeated (as the landmark code cuts it). n_prefix is ⌊depth·n⌋
//     with task.depth, else uniform in 0..n.
//   - Output: k's PasskeyDigits digits (the answer after SEP, which stands where the papers'
//     model writes its space). The papers score the first number of the greedy answer; with a
//     fixed width that equals k exactly when every digit is right, so retrieval accuracy is
//     exact_match (passkey_test.go checks it).
//   - Vocab: FirstSymbol + 256.
type passkeyTask struct{ depth *float64 }

func (passkeyTask) Name() string      { return passkeyName }
func (passkeyTask) Vocab() int        { return FirstSymbol + 256 }
func (passkeyTask) OutputLen(int) int { return PasskeyDigits }
func (passkeyTask) OutputClasses() int {
	if PasskeyDigits == 1 { // the key's one digit is never 0
		return PasskeyMaxKey - PasskeyMinKey + 1
	}
	return 10
}
func (passkeyTask) CheckLength(L int) error {
	if L < passkeyFixed {
		return fmt.Errorf("the passkey prompt without filler has %d bytes; a length must be at least that", passkeyFixed)
	}
	return nil
}

// passkeyFixed is the prompt's length without filler: the three lines and the needle, four
// newlines.
var passkeyFixed = len(passkeyDescription) + len(fmt.Sprintf(passkeyNeedle, PasskeyMinKey, PasskeyMinKey)) + len(passkeyQuestion) + 4

// Baseline: the key is uniform over its PasskeyMaxKey−PasskeyMinKey+1 values, its first digit
// over 9 and every other over 10.
func (passkeyTask) Baseline(int) Baseline {
	return Baseline{Token: (1.0/9 + float64(PasskeyDigits-1)/10) / PasskeyDigits, Exact: 1 / float64(PasskeyMaxKey-PasskeyMinKey+1)}
}

// PasskeyPrompt is the prompt of L bytes with key k and n_prefix bytes of filler before the
// needle; it panics if they do not fit.
func PasskeyPrompt(L, k, prefix int) string {
	n := L - passkeyFixed
	if n < 0 || prefix < 0 || prefix > n || len(strconv.Itoa(k)) != PasskeyDigits {
		panic(fmt.Sprintf("passkey: no prompt of %d bytes with key %d and %d bytes of filler before it", L, k, prefix))
	}
	return passkeyDescription + "\n" + filler(prefix) + "\n" + fmt.Sprintf(passkeyNeedle, k, k) + "\n" + filler(n-prefix) + "\n" + passkeyQuestion
}

// filler is the first n bytes of the filler repeated with single spaces.
func filler(n int) string {
	b := make([]byte, 0, n+len(passkeyFiller)+1)
	for len(b) < n {
		if len(b) > 0 {
			b = append(b, ' ')
		}
		b = append(b, passkeyFiller...)
	}
	return string(b[:n])
}

func (p passkeyTask) Generate(rng *rand.Rand, L int) Example {
	k := PasskeyMinKey + rng.IntN(PasskeyMaxKey-PasskeyMinKey+1)
	n := L - passkeyFixed
	if n < 0 {
		panic(fmt.Sprintf("passkey: length %d < %d, the prompt without filler", L, passkeyFixed))
	}
	prefix := rng.IntN(n + 1)
	if p.depth != nil {
		prefix = int(math.Floor(*p.depth * float64(n)))
	}
	return Example{Input: bytesToTokens(PasskeyPrompt(L, k, prefix)), Output: bytesToTokens(strconv.Itoa(k))}
}

// bytesToTokens maps byte b to token FirstSymbol+b.
func bytesToTokens(s string) []int {
	out := make([]int, len(s))
	for i := range len(s) {
		out[i] = FirstSymbol + int(s[i])
	}
	return out
}

// ByteTokens: passkey's prompt is bytes, written as text by inspect and the report.
func (passkeyTask) ByteTokens() {}

var _ ByteTokens = passkeyTask{}
