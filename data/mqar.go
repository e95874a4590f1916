package data

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/posformer/posformer/internal/fielderr"
)

const mqarName = "mqar"

// MQARMinSymbols is the smallest task.symbols the mqar task takes: Zoology's split of V symbols
// leaves ⌊V/2⌋ − 1 keys, and an input needs one.
const MQARMinSymbols = 4

func init() {
	Register(mqarName, func(opt Options) (Task, error) {
		v, err := opt.symbols()
		if err != nil {
			return nil, err
		}
		if v < MQARMinSymbols {
			return nil, fielderr.New("task.symbols", "the mqar task splits its symbols as Zoology does (a blank, keys 1..symbols/2−1, values symbols/2..symbols−1) and needs at least %d for one key, got %d", MQARMinSymbols, v)
		}
		switch {
		case opt.Format == FormatSlots:
			return nil, fielderr.New("task.format", "the mqar task is scored where each query's answer stands in the input, after the query (the next-token format); an encoder would see the answers: remove task.format")
		case opt.EndToken:
			return nil, fielderr.New("task.end_token", "the mqar task has no answer after SEP to end (each query's answer follows it in the input); remove task.end_token")
		}
		m := mqarTask{symbols: v}
		if q := opt.Queries; q != nil {
			if *q < 1 {
				return nil, fielderr.New("task.queries", "must be at least 1 (or removed: every key is queried once), got %d", *q)
			}
			m.queries = *q
		}
		return m, nil
	})
}

// mqarTask is "mqar": multi-query associative recall (Arora et al. 2023, "Zoology", the
// generator multiquery_ar of HazyResearch/zoology; docs/tasks.md says where this one differs).
//
//   - Tokens: Zoology's split of its V = task.symbols ids, id z being token FirstSymbol + z: the
//     blank z = 0, the keys z = 1 .. ⌊V/2⌋ − 1, the values z = ⌊V/2⌋ .. V − 1.
//   - Length: L counts the input's tokens, as for every task, and sets the number of key–value
//     pairs P: every key queried once (the default, as Zoology queries them), P = ⌊L/4⌋; with
//     task.queries Q, P = ⌊L/2⌋ − Q. A longer input holds more pairs, never only more filler.
//   - Input: P pairs k v, the keys distinct and the values distinct (both drawn without
//     replacement, as Zoology draws them), then Q queries, each a key of a different pair in a
//     uniformly random order followed by its value, then blanks up to L (at most 3, or 1 with
//     task.queries). Q ≤ P and P ≤ ⌊V/2⌋ − 1 (CheckLength).
//   - Output: none (OutputLen 0). Only the answers are scored: the prediction at each query's
//     position, whose next token is its value (the scoredAt hook; weights 1 there and 0
//     elsewhere, in training too). Token accuracy is the fraction of queries answered, exact match
//     the fraction of inputs with every query answered.
//   - Vocab: FirstSymbol + V.
//
// For example V = 8 (keys 3, 4, 5; values 6 .. 9), L = 8: 4 6 3 8 | 3 8 4 6, scored at the
// queries 3 (answer 8) and 4 (answer 6).
type mqarTask struct {
	symbols int // V, Zoology's vocab_size
	queries int // Q; 0: every key once
}

var (
	_ LengthChecked = mqarTask{}
	_ Baselined     = mqarTask{}
	_ Classed       = mqarTask{}
	_ inPlace       = mqarTask{}
)

func (mqarTask) Name() string         { return mqarName }
func (m mqarTask) Vocab() int         { return FirstSymbol + m.symbols }
func (mqarTask) OutputLen(int) int    { return 0 }
func (m mqarTask) OutputClasses() int { return m.values() }

// keys and values are how many ids each half of the split holds.
func (m mqarTask) keys() int   { return m.symbols/2 - 1 }
func (m mqarTask) values() int { return m.symbols - m.symbols/2 }

// layout is the number of pairs and of queries at input length L.
func (m mqarTask) layout(L int) (pairs, queries int) {
	if m.queries == 0 {
		return L / 4, L / 4
	}
	return L/2 - m.queries, m.queries
}

func (m mqarTask) CheckLength(L int) error {
	p, q := m.layout(L)
	switch {
	case m.queries == 0 && p < 1:
		return fmt.Errorf("an mqar input is its key–value pairs, then every key queried with its answer: 4 tokens a pair, so a length must be at least 4, got %d", L)
	case m.queries > 0 && p < q:
		return fmt.Errorf("with task.queries %d an mqar input needs as many pairs as queries (each query asks a different key), two tokens each, and two tokens a query: a length must be at least %d, got %d", q, 4*q, L)
	case p > m.keys() && 2*p+2 > MaxSymbols:
		return fmt.Errorf("length %d holds %d key–value pairs, more than the %d keys of the largest alphabet (task.symbols %d); test shorter lengths", L, p, MaxSymbols/2-1, MaxSymbols)
	case p > m.keys():
		return fmt.Errorf("length %d holds %d key–value pairs, but task.symbols %d gives %d keys (symbols/2 − 1, as Zoology splits them); raise task.symbols to at least %d, or use shorter lengths", L, p, m.symbols, m.keys(), 2*p+2)
	}
	return nil
}

func (m mqarTask) Generate(rng *rand.Rand, L int) Example {
	if err := m.CheckLength(L); err != nil {
		panic("mqar: " + err.Error())
	}
	p, q := m.layout(L)
	keys, values := distinct(rng, m.keys(), p), distinct(rng, m.values(), p)
	in := make([]int, 0, L)
	for i := range p {
		in = append(in, FirstSymbol+1+keys[i], FirstSymbol+m.symbols/2+values[i])
	}
	for _, i := range rng.Perm(p)[:q] {
		in = append(in, in[2*i], in[2*i+1])
	}
	for len(in) < L {
		in = append(in, FirstSymbol) // the blank
	}
	return Example{Input: in}
}

// distinct draws k distinct values of 0..n−1 in random order (a partial Fisher–Yates shuffle).
func distinct(rng *rand.Rand, n, k int) []int {
	pool := make([]int, n)
	for i := range pool {
		pool[i] = i
	}
	for i := range k {
		j := i + rng.IntN(n-i)
		pool[i], pool[j] = pool[j], pool[i]
	}
	return pool[:k]
}

// scoredAt lists the positions of an input whose next token is scored: the queries.
func (m mqarTask) scoredAt(in []int) []int {
	p, q := m.layout(len(in))
	out := make([]int, q)
	for j := range out {
		out[j] = 2*p + 2*j
	}
	return out
}

// Baseline: each answer is uniform over the values (the values are drawn uniformly without
// replacement and the queries' order is uniform), so the best constant answer scores one in
// values() a query; the Q answers are distinct values, so the most likely whole answer is any
// sequence of Q distinct values, of probability 1/(v(v−1)···(v−Q+1)), v = values().
func (m mqarTask) Baseline(L int) Baseline {
	v := m.values()
	if m.CheckLength(L) != nil {
		return Baseline{Token: 1 / float64(v), Exact: math.NaN()}
	}
	_, q := m.layout(L)
	exact := 1.0
	for i := range q {
		exact /= float64(v - i)
	}
	return Baseline{Token: 1 / float64(v), Exact: exact}
}
