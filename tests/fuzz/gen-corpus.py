#!/usr/bin/env python3
"""Write the seed corpus of target_gpume_fuzzer.c into tests/fuzz/corpus.

Each seed is one case of the input layout described at the top of the target:
flags, 13 option selectors, first size and format, then commands. The files
are committed; run this again after changing the layout.
"""
import os
import struct

OPTS = ["algo", "range", "ctu", "block", "subpel", "lambda", "pu_penalty", "pred",
        "lfs_threshold", "vme_qp", "vme_window", "dir", "gpu"]
FMT = {"gray": 0, "yuv420p": 1, "yuv422p": 2, "yuv444p": 3, "yuv410p": 4, "nv12": 9,
       "nv24": 12, "monob": 14, "rgb24": 15, "gray16le": 16, "yuv420p10le": 17}
# selector bytes of valid values: value index + 1 (lists) or value - min + 1
ALGO = {"full": 1, "hme": 2, "lfs": 3, "vme": 4, "dis": 5}
CTU = {16: 1, 32: 2, 64: 3}
BLOCK = {"auto": 1, 8: 2, 16: 3, 32: 4, 64: 5}
DIR = {"fwd": 1, "bwd": 2, "bi": 3}
SEND, NEWCTX, SIZE, FORMAT, CLOSE = 0, 4, 5, 6, 7
NOISE, SHIFT, FLAT, BYTES = 0, 1, 2, 3
TS_NEXT, TS_RAW, TS_NONE, TS_BACK = 0, 1, 2, 3


def size(w, h):
    special = {16383: 0xf000, 16384: 0xf001, 4096: 0xf002}
    return b"".join(struct.pack(">H", special.get(v, v - 1)) for v in (w, h))


def cmd(op, ts=TS_NEXT, content=NOISE, extra=b""):
    return bytes([op | ts << 3 | content << 5]) + extra


def seed(device="cpu", threads=1, mcfps=False, **opts):
    dev = {"cpu": 0, "opencl-frames": 61, "auto": 62, "opencl": 63}[device]
    b = bytes([dev << 2 | (threads - 1) | (2 if mcfps else 0)])
    for name in OPTS:
        b += bytes([opts.get(name, 0)])
    return b


def frames(n, content=NOISE, dx=3, dy=-2):
    out = b""
    for _ in range(n):
        out += cmd(SEND, content=content,
                   extra=struct.pack("bb", dx, dy) if content == SHIFT else b"")
    return out


cases = {
    "basic-gray": seed() + size(64, 48) + bytes([FMT["gray"]]) + frames(4),
    "full-bi-shift": seed(algo=ALGO["full"], range=8, dir=DIR["bi"]) + size(48, 32)
                     + bytes([FMT["yuv420p"]]) + frames(1) + frames(4, SHIFT),
    "hme-auto-temporal-bwd": seed(algo=ALGO["hme"], block=BLOCK["auto"], pred=2, dir=DIR["bwd"], threads=2)
                     + size(96, 64) + bytes([FMT["nv12"]]) + frames(1) + frames(4, SHIFT, 5, 1),
    "lfs-odd": seed(algo=ALGO["lfs"], range=4, subpel=2) + size(17, 9) + bytes([FMT["yuv444p"]]) + frames(3),
    "size-change-bi": seed(dir=DIR["bi"]) + size(32, 32) + bytes([FMT["yuv420p"]]) + frames(2)
                     + cmd(SIZE, extra=size(40, 24)) + frames(2),
    "format-change-restart": seed(dir=DIR["bi"]) + size(64, 48) + bytes([FMT["gray"]]) + frames(2)
                     + cmd(FORMAT, extra=bytes([FMT["yuv420p"]])) + frames(1)
                     + cmd(FORMAT, extra=bytes([FMT["nv12"]])) + frames(1),
    "format-change-monob": seed() + size(640, 48) + bytes([FMT["gray"]]) + frames(1)
                     + cmd(FORMAT, extra=bytes([FMT["monob"]])) + frames(1),
    "format-change-rgb24": seed(dir=DIR["bwd"]) + size(64, 48) + bytes([FMT["gray"]]) + frames(2)
                     + cmd(FORMAT, extra=bytes([FMT["rgb24"]])),
    "limit-16384": seed() + size(16384, 16) + bytes([FMT["gray"]]) + frames(2),
    "limit-16383-change": seed(algo=ALGO["hme"], range=1) + size(64, 16) + bytes([FMT["gray"]]) + frames(1)
                     + cmd(SIZE, extra=size(16383, 2)) + frames(1) + cmd(SIZE, extra=size(16384, 2)),
    "eof-after-one-bi": seed(dir=DIR["bi"]) + size(16, 16) + bytes([FMT["gray"]]) + frames(1) + cmd(CLOSE),
    "timestamps": seed(dir=DIR["bwd"]) + size(24, 24) + bytes([FMT["gray"]])
                     + cmd(SEND, TS_RAW, extra=struct.pack(">q", -(1 << 62))) + cmd(SEND, TS_NONE)
                     + cmd(SEND, TS_BACK) + cmd(SEND, TS_RAW, extra=struct.pack(">q", (1 << 63) - 1)),
    "bad-options": seed(range=0xf1, ctu=0xf0) + size(32, 32) + bytes([FMT["gray"]]) + frames(2),
    "unsupported-first": seed() + size(32, 32) + bytes([FMT["yuv420p10le"]]) + frames(2),
    "opencl-small": seed(device="opencl", algo=ALGO["full"], range=4, dir=DIR["bi"]) + size(40, 24)
                     + bytes([FMT["gray"]]) + frames(1) + frames(2, SHIFT),
    "opencl-frames-change": seed(device="opencl-frames", algo=ALGO["full"], range=4, dir=DIR["bi"])
                     + size(64, 32) + bytes([FMT["gray"]]) + frames(1) + frames(1, SHIFT)
                     + cmd(NEWCTX) + frames(1, SHIFT) + cmd(FORMAT, extra=bytes([FMT["yuv420p"]])) + frames(1)
                     + cmd(FORMAT, extra=bytes([FMT["gray16le"]])),
    "mcfps-bi": seed(mcfps=True, dir=DIR["bi"]) + size(48, 32) + bytes([FMT["yuv420p"]]) + frames(1) + frames(4, SHIFT),
    "dis-bi-mcfps": seed(mcfps=True, algo=ALGO["dis"], range=40, dir=DIR["bi"]) + size(70, 45)
                     + bytes([FMT["yuv420p"]]) + frames(1) + frames(3, SHIFT, 9, -4),
    # hme's level-1 blocks of 8 and 16, cut to 4x4 at the corner
    "hme-corner-block4": seed(algo=ALGO["hme"], block=BLOCK[16], dir=DIR["bi"], **{"lambda": 8}) + size(40, 40)
                     + bytes([FMT["gray"]]) + frames(1) + frames(2, SHIFT, -5, 3)
                     + cmd(SIZE, extra=size(72, 40)) + frames(1) + frames(2, SHIFT, 4, 6),
}

d = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
os.makedirs(d, exist_ok=True)
for name, data in cases.items():
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)
print(f"{len(cases)} seeds in {d}")
