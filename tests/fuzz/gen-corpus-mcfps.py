#!/usr/bin/env python3
"""Write the seed corpus of target_mcfps_fuzzer.c into tests/fuzz/corpus-mcfps.

Each seed is one case of the input layout described at the top of the target:
flags, rate, 8 option selectors, first size and format, then commands. The
files are committed; run this again after changing the layout.
"""
import os
import struct

TB = {"1/25": 0, "1/90000": 1, "1001/30000": 2, "1/1": 3, "1/1000": 4, "7/3": 5, "1/48000": 6,
      "1/2147483647": 7}
RATES = ["60", "1/7", "1000", "24000/1001", "30000/1001", "25", "30", "50", "1", "120", "0.5",
         "1/40", "ntsc", "ntsc-film", "film", "pal", "2*ntsc", "24.000001", "8388607", "source_fps",
         "source_fps*2", "source_fps/3", "0", "-1", "inf", "nan", "bogus", "1/0", "9000000",
         "1e-10", "", "60/"]
OPTS = ["mode", "scene", "scene_sad", "lambda", "rel_lo", "rel_hi", "check", "bend"]
FMT = {"gray": 0, "yuv420p": 1, "yuv422p": 2, "yuv440p": 3, "yuv444p": 4, "yuvj420p": 5,
       "yuva420p": 9, "yuva444p": 11, "nv12": 12, "nv21": 13, "yuv410p": 14, "nv16": 16,
       "rgb24": 18, "gray16le": 19, "monob": 21}
SIZES = [1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 31, 33, 64, 65, 255, 352]
# selector bytes of valid values: value index + 1 (lists)
MODE = {"mc": 1, "blend": 2, "dup": 3}
SEND, SD, CMD, SIZE, FORMAT, CLOSE = 0, 1, 4, 5, 6, 7
COMMANDS = ["scene", "scene_sad", "lambda", "rel_lo", "rel_hi", "check", "bend", "mode"]
NOISE, SHIFT, FLAT, BYTES = 0, 1, 2, 3
TS_NEXT, TS_STEP, TS_SAME, TS_BACK, TS_NONE, TS_RAW, TS_SPECIAL = 0, 1, 2, 3, 4, 5, 6
# vector kinds of the side-data byte
NONE, TILE_BI, TILE_FWD, TILE_BWD, LIST, EMPTY, PARTIAL, TILE_OTHER = range(8)
STRINGS = ["nan", "inf", "-inf", "-1", "1e308", "-1e308", "", "0", "1", "0.5", "0.61", "garbage",
           "1e-320", "0x1p3", "  7", "255", "256", "10", "NAN(0x1)", "infinity", "1,5", "+0.7",
           "-0", "1e999", "0.6000000000000000001", "3.4e38", "20", "0.0"]
LONG_DIGITS, LONG_FRACTION = len(STRINGS), len(STRINGS) + 1
SCALE = {4: 0, 2: 1, 1: 2, 0: 3, 3: 4, 65535: 5, 8: 6, 16: 7, 5: 8, 7: 9, 32768: 10}
MOTION = {-2**31: 0xf0, 2**31 - 1: 0xf1, -(2**31 - 1): 0xf2, 4 * 4096: 0xf3, -4 * 4097: 0xf4,
          65536: 0xf7, 1 << 30: 0xf9}
SOURCE = {1: 0, -1: 1, 0: 0xc0, 2: 0xc1, -2: 0xc2, -2**31: 0xc3, 2**31 - 1: 0xc4}


def size(w, h):
    return b"".join(struct.pack(">H", 0xf000 | SIZES.index(v) if v in SIZES else v - 1) for v in (w, h))


def seed(tb="1/25", fps=None, rate_given=False, threads=1, push=True, go_on=False, drain_end=False,
         no_close=False, **opts):
    b = bytes([(threads - 1) | push << 1 | go_on << 2 | drain_end << 3 | no_close << 4 | TB[tb] << 5])
    b += bytes([(RATES.index(fps) + 1 if fps is not None else 0) << 1 | rate_given])
    for name in OPTS:
        b += bytes([opts.get(name + "_" if name == "lambda" else name, 0)])
    return b


def cmd(op, ts=TS_NEXT, content=NOISE, extra=b""):
    return bytes([op | ts << 3 | content << 6]) + extra


def motion(v):
    return bytes([MOTION[v]]) if v in MOTION else bytes([v + 0x78])


def vector(source=1, w=8, h=8, dst=(4, 4), src=(4, 4), mx=0, my=0, scale=4, flags=0):
    return (bytes([SOURCE[source], w, h]) + struct.pack(">hhhh", dst[0], dst[1], src[0], src[1])
            + motion(mx) + motion(my) + bytes([SCALE[scale], flags]))


def sd(kind=NONE, body=b"", scene=None, sad=None, cc=None, key=False, extra=None):
    """the side-data byte and what it asks for, in the order the target reads"""
    b = bytes([kind | (scene is not None) << 3 | (sad is not None) << 4 | (cc is not None) << 5
               | key << 6 | (extra is not None) << 7]) + body
    for s in (scene, sad):
        if s is not None:
            b += bytes([s]) if isinstance(s, int) else bytes([0xff, len(s)]) + s
    if cc is not None:
        b += bytes([len(cc)]) + cc
    if extra is not None:
        b += bytes([extra])
    return b


def tile(block=8, qx=4, qy=-2, jitter=0):
    return bytes([{8: 0, 16: 1, 4: 2, 32: 3}[block] | jitter << 2]) + struct.pack("bb", qx, qy)


def frames(n, kind=TILE_BI, ts=TS_NEXT, content=SHIFT, step=3, **kw):
    """n frames with side data: timestamp bytes, contents bytes, side data"""
    out = b""
    for _ in range(n):
        body = tile() if kind in (TILE_BI, TILE_FWD, TILE_BWD) else b""
        out += cmd(SD, ts, content, (bytes([step]) if ts == TS_STEP else b"")
                   + (struct.pack("bb", 3, -2) if content == SHIFT else b"") + sd(kind, body, **kw))
    return out


def at(pts, kind=TILE_BI):
    """a frame at pts (raw timestamp) with gpume's tiling"""
    return cmd(SD, TS_RAW, NOISE, struct.pack(">q", pts) + sd(kind, tile()))


def command(name, value_sel, kind=TILE_BI):
    """a command, then a frame with gpume's tiling (shifted)"""
    return cmd(CMD, TS_NEXT, SHIFT, bytes([COMMANDS.index(name), value_sel]) + struct.pack("bb", 3, -2)
               + sd(kind, tile()))


def extra(disabled=False, restart=False, other=False, twice=False, matrix=False, duration=0):
    return disabled | restart << 1 | other << 2 | twice << 3 | matrix << 4 | duration << 5


CC_608 = bytes([0xfc, 0x94, 0x20, 0xfc, 0x94, 0xae, 0xfd, 0x80, 0x80])
bi = frames(1, content=NOISE)

cases = {
    "basic-mc": seed() + size(48, 32) + bytes([FMT["yuv420p"]]) + bi + frames(4),
    "fps-1-7": seed(fps="1/7") + size(32, 24) + bytes([FMT["gray"]]) + bi
               + frames(1, ts=TS_STEP, step=200) + frames(2) + cmd(CLOSE, TS_STEP, extra=bytes([255])),
    "fps-1000": seed(fps="1000", threads=2) + size(24, 16) + bytes([FMT["nv12"]]) + bi + frames(2),
    "fps-ntsc-film-cc": seed(fps="24000/1001", tb="1001/30000", rate_given=True) + size(16, 16)
               + bytes([FMT["yuv420p"]]) + frames(5, cc=CC_608),
    "fps-source": seed(fps="source_fps*2", rate_given=True) + size(16, 8) + bytes([FMT["yuv444p"]])
               + bi + frames(3),
    "fps-source-unknown": seed(fps="source_fps") + size(16, 8) + bytes([FMT["gray"]]) + bi,
    "fps-invalid": seed(fps="0") + size(16, 16) + bytes([FMT["gray"]]) + bi,
    "fps-huge-rate": seed(fps="8388607", tb="1/2147483647") + size(8, 8) + bytes([FMT["gray"]]) + bi
               + frames(2, ts=TS_STEP, step=255) + frames(1),
    "fps-expression": seed(fps="2*ntsc", tb="1/90000") + size(17, 9) + bytes([FMT["yuv420p"]])
               + at(0) + at(3003) + at(6006) + at(12012),
    "blend-dup-options": seed(mode=MODE["blend"], scene=2, scene_sad=3, lambda_=0) + size(31, 15)
               + bytes([FMT["yuv422p"]]) + bi + frames(3, kind=NONE),
    "dup-same-instant": seed(fps="25", tb="1/90000", mode=MODE["dup"]) + size(9, 7) + bytes([FMT["gray"]])
               + at(0) + at(1) + at(1) + at(3610) + at(3611) + at(7300) + at(8000) + at(8001)
               + cmd(CLOSE, TS_RAW, extra=struct.pack(">q", 20000)),
    "bad-options": seed(mode=0xf1, scene=0xf0) + size(16, 16) + bytes([FMT["gray"]]) + bi,
    "rel-lo-above-hi": seed(rel_lo=0xdf, rel_hi=2) + size(16, 16) + bytes([FMT["gray"]]) + bi,
    "options-spread": seed(lambda_=0x60, rel_lo=1, rel_hi=0xdf, check=2, bend=2, scene=3, scene_sad=4)
               + size(40, 24) + bytes([FMT["yuvj420p"]]) + bi + frames(4),
    "scene-nan": seed(scene=0xe0, scene_sad=0xe0) + size(16, 16) + bytes([FMT["gray"]]) + bi
               + frames(2, scene=0, sad=1),
    "no-vectors-mc": seed(go_on=True) + size(16, 16) + bytes([FMT["gray"]])
               + frames(3, kind=NONE) + frames(2),
    "no-vectors-mc-stop": seed() + size(16, 16) + bytes([FMT["gray"]]) + frames(3, kind=NONE),
    "fwd-only": seed() + size(24, 24) + bytes([FMT["yuv420p"]]) + frames(4, kind=TILE_FWD),
    "bwd-only": seed() + size(24, 24) + bytes([FMT["yuv420p"]]) + frames(4, kind=TILE_BWD),
    "tiles-4-and-32": seed() + size(33, 17) + bytes([FMT["nv21"]]) + bi
               + cmd(SD, content=NOISE, extra=sd(TILE_BI, tile(4, 7, 5, 9)))
               + cmd(SD, content=NOISE, extra=sd(TILE_BI, tile(32, -30, 21, 3))),
    "vectors-extreme": seed() + size(24, 16) + bytes([FMT["yuv420p"]]) + bi
               + cmd(SD, extra=sd(LIST, bytes([6])
                     + vector(-1, 255, 255, (-32768, 32767), (32767, -32768), -2**31, 2**31 - 1, 65535)
                     + vector(-1, 16, 16, (8, 8), (0, 0), 4 * 4096, -4 * 4097, 1)
                     + vector(1, 8, 8, (4, 4), (300, -300), 0, 0, 0)
                     + vector(-1, 0, 7, (4, 4), (4, 4), 3, 3, 3)
                     + vector(-1, 200, 1, (100, 8), (0, 0), 1 << 30, 65536, 32768)
                     + vector(-1, 9, 9, (-4, -4), (0, 0), 5, -5, 2))),
    "vectors-sources": seed() + size(16, 16) + bytes([FMT["gray"]])
               + cmd(SD, extra=sd(LIST, bytes([5]) + vector(0) + vector(2) + vector(-2)
                                  + vector(-2**31) + vector(2**31 - 1)))
               + cmd(SD, extra=sd(LIST, bytes([2]) + vector(-1, mx=-3) + vector(-1, dst=(12, 4)))),
    "vectors-repeated": seed() + size(64, 33) + bytes([FMT["yuv420p"]]) + bi
               + cmd(SD, extra=sd(LIST, bytes([0xf3]) + vector(-1, 5, 3, (0, 0), (1, 1), 9, -9, 2))),
    "vectors-empty-array": seed(go_on=True) + size(16, 16) + bytes([FMT["gray"]])
               + frames(2, kind=EMPTY) + frames(1),
    "vectors-partial": seed() + size(16, 16) + bytes([FMT["gray"]]) + bi
               + cmd(SD, extra=sd(PARTIAL, bytes([1]) + vector(-1, mx=8) + bytes([20])))
               + cmd(SD, extra=sd(PARTIAL, bytes([0, 3]))),
    "vectors-other-size": seed() + size(32, 16) + bytes([FMT["gray"]])
               + cmd(SD, extra=sd(TILE_OTHER, b"\x08\xfc" + size(255, 64) + bytes([SCALE[0]])))
               + cmd(SD, extra=sd(TILE_OTHER, b"\xf0\x10" + size(8, 352) + bytes([SCALE[3]]))),
    "vectors-twice-disabled": seed() + size(16, 16) + bytes([FMT["gray"]])
               + frames(1, kind=NONE, extra=extra(disabled=True))
               + frames(1, kind=NONE, extra=extra(restart=True, other=True))
               + frames(2, extra=extra(twice=True, matrix=True)),
    "metadata-strings": seed(scene_sad=3) + size(16, 16) + bytes([FMT["gray"]]) + bi
               + frames(1, scene=0, sad=1) + frames(1, scene=4, sad=5) + frames(1, scene=11, sad=LONG_DIGITS)
               + frames(1, scene=LONG_FRACTION, sad=23) + frames(1, scene=b"0.9\x01x", sad=b"")
               + frames(1, scene=6, sad=2),
    "scene-cut-sad": seed(scene_sad=2) + size(24, 16) + bytes([FMT["gray"]]) + bi
               + frames(1, sad=7) + frames(1, sad=26) + frames(1, scene=8) + frames(1, sad=7),
    "cc-garbage": seed(fps="30", tb="1/1000") + size(8, 8) + bytes([FMT["gray"]])
               + frames(2, ts=TS_STEP, step=40, cc=b"\xff" * 7) + frames(1, ts=TS_STEP, step=40, cc=b"")
               + frames(1, ts=TS_STEP, step=40, cc=bytes(range(64))),
    "timestamps": seed(go_on=True) + size(16, 16) + bytes([FMT["gray"]]) + bi
               + frames(1, ts=TS_SAME) + frames(1, ts=TS_BACK) + frames(1, ts=TS_NONE)
               + cmd(SD, TS_RAW, extra=struct.pack(">q", -(1 << 62)) + sd(TILE_BI, tile()))
               + cmd(SD, TS_SPECIAL, extra=bytes([3]) + sd(TILE_BI, tile()))
               + cmd(SD, TS_SPECIAL, extra=bytes([5]) + sd(TILE_BI, tile()))
               + cmd(SD, TS_SPECIAL, extra=bytes([2]) + sd(TILE_BI, tile())) + at(5) + frames(2),
    "timestamps-negative-gap": seed(tb="1/1000", fps="25") + size(8, 8) + bytes([FMT["gray"]])
               + cmd(SD, TS_RAW, extra=struct.pack(">q", -5000) + sd(TILE_BI, tile()))
               + cmd(SD, TS_STEP, extra=bytes([255]) + sd(TILE_BI, tile()))
               + cmd(SD, TS_STEP, extra=bytes([9]) + sd(TILE_BI, tile())),
    "timestamps-huge-budget": seed(tb="1/1000") + size(16, 16) + bytes([FMT["gray"]]) + bi
               + cmd(SD, TS_SPECIAL, extra=bytes([14]) + sd(TILE_BI, tile()))
               + frames(2, ts=TS_STEP, step=255) + at(3000),
    "durations-end": seed() + size(16, 16) + bytes([FMT["gray"]]) + bi
               + frames(1, extra=extra(duration=3)) + cmd(CLOSE, TS_SPECIAL, extra=bytes([3])),
    "close-none": seed() + size(16, 16) + bytes([FMT["gray"]]) + bi + frames(1) + cmd(CLOSE, TS_NONE),
    "duration-huge": seed() + size(16, 16) + bytes([FMT["gray"]]) + bi
               + frames(1, extra=extra(duration=6)) + cmd(CLOSE, TS_SPECIAL, extra=bytes([3])),
    "close-later": seed(push=False) + size(16, 16) + bytes([FMT["gray"]]) + bi + frames(1)
               + cmd(CLOSE, TS_STEP, extra=bytes([20])),
    "close-first": seed() + size(16, 16) + bytes([FMT["gray"]]) + cmd(CLOSE),
    "close-after-one": seed() + size(16, 16) + bytes([FMT["gray"]]) + bi + cmd(CLOSE, TS_BACK),
    "no-close": seed(no_close=True) + size(16, 16) + bytes([FMT["gray"]]) + bi + frames(2),
    "drain-at-end": seed(push=False, drain_end=True, threads=2) + size(40, 40)
               + bytes([FMT["yuva420p"]]) + bi + frames(3, ts=TS_STEP),
    "size-change": seed() + size(1, 1) + bytes([FMT["yuv420p"]]) + bi + frames(1)
               + cmd(SIZE, extra=size(17, 9) + sd(TILE_BI, tile())) + frames(2)
               + cmd(SIZE, extra=size(2, 3) + sd(TILE_BWD, tile(4))) + frames(1, kind=TILE_BWD),
    "format-change": seed(go_on=True) + size(16, 8) + bytes([FMT["gray"]]) + bi + frames(1)
               + cmd(FORMAT, extra=bytes([FMT["nv12"]]) + sd(TILE_BI, tile())) + frames(1)
               + cmd(FORMAT, extra=bytes([FMT["rgb24"]]) + sd(TILE_BI, tile())) + frames(1)
               + cmd(FORMAT, extra=bytes([FMT["yuv440p"]]) + sd(TILE_BI, tile())) + frames(2),
    "format-unsupported-stop": seed() + size(16, 8) + bytes([FMT["gray"]]) + bi
               + cmd(FORMAT, extra=bytes([FMT["nv16"]]) + sd(TILE_BI, tile())) + frames(2),
    "format-unsupported-first": seed() + size(16, 16) + bytes([FMT["gray16le"]]) + bi,
    "key-frames-threads": seed(threads=2, fps="50") + size(65, 33) + bytes([FMT["yuv444p"]])
               + frames(4, key=True),
    "commands": seed() + size(24, 16) + bytes([FMT["yuv420p"]]) + bi
               + command("scene", 2) + command("rel_lo", 0xdf) + command("rel_hi", 0xf0)
               + command("rel_hi", 0xdf) + command("rel_lo", 0x80) + command("mode", 2)
               + command("lambda", 0x50) + command("check", 2) + command("bend", 0xf1)
               + command("scene_sad", 0xe0) + frames(1),
    "odd-352": seed(fps="30") + size(352, 3) + bytes([FMT["yuva444p"]]) + bi + frames(1),
}

d = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus-mcfps")
os.makedirs(d, exist_ok=True)
for name, data in cases.items():
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)
print(f"{len(cases)} seeds in {d}")
