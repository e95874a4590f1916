package data

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/posformer/posformer/internal/fielderr"
)

const flipFlopName = "flip_flop"

// FlipFlopIgnoreProb is the flip_flop task's default probability of an ignore instruction, the
// training distribution of Liu et al. 2023 (their dense split: 0.1, their sparse one: 0.98).
const FlipFlopIgnoreProb = 0.8

// Tokens of the flip_flop task: three instructions and two bits.
const (
	ffWrite = FirstSymbol + iota
	ffIgnore
	ffRead
	ffZero
	ffOne
)

func init() {
	Register(flipFlopName, func(opt Options) (Task, error) {
		if err := fixedAlphabet(flipFlopName, 5, opt); err != nil {
			return nil, err
		}
		if opt.Format == FormatSlots || opt.EndToken {
			return nil, fielderr.New("task.format", "the flip_flop task is scored where each read's bit stands in the string (the next-token format); remove task.format and task.end_token")
		}
		p := FlipFlopIgnoreProb
		if opt.IgnoreProb != nil {
			p = *opt.IgnoreProb
		}
		if !(p >= 0 && p < 1) {
			return nil, fielderr.New("task.ignore_prob", "the probability of an ignore instruction must be in [0, 1) (the default: %g), got %g", FlipFlopIgnoreProb, p)
		}
		return flipFlopTask{ignore: p}, nil
	})
}

// flipFlopTask is "flip_flop": flip-flop language modelling (Liu et al. 2023, docs/tasks.md).
//
//   - Input: L/2 instructions, each an instruction token (w, i, r) then a bit (0, 1): L tokens,
//     L even. The first instruction is a write and the last a read; each other one is an ignore
//     with probability ignore_prob, else a write or a read with equal probability. A write's
//     and an ignore's bits are uniform; a read's bit is the last written one.
//   - Output: none (OutputLen 0). The model predicts every next token, and only the bits after
//     the reads are scored (their weights are 1, every other one 0), in training too: token
//     accuracy is the accuracy at the reads, exact match the fraction of strings with every read
//     right.
//   - Vocab: FirstSymbol + 5.
type flipFlopTask struct{ ignore float64 }

func (flipFlopTask) Name() string       { return flipFlopName }
func (flipFlopTask) Vocab() int         { return FirstSymbol + 5 }
func (flipFlopTask) OutputLen(int) int  { return 0 }
func (flipFlopTask) OutputClasses() int { return 2 }
func (flipFlopTask) CheckLength(L int) error {
	if L < 4 || L%2 != 0 {
		return fmt.Errorf("a flip_flop string is instructions of two tokens, a write first and a read last: a length must be even and at least 4, got %d", L)
	}
	return nil
}

func (f flipFlopTask) Generate(rng *rand.Rand, L int) Example {
	if err := f.CheckLength(L); err != nil {
		panic("flip_flop: " + err.Error())
	}
	n := L / 2
	in := make([]int, 0, L)
	last := ffZero
	for j := range n {
		op := ffWrite
		switch {
		case j == n-1:
			op = ffRead
		case j == 0:
		case rng.Float64() < f.ignore:
			op = ffIgnore
		case rng.IntN(2) == 0:
			op = ffRead
		}
		bit := ffZero + rng.IntN(2)
		if op == ffRead {
			bit = last
		}
		if op == ffWrite {
			last = bit
		}
		in = append(in, op, bit)
	}
	return Example{Input: in}
}

// scoredAt lists the positions of an input whose next token is scored: the reads.
func (flipFlopTask) scoredAt(in []int) []int {
	var out []int
	for t := 0; t+1 < len(in); t += 2 {
		if in[t] == ffRead {
			out = append(out, t)
		}
	}
	return out
}

// Baseline: every read's bit is 0 or 1 as often (writes are uniform), so guessing a constant
// bit scores 1/2 a read; exact match is E[2^−reads], counted over a fixed-seed sample of 4096
// strings.
func (f flipFlopTask) Baseline(L int) Baseline {
	if f.CheckLength(L) != nil {
		return Baseline{Token: 0.5, Exact: math.NaN()}
	}
	rng := rand.New(rand.NewPCG(uint64(L), 0xf11bf10b))
	sum := 0.0
	const n = 4096
	for range n {
		sum += math.Pow(0.5, float64(len(f.scoredAt(f.Generate(rng, L).Input))))
	}
	return Baseline{Token: 0.5, Exact: sum / n}
}

// inPlace is the hook of a task scored inside its input (flip_flop): MakeBatch gives weight 1
// to the positions scoredAt lists.
type inPlace interface {
	scoredAt(in []int) []int
}
