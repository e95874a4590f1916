package tfevents

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math/rand/v2"
	"testing"
)

// TestCRC32CCheckValue: the checksum is CRC-32C (Castagnoli), whose check value, the CRC of
// "123456789", is 0xe3069283; the mask is the rotation plus constant of TensorFlow's crc32c.h,
// checked on a value worked by hand: 0xe3069283 rotated right by 15 is 0x2507c60d, plus
// 0xa282ead8 is 0xc78ab0e5.
func TestCRC32CCheckValue(t *testing.T) {
	if got := crc32.Checksum([]byte("123456789"), castagnoli); got != 0xe3069283 {
		t.Fatalf("CRC-32C check value %#x, want 0xe3069283", got)
	}
	if got := MaskedCRC([]byte("123456789")); got != 0xc78ab0e5 {
		t.Fatalf("masked CRC %#x, want 0xc78ab0e5", got)
	}
}

// randomRecords is n records of random lengths (0 included) and bytes.
func randomRecords(r *rand.Rand, n int) [][]byte {
	recs := make([][]byte, n)
	for i := range recs {
		recs[i] = make([]byte, r.IntN(300))
		for j := range recs[i] {
			recs[i][j] = byte(r.Uint32())
		}
	}
	return recs
}

// TestRecordFraming: a record is the data's length (uint64 LE), the masked CRC of those 8 bytes,
// the data, the masked CRC of the data; SplitRecords gives back every record of a stream.
func TestRecordFraming(t *testing.T) {
	b := AppendRecord(nil, []byte("abc"))
	if len(b) != 8+4+3+4 || binary.LittleEndian.Uint64(b) != 3 || string(b[12:15]) != "abc" ||
		binary.LittleEndian.Uint32(b[8:]) != MaskedCRC(b[:8]) || binary.LittleEndian.Uint32(b[15:]) != MaskedCRC([]byte("abc")) {
		t.Fatalf("record % x", b)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 50; trial++ {
		recs := randomRecords(r, r.IntN(8))
		var stream []byte
		for _, d := range recs {
			stream = AppendRecord(stream, d)
		}
		got, whole, err := SplitRecords(stream)
		if err != nil || whole != len(stream) || len(got) != len(recs) {
			t.Fatalf("trial %d: %d records, %d of %d bytes, %v", trial, len(got), whole, len(stream), err)
		}
		for i := range recs {
			if !bytes.Equal(got[i], recs[i]) {
				t.Fatalf("trial %d: record %d differs", trial, i)
			}
		}
	}
}

// TestTornTail: a stream cut at any byte (a write stopped part-way) gives the records wholly
// before the cut and no error.
func TestTornTail(t *testing.T) {
	recs := randomRecords(rand.New(rand.NewPCG(3, 4)), 5)
	var stream []byte
	var ends []int
	for _, d := range recs {
		stream = AppendRecord(stream, d)
		ends = append(ends, len(stream))
	}
	for cut := 0; cut <= len(stream); cut++ {
		got, whole, err := SplitRecords(stream[:cut])
		want, wantWhole := 0, 0
		for want < len(ends) && ends[want] <= cut {
			wantWhole = ends[want]
			want++
		}
		if err != nil || len(got) != want || whole != wantWhole {
			t.Fatalf("cut at %d: %d records ending at %d (%v), want %d ending at %d", cut, len(got), whole, err, want, wantWhole)
		}
	}
}

// TestEveryBitFlipDetected: flipping any one bit of a stream of records makes SplitRecords fail
// (the length's checksum, or the data's): a damaged file is never read as a torn one.
func TestEveryBitFlipDetected(t *testing.T) {
	var stream []byte
	for _, d := range [][]byte{[]byte("first"), {}, []byte("a longer third record")} {
		stream = AppendRecord(stream, d)
	}
	for bit := 0; bit < 8*len(stream); bit++ {
		b := bytes.Clone(stream)
		b[bit/8] ^= 1 << (bit % 8)
		if _, _, err := SplitRecords(b); err == nil {
			t.Fatalf("flipping bit %d (byte %d) went unnoticed", bit, bit/8)
		}
	}
}
