package tfevents

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Event is the part of TensorBoard's Event message (tensorboard/compat/proto/event.proto) that
// posformer writes: its time, its step, and either the file's version (the first record of a
// file) or a summary of scalar values (summary.proto's Summary.Value with simple_value).
type Event struct {
	WallTime    float64 // seconds since the Unix epoch (field 1, double)
	Step        int64   // field 2, int64
	FileVersion string  // field 3, string (of the oneof `what`)
	Values      []Value // field 5, Summary (of the oneof `what`): its repeated value, field 1
}

// Value is a scalar of a Summary: Summary.Value's tag (field 1, string) and simple_value (field
// 2, float), which TensorBoard's scalar dashboard plots against the event's step.
type Value struct {
	Tag    string
	Simple float32
}

// FileVersion is the version the first event of a file names (event.proto: "Current version is
// brain.Event:2"). With version 2, TensorBoard discards data only after a SessionLog START event,
// which posformer never writes, so a tag whose steps restart (the evaluation's, by length)
// keeps the training's.
const FileVersion = "brain.Event:2"

// The protocol-buffer wire types posformer writes and skips.
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

// Marshal encodes the event as a protocol buffer, fields in number order, leaving out the zero
// wall time and step as proto3 does (simple_value is in a oneof, so its zero is written).
func (e Event) Marshal() []byte {
	var b []byte
	if e.WallTime != 0 {
		b = binary.AppendUvarint(b, 1<<3|wireFixed64)
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(e.WallTime))
	}
	if e.Step != 0 {
		b = binary.AppendUvarint(b, 2<<3|wireVarint)
		b = binary.AppendUvarint(b, uint64(e.Step)) // int64: two's complement, 10 bytes when negative
	}
	if e.FileVersion != "" {
		b = appendBytes(b, 3, []byte(e.FileVersion))
	}
	if e.Values != nil {
		var summary []byte
		for _, v := range e.Values {
			var val []byte
			if v.Tag != "" {
				val = appendBytes(val, 1, []byte(v.Tag))
			}
			val = binary.AppendUvarint(val, 2<<3|wireFixed32)
			val = binary.LittleEndian.AppendUint32(val, math.Float32bits(v.Simple))
			summary = appendBytes(summary, 1, val)
		}
		b = appendBytes(b, 5, summary)
	}
	return b
}

// appendBytes appends a length-delimited field.
func appendBytes(b []byte, field int, data []byte) []byte {
	b = binary.AppendUvarint(b, uint64(field)<<3|wireBytes)
	b = binary.AppendUvarint(b, uint64(len(data)))
	return append(b, data...)
}

// Unmarshal decodes an Event that Marshal, or another writer, encoded: the fields of Event and
// Value are read, every other field is skipped (a summary's images or tensors, a graph); a value
// without simple_value is left out.
func Unmarshal(b []byte) (Event, error) {
	var e Event
	err := fields(b, func(num int, wire int, x uint64, data []byte) error {
		switch {
		case num == 1 && wire == wireFixed64:
			e.WallTime = math.Float64frombits(x)
		case num == 2 && wire == wireVarint:
			e.Step = int64(x)
		case num == 3 && wire == wireBytes:
			e.FileVersion = string(data)
		case num == 5 && wire == wireBytes:
			if e.Values == nil {
				e.Values = []Value{}
			}
			return fields(data, func(num, wire int, _ uint64, data []byte) error {
				if num != 1 || wire != wireBytes {
					return nil
				}
				var v Value
				simple := false
				err := fields(data, func(num, wire int, x uint64, data []byte) error {
					switch {
					case num == 1 && wire == wireBytes:
						v.Tag = string(data)
					case num == 2 && wire == wireFixed32:
						v.Simple, simple = math.Float32frombits(uint32(x)), true
					}
					return nil
				})
				if simple {
					e.Values = append(e.Values, v)
				}
				return err
			})
		}
		return nil
	})
	return e, err
}

var errTruncated = errors.New("truncated protocol buffer")

// fields calls f for each field of the protocol buffer b: its number, wire type, and value (x
// for a varint or a fixed-width field, data for a length-delimited one).
func fields(b []byte, f func(num, wire int, x uint64, data []byte) error) error {
	for len(b) > 0 {
		key, n := binary.Uvarint(b)
		if n <= 0 {
			return errTruncated
		}
		b = b[n:]
		num, wire := int(key>>3), int(key&7)
		var x uint64
		var data []byte
		switch wire {
		case wireVarint:
			if x, n = binary.Uvarint(b); n <= 0 {
				return errTruncated
			}
			b = b[n:]
		case wireFixed64:
			if len(b) < 8 {
				return errTruncated
			}
			x, b = binary.LittleEndian.Uint64(b), b[8:]
		case wireFixed32:
			if len(b) < 4 {
				return errTruncated
			}
			x, b = uint64(binary.LittleEndian.Uint32(b)), b[4:]
		case wireBytes:
			l, n := binary.Uvarint(b)
			if n <= 0 || l > uint64(len(b)-n) {
				return errTruncated
			}
			data, b = b[n:n+int(l)], b[n+int(l):]
		default:
			return fmt.Errorf("field %d has wire type %d, which posformer's reader does not know", num, wire)
		}
		if num == 0 {
			return errors.New("field number 0")
		}
		if err := f(num, wire, x, data); err != nil {
			return err
		}
	}
	return nil
}
