package tfevents

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestEventBytes: events encoded as the protocol-buffer wire format gives them, worked by hand:
// key = field<<3 | wire type; doubles and floats little-endian; varints; length-delimited
// messages nested.
func TestEventBytes(t *testing.T) {
	for _, c := range []struct {
		name string
		e    Event
		want []byte
	}{
		{"scalar", Event{WallTime: 1.5, Step: 3, Values: []Value{{Tag: "a", Simple: 1}}}, []byte{
			0x09, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f, // wall_time (1, fixed64) = 1.5
			0x10, 0x03, // step (2, varint) = 3
			0x2a, 0x0a, // summary (5, bytes), 10 bytes
			0x0a, 0x08, // value (1, bytes), 8 bytes
			0x0a, 0x01, 'a', // tag (1, bytes) = "a"
			0x15, 0, 0, 0x80, 0x3f, // simple_value (2, fixed32) = 1
		}},
		{"version", Event{WallTime: 2, FileVersion: "brain.Event:2"}, append([]byte{
			0x09, 0, 0, 0, 0, 0, 0, 0, 0x40, // wall_time = 2
			0x1a, 0x0d}, // file_version (3, bytes), 13 bytes
			"brain.Event:2"...)},
		{"negative step, zero value, no wall time", Event{Step: -1, Values: []Value{{Tag: "", Simple: 0}}}, []byte{
			0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, // step = -1: ten bytes
			0x2a, 0x07, 0x0a, 0x05, 0x15, 0, 0, 0, 0, // a value with no tag, simple_value 0 written (a oneof)
		}},
		{"empty summary", Event{Step: 128, Values: []Value{}}, []byte{0x10, 0x80, 0x01, 0x2a, 0x00}},
	} {
		if got := c.e.Marshal(); !bytes.Equal(got, c.want) {
			t.Errorf("%s: % x\nwant % x", c.name, got, c.want)
		}
		back, err := Unmarshal(c.want)
		if err != nil || !reflect.DeepEqual(back, c.e) {
			t.Errorf("%s: read back as %+v (%v)", c.name, back, err)
		}
	}
}

// TestEventRoundTrip: Unmarshal gives back every event Marshal encodes, over random wall times,
// steps (negative and large), tags (any UTF-8) and values (NaN, infinities, -0 by their bits).
func TestEventRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	specials := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.Copysign(0, -1)), math.MaxFloat32, math.SmallestNonzeroFloat32}
	tags := []string{"train/loss", "eval/exact_match", "λ/长度", "", "a\x00b"}
	for trial := 0; trial < 500; trial++ {
		e := Event{WallTime: r.Float64() * 2e9, Step: int64(r.Uint64())}
		if trial%3 == 0 {
			e.FileVersion = FileVersion
		} else {
			e.Values = []Value{}
			for range r.IntN(5) {
				v := Value{Tag: tags[r.IntN(len(tags))], Simple: math.Float32frombits(r.Uint32())}
				if r.IntN(4) == 0 {
					v.Simple = specials[r.IntN(len(specials))]
				}
				e.Values = append(e.Values, v)
			}
		}
		back, err := Unmarshal(e.Marshal())
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if back.WallTime != e.WallTime || back.Step != e.Step || back.FileVersion != e.FileVersion || len(back.Values) != len(e.Values) {
			t.Fatalf("trial %d: %+v, want %+v", trial, back, e)
		}
		for i, v := range e.Values {
			if back.Values[i].Tag != v.Tag || math.Float32bits(back.Values[i].Simple) != math.Float32bits(v.Simple) {
				t.Fatalf("trial %d value %d: %+v, want %+v", trial, i, back.Values[i], v)
			}
		}
	}
}

// TestUnmarshalSkipsOtherFields: fields posformer does not write (an event's source_metadata, a
// value's metadata, a tensor value) are skipped; a value without simple_value is left out; a
// cut message is an error.
func TestUnmarshalSkipsOtherFields(t *testing.T) {
	value := func(fields ...[]byte) []byte { return bytes.Join(fields, nil) }
	plain := value(appendBytes(nil, 1, []byte("x")), []byte{0x15, 0, 0, 0x80, 0x3f})
	meta := appendBytes(nil, 9, appendBytes(nil, 1, appendBytes(nil, 1, []byte("scalars")))) // metadata.plugin_data.plugin_name
	tensor := value(appendBytes(nil, 1, []byte("t")), appendBytes(nil, 8, []byte{0x08, 0x01}))
	summary := value(appendBytes(nil, 1, value(meta, plain)), appendBytes(nil, 1, tensor))
	parts := [][]byte{{0x10, 0x07}, appendBytes(nil, 5, summary), appendBytes(nil, 10, appendBytes(nil, 1, []byte("w"))),
		binary.AppendUvarint([]byte{11<<3 | wireVarint}, 5)}
	src := value(parts...)
	e, err := Unmarshal(src)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Event{Step: 7, Values: []Value{{Tag: "x", Simple: 1}}}); !reflect.DeepEqual(e, want) {
		t.Fatalf("%+v, want %+v", e, want)
	}
	boundary, end := map[int]bool{}, 0 // a cut between two fields leaves a valid message
	for _, p := range parts {
		end += len(p)
		boundary[end] = true
	}
	for cut := 1; cut < len(src); cut++ {
		if _, err := Unmarshal(src[:cut]); (err == nil) != boundary[cut] {
			t.Errorf("cut at %d of %d: error %v", cut, len(src), err)
		}
	}
}
