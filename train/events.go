package train

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/internal/regfile"
	"github.com/posformer/posformer/internal/tfevents"
	"github.com/posformer/posformer/rundir"
)

// The tags of a run's event file (docs/runs.md). Training's are plotted against the step; the
// evaluation's (EvalTag) against the input length, written as the event's step: one chart per
// metric then holds the score-by-length curve of every run, as the papers draw it.
const (
	TagLoss     = "train/loss"      // the mean training loss of the steps since the last line (metrics.jsonl's loss)
	TagLR       = "train/lr"        // the learning rate of the line's step
	TagGradNorm = "train/grad_norm" // the global gradient norm of the line's step, before clipping
	valPrefix   = "val/"            // val/<metric>: the validation score at the training lengths
	evalPrefix  = "eval/"           // eval/<metric>: the evaluation's score at each length (step = length)
)

// EvalTag is the tag of the evaluation's score in a metric, whose step is the input length.
func EvalTag(metric string) string { return evalPrefix + metric }

// ValTag is the tag of the validation score in a metric, whose step is the training step.
func ValTag(metric string) string { return valPrefix + metric }

// events is a run's TensorBoard event file; nil (every method a no-op) with tfevents: false.
type events struct {
	w *tfevents.Writer
}

// openEvents opens the event file of the run in dir, continued from step (the checkpoint's): a
// new file in a fresh run; in a resumed one, the run's file with the events past step dropped
// (as metrics.jsonl's lines are: truncateMetrics), and the evaluation's, which the run writes
// again, so that each step and length is in the file once. nil when the config turns it off.
func openEvents(cfg config.Config, dir string, step int) (*events, error) {
	if !cfg.WritesEvents() {
		return nil, nil
	}
	last, err := keepEvents(dir, func(e tfevents.Event) bool { return e.Step <= int64(step) && !isEval(e) })
	if err != nil {
		return nil, err
	}
	var w *tfevents.Writer
	if last == "" {
		w, err = createEvents(dir)
	} else {
		if err := rundir.Inside(dir, last); err != nil { // never appended through a link elsewhere
			return nil, err
		}
		w, err = tfevents.Append(last, time.Now)
	}
	if errors.Is(err, syscall.ENOSPC) {
		return nil, diskFull(err)
	}
	if err != nil {
		return nil, fmt.Errorf("run directory: %w (turn the event file off with -tfevents=false)", err)
	}
	return &events{w: w}, nil
}

// createEvents starts an event file in dir, named as TensorBoard's writers name theirs.
func createEvents(dir string) (*tfevents.Writer, error) {
	host, err := os.Hostname()
	if err != nil || host == "" || strings.ContainsRune(host, '/') {
		host = "localhost"
	}
	path := filepath.Join(dir, tfevents.Name(time.Now(), host))
	if err := rundir.Inside(dir, path); err != nil {
		return nil, err
	}
	return tfevents.Create(path, time.Now)
}

// isEval tells whether an event holds the evaluation's scores (by length).
func isEval(e tfevents.Event) bool {
	return slices.ContainsFunc(e.Values, func(v tfevents.Value) bool { return strings.HasPrefix(v.Tag, evalPrefix) })
}

// keepEvents keeps, in every event file of dir, the events keep keeps (atomically rewriting a
// file that loses some, or a torn last record), and returns the path of the last file by name
// ("" when there is none).
func keepEvents(dir string, keep func(tfevents.Event) bool) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("run directory: %w", err)
	}
	last := ""
	for _, e := range entries { // in name order
		if !tfevents.IsName(e.Name()) || e.IsDir() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		b, err := regfile.ReadFile(path)
		if err != nil {
			return "", fmt.Errorf("run directory: %w", err)
		}
		kept, changed, err := tfevents.Keep(b, keep)
		if err != nil {
			return "", fmt.Errorf("cannot resume %s: its event file %s is damaged (%v): remove it, or turn event files off with -tfevents=false, and run again with -resume (the run's results do not depend on it)", dir, e.Name(), err)
		}
		if changed {
			if err := rundir.WriteFileAtomic(path, kept); err != nil {
				return "", err
			}
		}
		last = path
	}
	return last, nil
}

// train writes a metrics.jsonl line's scalars at its step: the loss, the learning rate, the
// gradient norm and, on a validation's line, each validation score.
func (e *events) train(m Metric) error {
	if e == nil {
		return nil
	}
	vals := []tfevents.Value{{Tag: TagLoss, Simple: float32(m.Loss)}, {Tag: TagLR, Simple: float32(m.LR)}, {Tag: TagGradNorm, Simple: float32(m.GradNorm)}}
	logged := m.logged()
	for _, name := range slices.Sorted(maps.Keys(logged)) {
		if v := *logged[name]; v != nil {
			vals = append(vals, tfevents.Value{Tag: ValTag(name), Simple: float32(*v)})
		}
	}
	return diskFull(e.w.Scalars(int64(m.Step), vals...))
}

// lengths writes the evaluation's scores: one event per length (its step), holding every metric
// the length has (EvalTag).
func (e *events) lengths(rows []LengthResult) error {
	if e == nil {
		return nil
	}
	return diskFull(writeLengths(e.w, rows))
}

// diskFull says, of a write that found the disk full, what to do; other errors are returned as
// they are.
func diskFull(err error) error {
	if errors.Is(err, syscall.ENOSPC) {
		return fmt.Errorf("%w: the disk is full; free some space or choose another -out, then run again (with -resume to continue the run)", err)
	}
	return err
}

func writeLengths(w *tfevents.Writer, rows []LengthResult) error {
	for _, r := range rows {
		var vals []tfevents.Value
		for _, name := range slices.Sorted(maps.Keys(r.Scores)) {
			vals = append(vals, tfevents.Value{Tag: EvalTag(name), Simple: float32(r.Scores[name])})
		}
		if err := w.Scalars(int64(r.Length), vals...); err != nil {
			return err
		}
	}
	return nil
}

// close closes the file (once: a second close does nothing).
func (e *events) close() error {
	if e == nil || e.w == nil {
		return nil
	}
	w := e.w
	e.w = nil
	return w.Close()
}

// writeVariantEvents writes an eval variant's scores by length as the event file of its
// directory (replacing any), so that TensorBoard shows the variant as a run of its own beside
// the run's evaluation, on the same eval/<metric> charts.
func writeVariantEvents(cfg config.Config, dir string, rows []LengthResult) error {
	if !cfg.WritesEvents() {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("run directory: %w", err)
	}
	for _, e := range entries {
		if tfevents.IsName(e.Name()) {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return fmt.Errorf("run directory: %w", err)
			}
		}
	}
	w, err := createEvents(dir)
	if err != nil {
		return fmt.Errorf("run directory: %w", err)
	}
	if err := writeLengths(w, rows); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}
