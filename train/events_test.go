package train

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/posformer/posformer/internal/tfevents"
	"github.com/posformer/posformer/internal/tfevents/tfeventstest"
	"github.com/posformer/posformer/rundir"
)

// eventFiles lists the event files in dir.
func eventFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if tfevents.IsName(e.Name()) {
			files = append(files, filepath.Join(dir, e.Name()))
		}
	}
	return files
}

// readEvents reads the one event file of dir.
func readEvents(t *testing.T, dir string) []tfevents.Event {
	t.Helper()
	files := eventFiles(t, dir)
	if len(files) != 1 {
		t.Fatalf("%s holds %d event files, want 1: %v", dir, len(files), files)
	}
	events, err := tfevents.Read(files[0])
	if err != nil {
		t.Fatal(err)
	}
	return events
}

// withoutTimes is the events without their wall times, the only bytes that differ between two
// runs of one config and seed.
func withoutTimes(events []tfevents.Event) []tfevents.Event {
	out := slices.Clone(events)
	for i := range out {
		out[i].WallTime = 0
	}
	return out
}

// wantEvents is the event file a finished run must hold, from its metrics.jsonl and results:
// the version event, one event per metrics line (loss, lr, grad_norm, and the validation scores
// on a validation's line), then one per evaluated length (step = length) with its scores.
func wantEvents(t *testing.T, dir string, lengths []LengthResult) []tfevents.Event {
	t.Helper()
	want := []tfevents.Event{{FileVersion: tfevents.FileVersion}}
	f, err := os.Open(filepath.Join(dir, "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var m Metric
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		vals := []tfevents.Value{{Tag: "train/loss", Simple: float32(m.Loss)}, {Tag: "train/lr", Simple: float32(m.LR)}, {Tag: "train/grad_norm", Simple: float32(m.GradNorm)}}
		if m.ValExact != nil {
			vals = append(vals, tfevents.Value{Tag: "val/exact_match", Simple: float32(*m.ValExact)}, tfevents.Value{Tag: "val/token_accuracy", Simple: float32(*m.ValToken)})
		}
		want = append(want, tfevents.Event{Step: int64(m.Step), Values: vals})
	}
	return append(want, lengthEvents(lengths)...)
}

// lengthEvents is the evaluation's events: one per length, at step = length, with its scores.
func lengthEvents(lengths []LengthResult) []tfevents.Event {
	var events []tfevents.Event
	for _, l := range lengths {
		events = append(events, tfevents.Event{Step: int64(l.Length), Values: []tfevents.Value{
			{Tag: "eval/exact_match", Simple: float32(l.Scores["exact_match"])}, {Tag: "eval/token_accuracy", Simple: float32(l.Scores["token_accuracy"])}}})
	}
	return events
}

// TestRunWritesEvents: a run writes one event file named as TensorBoard's writers name theirs,
// holding metrics.jsonl's curves at their steps and the evaluation's scores by length (step =
// length); an eval variant's directory holds its own, with its scores on the same tags. The
// same config and seed give the same events but for their wall times, and results whose bits do
// not depend on the event file: with tfevents: false there is none and every result is the same.
func TestRunWritesEvents(t *testing.T) {
	out := t.TempDir()
	sets := []string{"train.log_every=5", "eval.variants=[{name: ntk, rope_scaling: ntk}]"}
	res, err := Run(context.Background(), tinyConfig(t, filepath.Join(out, "a"), sets...), Options{})
	if err != nil {
		t.Fatal(err)
	}
	files := eventFiles(t, res.Dir)
	host, _ := os.Hostname()
	if len(files) != 1 || !strings.HasSuffix(files[0], "."+host) || len(strings.TrimPrefix(filepath.Base(files[0]), tfevents.Prefix)) != 10+1+len(host) {
		t.Fatalf("event files %v, want one named events.out.tfevents.<10 digits>.%s", files, host)
	}
	got := readEvents(t, res.Dir)
	want := wantEvents(t, res.Dir, res.Lengths)
	if len(want) != 1+4+8 || !reflect.DeepEqual(withoutTimes(got), want) {
		t.Fatalf("events:\n%+v\nwant\n%+v", withoutTimes(got), want)
	}
	for i := 1; i < len(got); i++ {
		if got[i].WallTime < got[i-1].WallTime || got[i].WallTime < 1e9 {
			t.Fatalf("event %d's wall time %v after %v", i, got[i].WallTime, got[i-1].WallTime)
		}
	}
	variant, err := ReadResult(filepath.Join(res.Dir, rundir.VariantDir("ntk")))
	if err != nil {
		t.Fatal(err)
	}
	vwant := append([]tfevents.Event{{FileVersion: tfevents.FileVersion}}, lengthEvents(variant.Lengths)...)
	if vgot := readEvents(t, variant.Dir); !reflect.DeepEqual(withoutTimes(vgot), vwant) {
		t.Fatalf("the variant's events:\n%+v\nwant\n%+v", withoutTimes(vgot), vwant)
	}

	again, err := Run(context.Background(), tinyConfig(t, filepath.Join(out, "b"), sets...), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(withoutTimes(readEvents(t, again.Dir)), withoutTimes(got)) {
		t.Error("the same config and seed wrote other events")
	}
	off, err := Run(context.Background(), tinyConfig(t, filepath.Join(out, "off"), append(sets, "tfevents=false")...), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f := append(eventFiles(t, off.Dir), eventFiles(t, filepath.Join(off.Dir, rundir.VariantDir("ntk")))...); len(f) != 0 {
		t.Errorf("tfevents: false wrote %v", f)
	}
	for _, f := range []string{"checkpoint.bin", "results.csv", "results.json", "metrics.jsonl", rundir.DiagnosticsFile, filepath.Join(rundir.VariantDir("ntk"), "results.csv")} {
		a, _ := os.ReadFile(filepath.Join(res.Dir, f))
		b, _ := os.ReadFile(filepath.Join(off.Dir, f))
		if f == "metrics.jsonl" { // its speed and elapsed fields are wall-clock figures
			a, b = stripTimes(t, a), stripTimes(t, b)
		}
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s differs between a run with an event file and one without", f)
		}
	}
	ca, _ := os.ReadFile(filepath.Join(res.Dir, "config.yaml"))
	cb, _ := os.ReadFile(filepath.Join(off.Dir, "config.yaml"))
	if !bytes.Contains(cb, []byte("\ntfevents: false\n")) || bytes.Contains(ca, []byte("tfevents")) || !rundir.SameConfig(ca, cb) {
		t.Errorf("config.yaml: the default writes no tfevents line, false is written, and the two are the same config:\n%s\n%s", ca, cb)
	}
}

// stripTimes is metrics.jsonl without its wall-clock fields.
func stripTimes(t *testing.T, b []byte) []byte {
	t.Helper()
	var out []byte
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var m Metric
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatal(err)
		}
		m.TokPerSec, m.Elapsed = 0, 0
		js, _ := json.Marshal(m)
		out = append(append(out, js...), '\n')
	}
	return out
}

// TestRunEventsPython: the independent reader (Python's protocol-buffer library, its own
// CRC-32C) reads every record of a real run's event file, and its variant's, as posformer does.
func TestRunEventsPython(t *testing.T) {
	tfeventstest.Need(t)
	res, err := Run(context.Background(), tinyConfig(t, t.TempDir(), "train.log_every=5", "eval.variants=[{name: ntk, rope_scaling: ntk}]"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{res.Dir, filepath.Join(res.Dir, rundir.VariantDir("ntk"))} {
		files := eventFiles(t, dir)
		py, err := tfeventstest.Read(files[0])
		if err != nil {
			t.Fatal(err)
		}
		if goRead := readEvents(t, dir); len(py) < 9 || !reflect.DeepEqual(py, goRead) {
			t.Fatalf("%s: Python read\n%+v\nposformer\n%+v", files[0], py, goRead)
		}
		t.Logf("%s: %d records read by Python", files[0], len(py))
	}
}

// TestEventsResume: a run interrupted half-way, whose event file then also holds what a killed
// process could leave past its checkpoint (a later step's curves, an evaluation, a torn record),
// resumed, holds the events of an uninterrupted run, each step and length once: the resumed
// run continues the same file after dropping what follows the checkpoint.
func TestEventsResume(t *testing.T) {
	dir := t.TempDir()
	sets := []string{"train.log_every=5", "train.checkpoint_every=-1"}
	full, err := Run(context.Background(), tinyConfig(t, filepath.Join(dir, "full"), sets...), Options{})
	if err != nil {
		t.Fatal(err)
	}
	cut := tinyConfig(t, filepath.Join(dir, "cut"), sets...)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := Run(ctx, cut, Options{Progress: &cancelAt{marker: "10/20", cancel: cancel}}); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("the interrupted run: %v, want ErrInterrupted", err)
	}
	runDir := filepath.Join(dir, "cut", cut.Name)
	files := eventFiles(t, runDir)
	if len(files) != 1 {
		t.Fatalf("event files %v", files)
	}
	before := readEvents(t, runDir)
	if last := before[len(before)-1].Step; last != 10 {
		t.Fatalf("the interrupted run's last event is step %d, want 10", last)
	}
	var litter []byte
	for _, e := range []tfevents.Event{
		{WallTime: 1, Step: 15, Values: []tfevents.Value{{Tag: "train/loss", Simple: 9}}},
		{WallTime: 1, Step: 3, Values: []tfevents.Value{{Tag: "eval/exact_match", Simple: 9}}},
	} {
		litter = tfevents.AppendRecord(litter, e.Marshal())
	}
	litter = append(litter, tfevents.AppendRecord(nil, tfevents.Event{Step: 20}.Marshal())[:7]...)
	f, err := os.OpenFile(files[0], os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(litter)
	f.Close()
	if _, err := Run(context.Background(), cut, Options{Resume: true}); err != nil {
		t.Fatal(err)
	}
	if now := eventFiles(t, runDir); !reflect.DeepEqual(now, files) {
		t.Fatalf("the resumed run's event files %v, want the same file continued (%v)", now, files)
	}
	got := readEvents(t, runDir)
	if !reflect.DeepEqual(got[:len(before)], before) {
		t.Error("the resumed run changed the events before its checkpoint")
	}
	if want := withoutTimes(readEvents(t, full.Dir)); !reflect.DeepEqual(withoutTimes(got), want) {
		t.Fatalf("the resumed run's events:\n%+v\nthe uninterrupted run's:\n%+v", withoutTimes(got), want)
	}
}

// TestEventsReevaluate: a finished run resumed with other evaluation settings (evaluated again)
// keeps its training curves and replaces its evaluation's scores, each length once.
func TestEventsReevaluate(t *testing.T) {
	out := t.TempDir()
	res, err := Run(context.Background(), tinyConfig(t, out), Options{})
	if err != nil {
		t.Fatal(err)
	}
	first := readEvents(t, res.Dir)
	again, err := Run(context.Background(), tinyConfig(t, out, "eval.lengths=[2, 12]"), Options{Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	got := readEvents(t, res.Dir)
	train := len(first) - 8 // the version and the curves, before the 8 lengths
	if len(got) != train+2 || !reflect.DeepEqual(got[:train], first[:train]) {
		t.Fatalf("after the re-evaluation: %d events, want the %d of training and 2 lengths", len(got), train)
	}
	for i, l := range again.Lengths {
		if e := got[train+i]; e.Step != int64(l.Length) || e.Values[0] != (tfevents.Value{Tag: "eval/exact_match", Simple: float32(l.Scores["exact_match"])}) {
			t.Errorf("length %d: event %+v", l.Length, e)
		}
	}
}

// TestEventsSwitchOnResume: tfevents only chooses what a run writes: a run started without an
// event file resumes with one (which starts after the checkpoint), and one started with it
// resumes without (its file left as it was).
func TestEventsSwitchOnResume(t *testing.T) {
	for _, c := range []struct{ first, then string }{{"tfevents=false", "tfevents=true"}, {"tfevents=true", "tfevents=false"}} {
		t.Run(c.first, func(t *testing.T) {
			out := t.TempDir()
			sets := []string{"train.log_every=5", "train.checkpoint_every=-1"}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cut := tinyConfig(t, out, append(sets, c.first)...)
			if _, err := Run(ctx, cut, Options{Progress: &cancelAt{marker: "10/20", cancel: cancel}}); !errors.Is(err, ErrInterrupted) {
				t.Fatalf("the interrupted run: %v, want ErrInterrupted", err)
			}
			dir := filepath.Join(out, cut.Name)
			var before []tfevents.Event
			if c.first == "tfevents=true" {
				before = readEvents(t, dir)
			}
			if _, err := Run(context.Background(), tinyConfig(t, out, append(sets, c.then)...), Options{Resume: true}); err != nil {
				t.Fatalf("resumed with %s: %v", c.then, err)
			}
			got := readEvents(t, dir)
			var steps []int64
			for _, e := range got[1:] {
				steps = append(steps, e.Step)
			}
			want := []int64{15, 20, 1, 2, 3, 4, 5, 6, 7, 8}
			if c.first == "tfevents=true" {
				if !reflect.DeepEqual(got, before) {
					t.Fatal("resumed with tfevents=false, the event file changed")
				}
				want = []int64{5, 10}
			}
			if !reflect.DeepEqual(steps, want) {
				t.Fatalf("steps %v, want %v", steps, want)
			}
		})
	}
}

// TestEventsDamaged: a resumed run whose event file is damaged (a flipped bit) refuses in one
// line naming the file and what to do.
func TestEventsDamaged(t *testing.T) {
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cut := tinyConfig(t, out, "train.log_every=5", "train.checkpoint_every=-1")
	if _, err := Run(ctx, cut, Options{Progress: &cancelAt{marker: "10/20", cancel: cancel}}); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("the interrupted run: %v, want ErrInterrupted", err)
	}
	file := eventFiles(t, filepath.Join(out, cut.Name))[0]
	b, _ := os.ReadFile(file)
	b[len(b)-10] ^= 1
	os.WriteFile(file, b, 0o644)
	_, err := Run(context.Background(), cut, Options{Resume: true})
	if err == nil {
		t.Fatal("resumed over a damaged event file")
	}
	msg := err.Error()
	for _, want := range []string{filepath.Base(file), "is damaged", "checksum", "-tfevents=false", "-resume"} {
		if !strings.Contains(msg, want) || strings.Contains(msg, "\n") {
			t.Errorf("the error %q does not name %q on one line", msg, want)
		}
	}
	t.Log(msg)
}
