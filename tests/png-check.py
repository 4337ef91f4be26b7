#!/usr/bin/env python3
"""png-check.py FILE.png: exits 0 when FILE is a PNG (8-bit RGB or RGBA, not interlaced) whose
pixels are not blank: at least 8 distinct colours and at least 2% of the pixels not white. Prints
the reason otherwise. Used by tests/draw.sh on what rsvg-convert renders."""
import struct
import sys
import zlib


def pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    pos, idat, head = 8, [], None
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + n
    width, height, depth, colour, _, _, interlace = head
    if depth != 8 or colour not in (2, 6) or interlace:
        raise ValueError("unexpected PNG format (depth %d, colour type %d)" % (depth, colour))
    bpp = 4 if colour == 6 else 3
    raw = zlib.decompress(b"".join(idat))
    stride = width * bpp
    prev = bytearray(stride)
    rows = []
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def main():
    width, height, bpp, rows = pixels(sys.argv[1])
    colours, ink = set(), 0
    for row in rows:
        for x in range(0, width * bpp, bpp):
            px = row[x:x + 3]
            colours.add(px)
            ink += px != b"\xff\xff\xff"
    share = ink / float(width * height)
    if len(colours) < 8 or share < 0.02:
        print("blank: %dx%d, %d colours, %.1f%% of the pixels not white" % (width, height, len(colours), 100 * share))
        return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (OSError, ValueError, zlib.error, struct.error, TypeError) as e:
        print("cannot read %s: %s" % (sys.argv[1], e))
        sys.exit(1)
