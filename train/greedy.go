package train

import (
	"fmt"
	"slices"

	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/model"
)

// Greedy scores examples by true greedy generation, as Kazemnejad et al. 2023 do: the model
// reads input SEP and appends its argmax token, one at a time, until it emits the task's end
// token (task.end_token) or has written as many tokens as the answer has; an example is right
// when the generated tokens are exactly the answer. It returns the exact match and the generated
// answers. Evaluate's teacher-forced exact match is the same number (the first wrong token of a
// generation is an argmax error at its own position under teacher forcing, and an early or a
// missing end token is a wrong token), which TestGreedyEqualsTeacherForced checks; Greedy costs
// OutputLen forward passes instead of one, so it is there to check that equality, not to score
// runs. It needs the next-token format and positions 0..T-1 (no randomized positions at
// evaluation).
func Greedy(m *model.Model, examples []data.Example, task data.Task) (float64, [][]int, error) {
	if len(examples) == 0 {
		return 0, nil, fmt.Errorf("greedy: no examples")
	}
	if _, slots := data.SlotToken(task); slots {
		return 0, nil, fmt.Errorf("greedy: the slots format predicts every output token in one pass; there is nothing to generate")
	}
	if rnd, ok := samplerOf(m); ok && rnd.AtEval {
		return 0, nil, fmt.Errorf("greedy: randomized positions at evaluation are not supported")
	}
	L := len(examples[0].Input)
	end, hasEnd := data.EndToken(task)
	K := task.OutputLen(L)
	B := len(examples)
	seqs := make([][]int, B) // input SEP generated...
	for i, e := range examples {
		if len(e.Input) != L {
			return 0, nil, fmt.Errorf("greedy: mixed input lengths %d and %d", L, len(e.Input))
		}
		seqs[i] = append(slices.Clone(e.Input), data.SEP)
	}
	stopped := make([]bool, B)
	for k := 0; k < K; k++ {
		T := L + 1 + k
		g, err := m.Build(B, T, model.BuildOptions{})
		if err != nil {
			return 0, nil, err
		}
		tokens := make([]int, 0, B*T) // [B·T]
		for _, s := range seqs {
			tokens = append(tokens, s...)
		}
		weights := make([]float64, B*T)
		for i := range weights {
			weights[i] = 1 // the loss is not used; all-zero weights would make it 0/0
		}
		_, err = g.Run(model.Input{Tokens: tokens, Targets: make([]int, B*T), Weights: weights})
		if err != nil {
			g.Close()
			return 0, nil, err
		}
		pred := g.Argmax() // [B·T]
		g.Close()
		for i := range seqs {
			tok := pred[i*T+T-1]
			if stopped[i] {
				tok = end // keeps the rows the same length; never read
			} else if hasEnd && tok == end {
				stopped[i] = true
			}
			seqs[i] = append(seqs[i], tok)
		}
	}
	answers := make([][]int, B)
	exact := 0
	for i, e := range examples {
		gen := seqs[i][L+1:]
		if hasEnd {
			if j := slices.Index(gen, end); j >= 0 {
				gen = gen[:j+1]
			}
		}
		answers[i] = gen
		if slices.Equal(gen, e.Output) {
			exact++
		}
	}
	return float64(exact) / float64(B), answers, nil
}
