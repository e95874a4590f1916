package position

import (
	"fmt"
	"math/rand/v2"

	"github.com/posformer/posformer/internal/fielderr"
	"github.com/posformer/posformer/internal/nn"
	"github.com/posformer/posformer/internal/ops"
	G "gorgonia.org/gorgonia"
)

// TokenPositioner derives each token's position from the token ids rather than from its index
// (abacus, coupled: a digit's place in its number). The model calls TokenPositions for every
// batch it runs without positions of its own, and builds every graph for PositionBound
// positions; the positions reach the scheme's other hooks as Ctx.Pos.
type TokenPositioner interface {
	// TokenPositions returns the positions [batch·length] of batch sequences of length tokens
	// (row-major). rng draws a training batch's random offsets; nil is an evaluation (no
	// offset). The positions of a token depend only on the tokens up to it, but for a
	// training offset drawn per sequence. An error names the option to raise when a position
	// would reach PositionBound.
	TokenPositions(tokens []int, batch, length int, rng *rand.Rand) ([]int, error)
	// PositionBound: every position is below it (the rows of the scheme's table).
	PositionBound() int
}

// ReadsTokens tells whether a kind's scheme derives its positions from the token ids
// (TokenPositioner), known without building one: such a scheme needs a task whose tokens it
// understands (Dims.Digit0).
func ReadsTokens(kind string) bool {
	k, ok := registry[kind]
	return ok && k.readsTokens
}

// digitPlaces is each token's place within its maximal run of digit tokens (digit0 ..
// digit0+9), counted from 1 at the run's first token, and 0 for a token that is not a digit:
// McLeish et al. 2024's Abacus positions (mcleish7/arithmetic, abacus.py, Abacus.helper), a
// number's least significant digit first. It returns the positions [batch·length] and, per
// sequence, its longest run.
func digitPlaces(tokens []int, batch, length, digit0 int) (places, longest []int) {
	places, longest = make([]int, batch*length), make([]int, batch)
	for b := range batch {
		run := 0
		for t := range length {
			i := b*length + t
			if tok := tokens[i]; tok >= digit0 && tok < digit0+10 {
				run++
				places[i] = run
				longest[b] = max(longest[b], run)
			} else {
				run = 0
			}
		}
	}
	return places, longest
}

// digitTable is the learned table [rows, d_model] that abacus and coupled add to the token
// embeddings at each token's derived position (ops.Embed: its gradient is the sum of the rows'
// upstream gradients).
type digitTable struct {
	rows  int
	table nn.Param
	digit int // the token of digit 0
}

// newDigitTable checks the task's digits and draws the table from N(0, initStd²).
func newDigitTable(kind string, rows int, rowsKey string, initStd float64, d Dims) (digitTable, error) {
	if d.Digit0 < 1 {
		return digitTable{}, fielderr.New("position.kind", "%s numbers the digits of the task's numbers, but the task has no digit tokens; use it with task.name: addition (the task with digits), or pick another position.kind", kind)
	}
	if rows < 2 {
		return digitTable{}, fielderr.New(rowsKey, "must be at least 2, got %d", rows)
	}
	if !(initStd > 0) {
		return digitTable{}, fielderr.New("position.init_std", "must be positive, got %g", initStd)
	}
	rng := rand.New(rand.NewPCG(d.Seed, 0xabac05))
	return digitTable{rows: rows, digit: d.Digit0, table: nn.Param{
		Name:  "pos." + kind + ".table",
		Value: nn.Normal(d.Dtype, rng, initStd, rows, d.DModel),
	}}, nil
}

// Params returns the table.
func (t *digitTable) Params() []nn.Param { return []nn.Param{t.table} }

// PositionBound is the table's rows.
func (t *digitTable) PositionBound() int { return t.rows }

// AddToEmbeddings adds table[pos] to every row of x [Batch·Len, d_model].
func (t *digitTable) AddToEmbeddings(c Ctx, x *G.Node) (*G.Node, error) {
	if c.MaxPos > t.rows {
		return nil, fmt.Errorf("position: a graph for %d positions, but the table has %d rows", c.MaxPos, t.rows)
	}
	table, err := c.B.Param(t.table)
	if err != nil {
		return nil, err
	}
	pe, err := ops.Embed(table, c.Pos) // [Batch·Len, d_model]
	if err != nil {
		return nil, err
	}
	return ops.Add(x, pe)
}

// Table is the current (trained or initial) table's rows 0..n-1.
func (t *digitTable) Table(n int) (Table, error) {
	if n > t.rows {
		return Table{}, fmt.Errorf("position: the table has %d rows, %d asked for", t.rows, n)
	}
	d := t.table.Value.Shape()[1]
	vals := nn.Float64s(t.table.Value)
	tb := Table{Columns: make([]string, d)}
	for j := range tb.Columns {
		tb.Columns[j] = fmt.Sprintf("d%d", j)
	}
	for p := range n {
		tb.Rows = append(tb.Rows, vals[p*d:(p+1)*d])
	}
	return tb, nil
}
