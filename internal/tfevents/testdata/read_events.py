#!/usr/bin/env python3
"""An independent reader of TensorBoard event files, for posformer's tests.

usage: read_events.py FILE

It compiles event.proto and summary.proto (beside this script: TensorBoard's fields that
posformer writes) with protoc, reads FILE as TFRecords, checks every record's two masked
CRC-32C checksums with its own CRC-32C (not Go's, not zlib's), parses each record as an Event
with the generated Python classes, and prints one JSON line per event:
  {"wall_time": "<repr>", "step": N, "file_version": "..." or null,
   "values": [["tag", "<simple_value's float32 bits, hex>"], ...] or null}
then {"records": N, "bytes": N}. Any damage, a record cut short, trailing bytes, an unknown
field, a summary value without simple_value, or an event with neither a file version nor a
summary, is an error: a message on stderr and exit status 1.
"""

import importlib
import json
import os
import struct
import subprocess
import sys
import tempfile


def crc32c_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


TABLE = crc32c_table()


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def masked(data):
    c = crc32c(data)
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def fail(msg):
    sys.stderr.write("read_events.py: " + msg + "\n")
    sys.exit(1)


def compile_protos(out):
    here = os.path.dirname(os.path.abspath(__file__))
    subprocess.run(["protoc", "-I", here, "--python_out=" + out,
                    os.path.join(here, "summary.proto"), os.path.join(here, "event.proto")], check=True)
    sys.path.insert(0, out)
    return importlib.import_module("event_pb2")


def unknown(msg):
    try:
        return len(msg.UnknownFields()) > 0
    except (AttributeError, NotImplementedError):
        return False


def main():
    if len(sys.argv) != 2:
        fail("usage: read_events.py FILE")
    if sys.version_info < (3, 0):
        fail("needs Python 3")
    with tempfile.TemporaryDirectory() as out:
        event_pb2 = compile_protos(out)
        with open(sys.argv[1], "rb") as f:
            data = f.read()
        off, n = 0, 0
        while off < len(data):
            if len(data) - off < 12:
                fail("record at byte %d: %d bytes left, a header needs 12" % (off, len(data) - off))
            (length,) = struct.unpack_from("<Q", data, off)
            (lcrc,) = struct.unpack_from("<I", data, off + 8)
            if lcrc != masked(data[off:off + 8]):
                fail("record at byte %d: the length's masked CRC-32C is %#010x, want %#010x" % (off, lcrc, masked(data[off:off + 8])))
            end = off + 12 + length
            if end + 4 > len(data):
                fail("record at byte %d: cut short (%d bytes of data and a checksum announced)" % (off, length))
            body = data[off + 12:end]
            (dcrc,) = struct.unpack_from("<I", data, end)
            if dcrc != masked(body):
                fail("record at byte %d: the data's masked CRC-32C is %#010x, want %#010x" % (off, dcrc, masked(body)))
            ev = event_pb2.Event.FromString(body)
            if unknown(ev) or (ev.HasField("summary") and (unknown(ev.summary) or any(unknown(v) for v in ev.summary.value))):
                fail("record %d: unknown fields" % (n + 1))
            what = ev.WhichOneof("what")
            if what is None:
                fail("record %d: neither a file version nor a summary" % (n + 1))
            values = None
            if what == "summary":
                values = []
                for v in ev.summary.value:
                    if v.WhichOneof("value") != "simple_value":
                        fail("record %d: the value %r has no simple_value" % (n + 1, v.tag))
                    values.append([v.tag, struct.pack("<f", v.simple_value).hex()])
            print(json.dumps({"wall_time": repr(ev.wall_time), "step": ev.step,
                              "file_version": ev.file_version if what == "file_version" else None,
                              "values": values}))
            off = end + 4
            n += 1
        print(json.dumps({"records": n, "bytes": len(data)}))


if __name__ == "__main__":
    main()
