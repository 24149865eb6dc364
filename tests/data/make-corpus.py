#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Rebuilds the bad-file corpus from good.asys (a small recording made with
tests/rec/rec_synth). Each NAME.asys has NAME.expected: the exit status of
`asys replay --info` on the first line, a text its stderr or stdout must
contain on the second. Run it from tests/data/."""
import struct, zlib

good = open("good.asys", "rb").read()
SYNC = struct.pack("<I", 0xC3A5F17E)

def frames(b):
    out, pos = [], 64
    while pos + 64 <= len(b) and b[pos:pos + 4] == SYNC:
        stored = struct.unpack_from("<I", b, pos + 40)[0]
        end = pos + 64 + stored + 8
        out.append((pos, end, b[pos + 4]))
        pos = end
    return out

fr = frames(good)
data = [f for f in fr if f[2] == 3]

def crc32c(buf):
    crc = 0xFFFFFFFF
    for x in buf:
        crc ^= x
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF

def put(name, content, status, text):
    open(name + ".asys", "wb").write(content)
    open(name + ".expected", "w").write("%d\n%s\n" % (status, text))

put("empty", b"", 1, "empty file, no recording in it")
put("other-program", b"%PDF-1.4\n" + b"x" * 200, 1, "not an asys recording")
put("short-header", good[:30], 1, "cut short inside the file header")
h = bytearray(good[:64])
struct.pack_into("<HH", h, 10, 2, 0)
struct.pack_into("<I", h, 60, crc32c(bytes(h[:60])))
put("future-major", bytes(h) + good[64:], 1, "written in format 2.0 by a newer asys")
put("header-only", good[:64], 0, "recorded:  no samples")
cut = data[2][0] + 100
put("cut-mid-frame", good[:cut], 0, "ends inside a frame at byte %d" % data[2][0])
b = bytearray(good)
b[data[1][0] + 64 + 10] ^= 0x04
put("flipped-payload", bytes(b), 0, "checksum mismatch")
b = bytearray(good)
b[data[3][0] + 20] ^= 0x80
put("flipped-header", bytes(b), 0, "damaged bytes; skipped to the next frame")
b = bytearray(good)
b[5] ^= 0x01
put("damaged-file-header", bytes(b), 0, "file header damaged; reading the frames anyway")
last = data[-1][1]
put("zero-tail", good[:last] + b"\0" * 300, 0, "damaged or zero-filled bytes up to the end of the file")
mid = data[2][1]
put("garbage-middle", good[:mid] + bytes((i * 37 + 11) % 256 for i in range(500)) + good[mid:],
    0, "bytes %d-%d: damaged bytes" % (mid, mid + 500))
