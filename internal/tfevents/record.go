// Package tfevents writes TensorBoard's event files: TFRecord framing around Event protocol
// buffers (TensorBoard's tensorboard/compat/proto/event.proto and summary.proto) holding scalar
// summaries, so that TensorBoard, W&B (wandb.tensorboard.patch) and Aim (aim convert tensorboard)
// read posformer's training curves. The few protocol-buffer fields it needs are encoded by hand
// (event.go); the framing is here, the file (its name, appending, resuming) in writer.go.
package tfevents

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// castagnoli is CRC-32C, the checksum TFRecord frames use.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// MaskedCRC is TFRecord's masked CRC-32C of b: the checksum rotated right by 15 bits plus
// 0xa282ead8 (TensorFlow's tensorflow/core/lib/hash/crc32c.h, Mask), so that a CRC of bytes that
// hold CRCs is not itself a CRC of them.
func MaskedCRC(b []byte) uint32 {
	c := crc32.Checksum(b, castagnoli)
	return (c>>15 | c<<17) + 0xa282ead8
}

// headerLen and footerLen are a record's bytes before and after its data: the data's length
// (uint64, little-endian) and the masked CRC of those 8 bytes; then the masked CRC of the data.
const (
	headerLen = 8 + 4
	footerLen = 4
)

// AppendRecord appends data framed as one TFRecord to dst: length, masked CRC of the length,
// data, masked CRC of the data (all little-endian).
func AppendRecord(dst, data []byte) []byte {
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(data)))
	dst = append(dst, n[:]...)
	dst = binary.LittleEndian.AppendUint32(dst, MaskedCRC(n[:]))
	dst = append(dst, data...)
	return binary.LittleEndian.AppendUint32(dst, MaskedCRC(data))
}

// SplitRecords returns the data of the whole records at the start of b and the number of bytes
// they span. It stops at the first record that is cut short (a write stopped part-way: the
// bytes past whole are a torn tail, not an error) and fails on a record whose checksum does
// not match (the file changed on disk), naming its offset.
func SplitRecords(b []byte) (records [][]byte, whole int, err error) {
	for off := 0; ; {
		rest := b[off:]
		if len(rest) < headerLen {
			return records, off, nil
		}
		if got, want := binary.LittleEndian.Uint32(rest[8:12]), MaskedCRC(rest[:8]); got != want {
			return records, off, fmt.Errorf("record at byte %d: its length's checksum is %#08x, want %#08x", off, got, want)
		}
		n := binary.LittleEndian.Uint64(rest[:8])
		if len(rest) < headerLen+footerLen || n > uint64(len(rest)-headerLen-footerLen) {
			return records, off, nil // cut short
		}
		data := rest[headerLen : headerLen+int(n)]
		if got, want := binary.LittleEndian.Uint32(rest[headerLen+int(n):]), MaskedCRC(data); got != want {
			return records, off, fmt.Errorf("record at byte %d: its data's checksum is %#08x, want %#08x", off, got, want)
		}
		records = append(records, data)
		off += headerLen + int(n) + footerLen
	}
}
