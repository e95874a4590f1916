package tfevents_test

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/posformer/posformer/internal/tfevents"
	"github.com/posformer/posformer/internal/tfevents/tfeventstest"
)

// TestPythonReadsEveryRecord: the independent reader (Python's protocol-buffer library on classes
// protoc compiles from TensorBoard's fields, its own CRC-32C) reads every record and checksum of
// a file the writer wrote, events with awkward steps, tags and values included, as Go reads them;
// and it refuses a file with a flipped bit, a cut record, or a field TensorBoard's Event does not
// have, so that its reading is a check.
func TestPythonReadsEveryRecord(t *testing.T) {
	tfeventstest.Need(t)
	dir := t.TempDir()
	path := filepath.Join(dir, tfevents.Name(time.Unix(1700000000, 0), "host"))
	now := time.Unix(1700000000, 123456000)
	w, err := tfevents.Create(path, func() time.Time { now = now.Add(1500 * time.Millisecond); return now })
	if err != nil {
		t.Fatal(err)
	}
	events := []tfevents.Event{
		{Step: 1, Values: []tfevents.Value{{Tag: "train/loss", Simple: 2.0794415}, {Tag: "train/lr", Simple: 1e-3}}},
		{Step: 0, Values: []tfevents.Value{{Tag: "zero", Simple: 0}}},
		{Step: -7, Values: []tfevents.Value{{Tag: "λ/长度", Simple: float32(math.Inf(-1))}}},
		{Step: math.MaxInt64, Values: []tfevents.Value{{Tag: "big", Simple: math.MaxFloat32}, {Tag: "tiny", Simple: math.SmallestNonzeroFloat32}}},
		{Step: 3, Values: []tfevents.Value{}},
		{Step: 4, WallTime: 1.25, Values: []tfevents.Value{{Tag: "negzero", Simple: float32(math.Copysign(0, -1))}}},
	}
	for _, e := range events {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	goRead, err := tfevents.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	pyRead, err := tfeventstest.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(goRead) != 1+len(events) || !reflect.DeepEqual(pyRead, goRead) {
		t.Fatalf("Python read %+v\nGo read %+v", pyRead, goRead)
	}
	if pyRead[0].FileVersion != "brain.Event:2" || pyRead[6].WallTime != 1.25 || math.Float32bits(pyRead[6].Values[0].Simple) != 1<<31 {
		t.Fatalf("Python read %+v", pyRead)
	}

	good, _ := os.ReadFile(path)
	recs, _, _ := tfevents.SplitRecords(good)
	unknown := append(tfevents.Event{Step: 9}.Marshal(), 0x58, 0x01) // field 11, a varint: not in event.proto
	for name, bad := range map[string][]byte{
		"a flipped bit":    append(append([]byte{}, good[:len(good)-3]...), good[len(good)-3]^4, good[len(good)-2], good[len(good)-1]),
		"a cut record":     good[:len(good)-1],
		"an unknown field": tfevents.AppendRecord(tfevents.AppendRecord(nil, recs[0]), unknown),
	} {
		p := filepath.Join(dir, "bad-"+strings.ReplaceAll(name, " ", "-"))
		if err := os.WriteFile(p, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := tfeventstest.Read(p); err == nil {
			t.Errorf("the Python reader accepted a file with %s", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}
