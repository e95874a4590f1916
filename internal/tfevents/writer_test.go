package tfevents

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// TestName: TensorFlow's EventsWriter's naming, events.out.tfevents.<10-digit seconds>.<host>.
func TestName(t *testing.T) {
	if got := Name(time.Unix(1700000000, 999), "node7"); got != "events.out.tfevents.1700000000.node7" {
		t.Errorf("Name = %q", got)
	}
	if got := Name(time.Unix(42, 0), "h"); got != "events.out.tfevents.0000000042.h" {
		t.Errorf("Name = %q", got)
	}
	if !IsName("events.out.tfevents.1.h") || IsName("events.out.tfevent") || IsName(".events.out.tfevents.1.h.tmp3") {
		t.Error("IsName")
	}
}

// clock is a fake clock that ticks a second a reading.
func clock() func() time.Time {
	t := time.Unix(1700000000, 0)
	return func() time.Time { t = t.Add(time.Second); return t }
}

// TestWriterAppendKeep: a new file starts with the version event; Append continues it; Keep
// keeps the events asked for (and the version) with their bytes, and drops a torn last record;
// Create refuses an existing file.
func TestWriterAppendKeep(t *testing.T) {
	path := filepath.Join(t.TempDir(), Name(time.Unix(1, 0), "h"))
	w, err := Create(path, clock())
	if err != nil {
		t.Fatal(err)
	}
	for step := int64(1); step <= 3; step++ {
		if err := w.Scalars(step, Value{"loss", float32(step) / 2}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(path, clock()); !errors.Is(err, os.ErrExist) {
		t.Fatalf("Create over an existing file: %v", err)
	}
	w, err = Append(path, clock())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Scalars(4, Value{"loss", 2}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	events, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []Event{{WallTime: 1700000001, FileVersion: FileVersion}}
	for step := int64(1); step <= 4; step++ {
		want = append(want, Event{WallTime: float64(1700000001 + step), Step: step, Values: []Value{{"loss", float32(step) / 2}}})
	}
	want[4].WallTime = 1700000001 // the appending writer's first reading
	if !reflect.DeepEqual(events, want) {
		t.Fatalf("read %+v\nwant %+v", events, want)
	}
	b, _ := os.ReadFile(path)
	torn := append(b, AppendRecord(nil, Event{Step: 5}.Marshal())[:9]...)
	kept, changed, err := Keep(torn, func(e Event) bool { return e.Step <= 2 })
	if err != nil || !changed {
		t.Fatalf("Keep: changed %v, %v", changed, err)
	}
	recs, _, _ := SplitRecords(b)
	wantKept := AppendRecord(AppendRecord(AppendRecord(nil, recs[0]), recs[1]), recs[2])
	if string(kept) != string(wantKept) {
		t.Fatalf("Keep kept % x\nwant % x", kept, wantKept)
	}
	if same, changed, err := Keep(b, func(Event) bool { return true }); err != nil || changed || string(same) != string(b) {
		t.Fatalf("Keep of everything: changed %v, %v", changed, err)
	}
	b[len(b)-1] ^= 1
	if _, _, err := Keep(b, func(Event) bool { return true }); err == nil {
		t.Fatal("Keep of a damaged file: no error")
	}
}
