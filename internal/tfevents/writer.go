package tfevents

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/posformer/posformer/internal/regfile"
)

// Prefix starts the name of every event file: TensorBoard reads the files of a directory whose
// names hold "tfevents", in name order.
const Prefix = "events.out.tfevents."

// Name is an event file's name as TensorFlow's EventsWriter gives it:
// events.out.tfevents.<Unix seconds, 10 digits>.<host>.
func Name(start time.Time, host string) string {
	return fmt.Sprintf("%s%010d.%s", Prefix, start.Unix(), host)
}

// IsName tells whether a file name is an event file's.
func IsName(name string) bool { return strings.HasPrefix(name, Prefix) }

// Writer appends events to an event file, one whole record per write (TensorBoard reads the file
// while it grows). Now gives the events' wall time.
type Writer struct {
	f    *os.File
	path string
	Now  func() time.Time
}

// Create starts a new event file at path (refusing an existing one) with its version event.
func Create(path string, now func() time.Time) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	w := &Writer{f: f, path: path, Now: now}
	if err := w.Write(Event{FileVersion: FileVersion}); err != nil {
		f.Close()
		return nil, err
	}
	return w, nil
}

// Append continues the event file at path, which must exist (Keep has made its end whole).
func Append(path string, now func() time.Time) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil, err
	}
	return &Writer{f: f, path: path, Now: now}, nil
}

// Path is the file's path.
func (w *Writer) Path() string { return w.path }

// Write appends one event, stamped with the wall time now unless it has one.
func (w *Writer) Write(e Event) error {
	if e.WallTime == 0 {
		e.WallTime = float64(w.Now().UnixMicro()) / 1e6
	}
	if _, err := w.f.Write(AppendRecord(nil, e.Marshal())); err != nil {
		return fmt.Errorf("writing %s: %w", w.path, err)
	}
	return nil
}

// Scalars appends one summary event of scalar values at a step.
func (w *Writer) Scalars(step int64, values ...Value) error {
	return w.Write(Event{Step: step, Values: values})
}

// Close syncs and closes the file.
func (w *Writer) Close() error {
	serr := w.f.Sync()
	if err := w.f.Close(); err != nil {
		return fmt.Errorf("closing %s: %w", w.path, err)
	}
	if serr != nil {
		return fmt.Errorf("syncing %s: %w", w.path, serr)
	}
	return nil
}

// Read reads every event of the event file at path; a torn last record (a write stopped
// part-way) is left out.
func Read(path string) ([]Event, error) {
	b, err := regfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	recs, _, err := SplitRecords(b)
	if err != nil {
		return nil, fmt.Errorf("event file %s is damaged: %w", path, err)
	}
	events := make([]Event, len(recs))
	for i, r := range recs {
		if events[i], err = Unmarshal(r); err != nil {
			return nil, fmt.Errorf("event file %s is damaged: record %d: %w", path, i+1, err)
		}
	}
	return events, nil
}

// Keep returns the bytes of the records of an event file's contents b whose event keep keeps,
// each record's bytes as they were, without a torn last record; and whether that changed b.
// The version event is always kept.
func Keep(b []byte, keep func(Event) bool) (kept []byte, changed bool, err error) {
	recs, whole, err := SplitRecords(b)
	if err != nil {
		return nil, false, err
	}
	changed = whole < len(b)
	for i, r := range recs {
		e, err := Unmarshal(r)
		if err != nil {
			return nil, false, fmt.Errorf("record %d: %w", i+1, err)
		}
		if e.FileVersion != "" || keep(e) {
			kept = AppendRecord(kept, r)
		} else {
			changed = true
		}
	}
	return kept, changed, nil
}
