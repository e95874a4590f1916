package train

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/gob"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strconv"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/internal/nn"
	"github.com/posformer/posformer/internal/regfile"
	"github.com/posformer/posformer/metric"
	"github.com/posformer/posformer/model"
	"github.com/posformer/posformer/rundir"
	"github.com/posformer/posformer/setup"
)

// CSVHeader is the column list of results.csv: a column per metric of the sequence tasks.
func CSVHeader() []string {
	h := []string{"task", "scheme", "seed", "length", "in_range"}
	for _, m := range metric.Scored() {
		h = append(h, m.Name)
	}
	return append(h, "n")
}

// CSVRows renders a result as results.csv rows (without the header).
func (r *Result) CSVRows() [][]string {
	var rows [][]string
	for _, l := range r.Lengths {
		row := []string{r.Task, r.Scheme, strconv.FormatUint(r.Seed, 10), strconv.Itoa(l.Length), strconv.FormatBool(l.InRange)}
		for _, m := range metric.Scored() {
			row = append(row, formatFloat(l.Score(m.Name)))
		}
		rows = append(rows, append(row, strconv.Itoa(l.N)))
	}
	return rows
}

func formatFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// Timing is timing.json: the run's wall-clock figures, kept apart from results.json so that the
// results of one config and seed are identical bit for bit, however busy the machine was.
type Timing struct {
	TrainSeconds float64 `json:"train_seconds"`
	EvalSeconds  float64 `json:"eval_seconds"`
	TokensPerSec float64 `json:"train_tokens_per_second"`
}

// resultJSON is results.json: the result, then each sequence metric's mean over the training
// lengths and over the lengths past them (in_range_<metric>, beyond_range_<metric>; null where
// there is no such length).
func resultJSON(r *Result) ([]byte, error) {
	js, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	b := bytes.NewBuffer(js[:len(js)-1])
	for _, m := range metric.Scored() {
		in, beyond := r.Summary(m.Name)
		for i, x := range []float64{in, beyond} {
			v := []byte("null")
			if !math.IsNaN(x) {
				v, _ = json.Marshal(x)
			}
			fmt.Fprintf(b, ",%q:%s", []string{"in_range_", "beyond_range_"}[i]+m.Name, v)
		}
	}
	b.WriteByte('}')
	var out bytes.Buffer
	err = json.Indent(&out, b.Bytes(), "", "  ")
	return out.Bytes(), err
}

// WriteResults writes a run's results in dir: timing.json, results.csv, the scores file of a
// windowed task (data.Traits.ScoresFile, WindowRows), and last results.json, which marks the run
// finished.
func WriteResults(dir string, r *Result) error {
	js, err := resultJSON(r)
	if err != nil {
		return err
	}
	tj, err := json.MarshalIndent(Timing{r.TrainSeconds, r.EvalSeconds, r.TokensPerSec}, "", "  ")
	if err != nil {
		return err
	}
	if err := rundir.WriteFileAtomic(filepath.Join(dir, "timing.json"), append(tj, '\n')); err != nil {
		return err
	}
	if err := writeCSV(filepath.Join(dir, "results.csv"), CSVHeader(), r.CSVRows()); err != nil {
		return err
	}
	if rows := r.WindowRows(); rows != nil {
		if err := writeCSV(filepath.Join(dir, data.TraitsOf(r.Task).ScoresFile), windowsHeader(), rows); err != nil {
			return err
		}
	}
	// results.json last: it marks the run finished (-resume returns it without running again),
	// so a run stopped before it is evaluated again and writes every file.
	return rundir.WriteFileAtomic(filepath.Join(dir, "results.json"), append(js, '\n'))
}

// writeCSV writes a header and rows as a CSV file, atomically.
func writeCSV(path string, header []string, rows [][]string) error {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write(header)
	w.WriteAll(rows)
	if err := w.Error(); err != nil {
		return err
	}
	return rundir.WriteFileAtomic(path, buf.Bytes())
}

// checkpoint is the on-disk form of a run's state (encoding/gob): the weights (as float64, exact
// for float32 too), Adam's step and moments, and the training state (completed steps, which fix
// the data stream's position, and the pending loss window).
type checkpoint struct {
	Version int
	Names   []string
	Shapes  [][]int
	Weights [][]float64
	Step    int // Adam's update count
	M, V    [][]float64
	Train   trainState
}

// SaveCheckpoint writes the weights, Adam's state and the training state atomically.
func SaveCheckpoint(path string, m *model.Model, a *Adam, st *trainState) error {
	ck := checkpoint{Version: 1, Step: a.Step, M: a.M, V: a.V}
	if st != nil {
		ck.Train = *st
	}
	for _, p := range m.Params() {
		ck.Names = append(ck.Names, p.Name)
		ck.Shapes = append(ck.Shapes, []int(p.Value.Shape()))
		ck.Weights = append(ck.Weights, nn.Float64s(p.Value))
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(ck); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	sum := sha256.Sum256(buf.Bytes())
	buf.WriteString(checksumMagic)
	buf.Write(sum[:])
	return rundir.WriteFileAtomic(path, buf.Bytes())
}

// checksumMagic opens the trailer of a checkpoint: the magic, then the SHA-256 of every byte
// before it (the gob encoding). Every reader checks it (LoadCheckpoint). A checkpoint written
// before checksums has no trailer; it is read as before, provided the gob encoding ends exactly
// at its last byte, so a flipped bit in a trailer's magic cannot pass it off as an older file.
const checksumMagic = "posformer-sha256\n"

// checkedBytes returns the gob encoding of the checkpoint at path after checking its checksum,
// and whether it had one.
func checkedBytes(path string, b []byte) ([]byte, bool, error) {
	n := len(b) - len(checksumMagic) - sha256.Size
	if n < 0 || string(b[n:n+len(checksumMagic)]) != checksumMagic {
		return b, false, nil
	}
	if sha256.Sum256(b[:n]) != [sha256.Size]byte(b[n+len(checksumMagic):]) {
		return nil, true, fmt.Errorf("checkpoint %s is damaged: its bytes do not match the checksum written with them (the file changed on disk); %s", path, rundir.RetrainFix(filepath.Dir(path)))
	}
	return b[:n], true, nil
}

// LoadCheckpoint restores what SaveCheckpoint wrote into a model of the same config (and, where
// not nil, Adam and the training state).
func LoadCheckpoint(path string, m *model.Model, a *Adam, st *trainState) error {
	raw, err := regfile.ReadFile(path)
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	enc, summed, err := checkedBytes(path, raw)
	if err != nil {
		return err
	}
	var ck checkpoint
	r := bytes.NewReader(enc)
	if err := gob.NewDecoder(r).Decode(&ck); err != nil {
		return fmt.Errorf("checkpoint %s is unreadable (%w): %s", path, err, rundir.RetrainFix(filepath.Dir(path)))
	}
	if r.Len() > 0 && !summed {
		return fmt.Errorf("checkpoint %s is damaged: %d bytes follow its data, and its checksum is unreadable; %s", path, r.Len(), rundir.RetrainFix(filepath.Dir(path)))
	}
	if !summed {
		warnUnverified(path)
	}
	params := m.Params()
	damaged := func(what string, args ...any) error {
		return fmt.Errorf("checkpoint %s is damaged: %s; %s", path, fmt.Sprintf(what, args...), rundir.RetrainFix(filepath.Dir(path)))
	}
	if len(ck.Names) != len(params) {
		return fmt.Errorf("checkpoint %s has %d tensors, the model %d: it is from another config", path, len(ck.Names), len(params))
	}
	if len(ck.Weights) != len(ck.Names) || len(ck.Shapes) != len(ck.Names) {
		return damaged("%d names, %d shapes and %d weight tensors", len(ck.Names), len(ck.Shapes), len(ck.Weights))
	}
	for i, p := range params {
		if ck.Names[i] != p.Name || len(ck.Weights[i]) != p.Value.Shape().TotalSize() {
			return fmt.Errorf("checkpoint %s: tensor %d is %s %v, the model's is %s %v: it is from another config", path, i, ck.Names[i], ck.Shapes[i], p.Name, p.Value.Shape())
		}
	}
	if a != nil {
		if len(ck.M) != len(params) || len(ck.V) != len(params) {
			return damaged("Adam's moments cover %d and %d tensors, the model has %d", len(ck.M), len(ck.V), len(params))
		}
		for i, p := range params {
			if n := p.Value.Shape().TotalSize(); len(ck.M[i]) != n || len(ck.V[i]) != n {
				return damaged("Adam's moments of %s hold %d and %d values, the tensor %d", p.Name, len(ck.M[i]), len(ck.V[i]), n)
			}
		}
	}
	for i, p := range params {
		switch d := p.Value.Data().(type) {
		case []float32:
			for j, x := range ck.Weights[i] {
				d[j] = float32(x)
			}
		case []float64:
			copy(d, ck.Weights[i])
		}
	}
	if a != nil {
		a.Step, a.M, a.V = ck.Step, ck.M, ck.V
	}
	if st != nil {
		*st = ck.Train
	}
	return nil
}

// ReevaluateFix is what to do about a run whose results.json is damaged: -resume evaluates the
// run again from its checkpoint.
const ReevaluateFix = "run the command that trained it again with -resume, which evaluates the run again from its checkpoint"

// ReadResult reads a finished run's results.json. A file that exists but does not parse (a
// truncated or hand-edited copy) is an error naming it and saying what to do.
func ReadResult(dir string) (*Result, error) {
	path := filepath.Join(dir, "results.json")
	b, err := regfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var res Result
	if err := json.Unmarshal(b, &res); err != nil {
		return nil, fmt.Errorf("%s is damaged (%w): %s", path, err, ReevaluateFix)
	}
	res.Dir = dir
	if tb, err := regfile.ReadFile(filepath.Join(dir, "timing.json")); err == nil {
		var t Timing
		if json.Unmarshal(tb, &t) == nil {
			res.TrainSeconds, res.EvalSeconds, res.TokensPerSec = t.TrainSeconds, t.EvalSeconds, t.TokensPerSec
		}
	}
	return &res, nil
}

// LoadModel rebuilds the model of a run directory from its config.yaml and the checkpoint its
// results came from (LoadTrained), and returns it with that config.
func LoadModel(dir string) (*model.Model, config.Config, error) {
	cfg, _, err := config.ReadWritten(filepath.Join(dir, "config.yaml"))
	if err != nil {
		return nil, config.Config{}, err
	}
	task, err := cfg.NewTask()
	if err != nil {
		return nil, config.Config{}, err
	}
	m, err := setup.NewModel(cfg, task)
	if err != nil {
		return nil, config.Config{}, err
	}
	m.TrainLen = data.SeqLen(task, cfg.Task.MaxLen) // as in Run: rope_scaling acts beyond it
	if _, err := LoadTrained(dir, cfg, m); err != nil {
		return nil, config.Config{}, err
	}
	return m, cfg, nil
}

// LoadTrained loads into m (built from cfg, the config of the run in dir or of one of its eval
// variants) the weights of the checkpoint the run's results came from (rundir.ResultsCheckpoint:
// best.bin with train.early_stop, else checkpoint.bin), refusing one trained with another config
// than dir's config.yaml, and returns the checkpoint's step.
func LoadTrained(dir string, cfg config.Config, m *model.Model) (step int, err error) {
	ckpt := rundir.ResultsCheckpoint(dir, cfg.Train.EarlyStop.On())
	var st trainState
	if err := LoadCheckpoint(ckpt, m, nil, &st); err != nil {
		return 0, err
	}
	if err := checkTrainedBy(dir, ckpt, st); err != nil {
		return 0, err
	}
	return st.Step, nil
}
