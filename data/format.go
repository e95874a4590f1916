package data

import (
	"math/rand/v2"
	"slices"

	"github.com/posformer/posformer/internal/fielderr"
)

// Task formats: how an example is laid out for the model ([Options.Format]).
const (
	// FormatNext is the decoder's next-token format: the stream Input SEP Output, each output
	// token predicted at the position before it (the default).
	FormatNext = "next"
	// FormatSlots is the encoder format of Delétang et al. 2023 and Ruoss et al. 2023: the input
	// followed by OutputLen(L) blank slot tokens, every output token predicted at its slot in one
	// pass, the loss on the slots only.
	FormatSlots = "slots"
)

// wrap applies the format options to a task built by its constructor.
func wrap(t Task, opt Options) (Task, error) {
	switch opt.Format {
	case "", FormatNext:
		if opt.EndToken {
			return endTask{t}, nil
		}
		return t, nil
	case FormatSlots:
		if opt.EndToken {
			return nil, fielderr.New("task.end_token", "task.format: slots has one slot per output token, so the answer's length is given and there is nothing to stop; remove task.end_token or use task.format: next")
		}
		return slotTask{t}, nil
	}
	return nil, fielderr.New("task.format", "unknown format %q; use %q (decoder, input SEP output) or %q (encoder, input then blank output slots)", opt.Format, FormatNext, FormatSlots)
}

// endTask is a task whose answer ends with an end-of-answer token, END = the inner task's
// vocabulary size (a new id, so the inner task's ids keep their values): OutputLen(L) is the
// inner task's plus one, and exact match then requires the model to stop where the answer does
// (Kazemnejad et al. 2023 append the tokenizer's EOS to every target).
type endTask struct{ Task }

func (e endTask) Vocab() int          { return e.Task.Vocab() + 1 }
func (e endTask) OutputLen(L int) int { return e.Task.OutputLen(L) + 1 }
func (e endTask) Generate(rng *rand.Rand, L int) Example {
	ex := e.Task.Generate(rng, L)
	ex.Output = slices.Concat(ex.Output, []int{e.Task.Vocab()})
	return ex
}

// slotTask is a task in the slots format: SLOT = the inner task's vocabulary size is the blank
// token of every output slot. Its examples are the inner task's; MakeBatch lays them out.
type slotTask struct{ Task }

func (s slotTask) Vocab() int { return s.Task.Vocab() + 1 }

// EndToken returns the end-of-answer token of a task built with Options.EndToken.
func EndToken(t Task) (int, bool) {
	if e, ok := t.(endTask); ok {
		return e.Task.Vocab(), true
	}
	return 0, false
}

// SlotToken returns the blank slot token of a task built with Options.Format "slots".
func SlotToken(t Task) (int, bool) {
	if s, ok := t.(slotTask); ok {
		return s.Task.Vocab(), true
	}
	return 0, false
}

// unwrapFormat is the task a format option wraps (endTask, slotTask), or t itself: the task whose
// hooks (Glyphed, ByteTokens, Digital, LengthChecked) hold in either format.
func unwrapFormat(t Task) Task {
	switch w := t.(type) {
	case endTask:
		return unwrapFormat(w.Task)
	case slotTask:
		return unwrapFormat(w.Task)
	}
	return t
}
