package train

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/internal/regfile"
	"github.com/posformer/posformer/model"
	"github.com/posformer/posformer/rundir"
)

// Diagnostics is diagnostics.json: how the model attends at every tested length, and how it fails
// just past the training range. A grid's report plots and tables them without a forward pass.
type Diagnostics struct {
	// Examples is the number of test examples (the first ones of each length) whose attention was
	// measured.
	Examples int `json:"examples"`
	// Vocab is the task's vocabulary (for FormatTokens).
	Vocab   int                 `json:"vocab"`
	Layers  int                 `json:"layers"`
	Heads   int                 `json:"heads"`
	Lengths []LengthDiagnostics `json:"lengths"`
}

// LengthDiagnostics is one tested length's.
type LengthDiagnostics struct {
	Length int `json:"length"`
	// Distance and Entropy are, per [layer][head], the attended distance and entropy of
	// AttentionStats averaged over the examples and the answer's queries (the rows that predict
	// the answer). Absent (null) at lengths whose attention weights are too large to capture
	// (captureBytes for one example).
	Distance [][]float64 `json:"attended_distance"`
	Entropy  [][]float64 `json:"attention_entropy"`
	// Failures are the first wrong examples, decoded greedily (only at the first lengths past
	// the training range).
	Failures []Decoded `json:"failures,omitempty"`
}

// evaluateDiagnosed is evaluate (the same scores, bit for bit) plus the length's diagnostics,
// from the first examples only, so it too holds a batch at a time; decode asks for its failures.
func evaluateDiagnosed(ctx context.Context, m *model.Model, task data.Task, next func(int) []data.Example, n, batchSize int, seed uint64, decode bool) (LengthResult, LengthDiagnostics, error) {
	fails := 0
	if decode {
		fails = config.FailuresPerLength
	}
	p, err := evaluate(ctx, m, task, next, n, batchSize, seed, min(config.DiagnosticExamples, n), fails, nil)
	if err != nil {
		return LengthResult{}, LengthDiagnostics{}, err
	}
	L := p.lr.Length
	d := LengthDiagnostics{Length: L}
	// At lengths where even one example's attention weights exceed the capture bound (the
	// encoder protocol's longest tests), the attended distance is left out; the scores are not.
	if captureBatch(m, data.SeqLen(task, L)) >= 1 {
		st, err := attentionStats(ctx, m, task, p.kept, p.positions, nil)
		if err != nil {
			return LengthResult{}, LengthDiagnostics{}, err
		}
		d.Distance, d.Entropy = answerMeans(st.Distance, L), answerMeans(st.Entropy, L)
	}
	if d.Failures, err = decodeGreedy(m, task, p.fails, batchSize, nil); err != nil {
		return LengthResult{}, LengthDiagnostics{}, err
	}
	return p.lr, d, nil
}

// writeDiagnostics writes a run's diagnostics.json (atomically).
func writeDiagnostics(dir string, d *Diagnostics) error {
	js, err := json.MarshalIndent(d, "", " ")
	if err != nil {
		return err
	}
	return rundir.WriteFileAtomic(filepath.Join(dir, rundir.DiagnosticsFile), append(js, '\n'))
}

// ReadDiagnostics reads a run directory's diagnostics.json; a run from before posformer gathered
// them has none (an error wrapping os.ErrNotExist).
func ReadDiagnostics(dir string) (*Diagnostics, error) {
	b, err := regfile.ReadFile(filepath.Join(dir, rundir.DiagnosticsFile))
	if err != nil {
		return nil, err
	}
	var d Diagnostics
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("%s is damaged (%w): delete it, and the run is reported without its attention diagnostics (its results stand)", filepath.Join(dir, rundir.DiagnosticsFile), err)
	}
	return &d, nil
}
