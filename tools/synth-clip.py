#!/usr/bin/env python3
"""Synthetic clips with known motion for tools/quality.sh.

Reads one gray picture (raw 8-bit, SW x SH) and writes a gray yuv4mpeg clip
of W x H, FRAMES frames, sampled from it bilinearly:
  pan:  frame n shows the picture shifted by n * (DX, DY) pixels
        (DX = 5.25, DY = -2.5: every block moves by the same known vector);
  zoom: frame n shows the picture scaled by 1.015^n around its centre
        (vectors grow linearly from the centre outwards, up to about 1.5 %
        of the distance per frame).

usage: synth-clip.py pan|zoom SRC.gray SW SH OUT.y4m W H FRAMES
"""
import sys

DX, DY = 5.25, -2.5
ZOOM = 1.015


def main():
    kind, src, sw, sh, out, w, h, frames = sys.argv[1:9]
    sw, sh, w, h, frames = int(sw), int(sh), int(w), int(h), int(frames)
    pic = open(src, "rb").read(sw * sh)
    if len(pic) != sw * sh:
        sys.exit("synth-clip: %s is shorter than %dx%d" % (src, sw, sh))

    def sample(x, y):
        x = min(max(x, 0.0), sw - 1.001)
        y = min(max(y, 0.0), sh - 1.001)
        x0, y0 = int(x), int(y)
        fx, fy = x - x0, y - y0
        i = y0 * sw + x0
        a, b, c, d = pic[i], pic[i + 1], pic[i + sw], pic[i + sw + 1]
        return int((a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy + 0.5)

    with open(out, "wb") as f:
        f.write(b"YUV4MPEG2 W%d H%d F25:1 Ip A1:1 Cmono\n" % (w, h))
        cx, cy = sw / 2.0, sh / 2.0
        for n in range(frames):
            row = bytearray(w * h)
            if kind == "pan":
                ox = (sw - w) / 2.0 - (frames / 2.0) * DX + n * DX
                oy = (sh - h) / 2.0 - (frames / 2.0) * DY + n * DY
                for y in range(h):
                    for x in range(w):
                        row[y * w + x] = sample(ox + x, oy + y)
            else:
                s = 1.0 / ZOOM ** n
                for y in range(h):
                    sy = cy + (y - h / 2.0) * s
                    for x in range(w):
                        row[y * w + x] = sample(cx + (x - w / 2.0) * s, sy)
            f.write(b"FRAME\n")
            f.write(row)


if __name__ == "__main__":
    main()
