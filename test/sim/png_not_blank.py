#!/usr/bin/env python3
"""Exits 0 when a PNG screenshot is not blank, 1 (with a reason) otherwise; stdlib only.

Not blank: at least `min_colors` distinct pixel colors, and at least `min_fraction` of the pixels
differ from the most common color (the page background). Handles 8-bit RGB and RGBA, every PNG
row filter; interlaced images are rejected.
Usage: png_not_blank.py FILE [min_colors=8] [min_fraction=0.01]
"""
import struct
import sys
import zlib
from collections import Counter


def pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError(f"unsupported PNG (depth {depth}, color type {ctype}, interlace {interlace})")
    bpp = 3 if ctype == 2 else 4
    raw, stride, prev, out = zlib.decompress(idat), w * bpp, bytearray(w * bpp), []
    for y in range(h):
        f, row = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 0:
            pass
        elif f == 2:  # Up: no dependence inside the row, so one pass over the pairs
            row = bytearray((x + y) & 255 for x, y in zip(row, prev))
        else:
            unfilter(f, row, prev, bpp)
        out.extend(bytes(row[i:i + 3]) for i in range(0, stride, bpp))
        prev = row
    return w, h, out


def unfilter(f, row, prev, bpp):
    """Undoes PNG row filters Sub (1), Average (3) and Paeth (4) in place."""
    for i in range(len(row)):
        a = row[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if f == 1:
            row[i] = (row[i] + a) & 255
        elif f == 2:
            row[i] = (row[i] + b) & 255
        elif f == 3:
            row[i] = (row[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255


def main():
    path = sys.argv[1]
    min_colors = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    min_fraction = float(sys.argv[3]) if len(sys.argv) > 3 else 0.01
    w, h, px = pixels(path)
    counts = Counter(px)
    other = 1 - counts.most_common(1)[0][1] / len(px)
    print(f"{w}x{h}, {len(counts)} colors, {other:.1%} off the background")
    if len(counts) < min_colors or other < min_fraction:
        print("blank screenshot", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
