#!/usr/bin/python3
"""How far the frame-rate-conversion results of make frc-bench are from what
better choices among the same methods, or a dense optical flow, would give.

Reads the files tools/frc-bench.sh leaves in BUILDDIR/frc-bench (NAME.y4m,
NAME.orig.gray and NAME.METHOD.gray) and prints, per clip, the luma PSNR of
the rebuilt frames 1, 3, ..., 37 (the bench's frames) for:
  method    the bench's method given by --method (default mcfps-dis)
  best      the best of the other methods present (minterp, minterp-aobmc,
            blend, repeat), as the bench's "best other"
  oracle    each 16x16 block taken from whichever of --method and the
            interpolating methods (all but repeat, whose exact copies of
            repeated pictures no interpolation can know) is closest to the
            original there: what a perfect choice among them would give
  or-blend  the same between --method and blend alone: what a perfect
            choice between motion compensation and the plain average, block
            by block, would give
  flow      (with --flow, needs python3-opencv) OpenCV's DIS optical flow,
            preset medium (with its variational refinement), both directions,
            the intermediate flows approximated from them at the middle,
            both frames warped (bicubic) and averaged; --flow-method tvl1
            takes OpenCV's dual TV-L1 flow instead, --flow-method deep its
            DeepFlow (both of its optflow module, slower: minutes a clip)
With --post-filter R it prints instead, per clip, what a linear filter
after --method would give: the (2R+1)x(2R+1) taps and offset that best map
--method's frames to the originals in the least-squares sense, fitted on
the other clips named (leave one clip out), rounded and clipped to 8 bits.

usage: tools/frc-headroom.py [--builddir build] [--method mcfps-dis]
                             [--flow [--flow-method dis|tvl1|deep]] CLIP...
       tools/frc-headroom.py [--builddir build] [--method mcfps-dis]
                             --post-filter R CLIP CLIP...
Debian packages: python3-numpy, python3-opencv for --flow.
"""
import argparse
import os
import sys

import numpy as np

OTHERS = ["minterp", "minterp-aobmc", "blend", "repeat"]
BLOCK = 16


def y4m_size(path):
    with open(path, "rb") as f:
        header = f.readline().split()
    w = int(next(x for x in header if x.startswith(b"W"))[1:])
    h = int(next(x for x in header if x.startswith(b"H"))[1:])
    return w, h


def gray(path, w, h):
    return np.fromfile(path, np.uint8).reshape(-1, h, w)


def clip_frames(d, clip, method):
    """The size of a clip, its original frames and those method rebuilt."""
    w, h = y4m_size(os.path.join(d, clip + ".y4m"))
    return (w, h, gray(os.path.join(d, clip + ".orig.gray"), w, h),
            gray(os.path.join(d, "%s.%s.gray" % (clip, method)), w, h))


def psnr(mse):
    return 100.0 if mse == 0 else 10 * np.log10(255.0 * 255.0 / mse)


def frame_mse(a, b):
    return float(np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2))


def flow_interpolate(cv2, flow, a, b):
    """The middle frame from a and b along flow, an OpenCV DenseOpticalFlow."""
    h, w = a.shape
    gx, gy = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
    fab = flow.calc(a, b, None)
    fba = flow.calc(b, a, None)
    # flows from the middle instant into a and into b (both at t = 1/2)
    fta = 0.25 * (fba - fab)
    ftb = 0.25 * (fab - fba)
    wa = cv2.remap(a.astype(np.float32), gx + fta[..., 0], gy + fta[..., 1], cv2.INTER_CUBIC,
                   borderMode=cv2.BORDER_REPLICATE)
    wb = cv2.remap(b.astype(np.float32), gx + ftb[..., 0], gy + ftb[..., 1], cv2.INTER_CUBIC,
                   borderMode=cv2.BORDER_REPLICATE)
    return np.clip(np.rint((wa + wb) / 2), 0, 255)


def neighbourhoods(picture, radius, step):
    """Rows of the (2 radius + 1)^2 samples around every step-th sample, and 1."""
    h, w = picture.shape
    p = np.pad(picture.astype(np.float64), radius, mode="edge")
    cols = [p[radius + dy:radius + dy + h:step, radius + dx:radius + dx + w:step].ravel()
            for dy in range(-radius, radius + 1) for dx in range(-radius, radius + 1)]
    cols.append(np.ones_like(cols[0]))
    return np.stack(cols, 1)


def post_filter(d, method, clips, radius):
    """Per clip, --method's PSNR before and after the linear filter fitted on the others."""
    data = {}
    for clip in clips:
        _, _, orig, ours = clip_frames(d, clip, method)
        frames = range(1, min(38, min(len(orig), len(ours)) - 1), 2)
        xtx = xty = 0
        for n in frames:  # every third sample each way is plenty for the normal equations
            x = neighbourhoods(ours[n], radius, 3)
            xtx = xtx + x.T @ x
            xty = xty + x.T @ orig[n][::3, ::3].ravel().astype(np.float64)
        data[clip] = (orig, ours, frames, xtx, xty)
    print("clip       %-10s %-10s gain" % (method, "filtered"))
    gains = []
    for clip in clips:
        xtx = sum(data[c][3] for c in clips if c != clip)
        xty = sum(data[c][4] for c in clips if c != clip)
        taps = np.linalg.solve(xtx + 1e-3 * np.eye(len(xty)), xty)
        orig, ours, frames, _, _ = data[clip]
        before, after = [], []
        for n in frames:
            f = np.clip(np.rint(neighbourhoods(ours[n], radius, 1) @ taps), 0, 255).reshape(ours[n].shape)
            before.append(psnr(frame_mse(orig[n], ours[n])))
            after.append(psnr(frame_mse(orig[n], f)))
        gains.append(np.mean(after) - np.mean(before))
        print("%-10s %-10.2f %-10.2f %+.3f" % (clip, np.mean(before), np.mean(after), gains[-1]))
        sys.stdout.flush()
    print("mean gain %+.3f dB" % np.mean(gains))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--builddir", default=os.environ.get("BUILDDIR", "build"))
    ap.add_argument("--method", default="mcfps-dis")
    ap.add_argument("--flow", action="store_true")
    ap.add_argument("--flow-method", default="dis", choices=["dis", "tvl1", "deep"])
    ap.add_argument("--post-filter", type=int, metavar="R")
    ap.add_argument("clips", nargs="+")
    args = ap.parse_args()
    d = os.path.join(args.builddir, "frc-bench")
    if args.post_filter is not None:
        if len(args.clips) < 2 or not 0 <= args.post_filter <= 4:
            ap.error("--post-filter takes a radius of 0 to 4 and fits on the other clips: name two or more")
        post_filter(d, args.method, args.clips, args.post_filter)
        return
    cv2 = flow = None
    if args.flow:
        import cv2
        flow = {"dis": lambda: cv2.DISOpticalFlow_create(cv2.DISOPTICAL_FLOW_PRESET_MEDIUM),
               "tvl1": lambda: cv2.optflow.DualTVL1OpticalFlow_create(),
               "deep": lambda: cv2.optflow.createOptFlow_DeepFlow()}[args.flow_method]()

    print("clip       %-10s %-10s %-10s %-10s %s" % (args.method, "best", "oracle", "or-blend",
                                                      "flow" if args.flow else ""))
    for clip in args.clips:
        w, h, orig, ours = clip_frames(d, clip, args.method)
        others = {m: gray(os.path.join(d, "%s.%s.gray" % (clip, m)), w, h) for m in OTHERS
                  if os.path.exists(os.path.join(d, "%s.%s.gray" % (clip, m)))}
        last = min([len(orig), len(ours)] + [len(v) for v in others.values()]) - 2
        frames = range(1, min(38, last + 1), 2)
        bh, bw = h // BLOCK * BLOCK, w // BLOCK * BLOCK
        res = {"ours": [], "oracle": [], "or-blend": [], "flow": []}
        per_other = {m: [] for m in others}
        for n in frames:
            o = orig[n].astype(np.float64)
            res["ours"].append(psnr(frame_mse(o, ours[n])))
            for m, v in others.items():
                per_other[m].append(psnr(frame_mse(o, v[n])))
            block_sse = {}
            for m, v in [("ours", ours)] + [(m, v) for m, v in others.items() if m != "repeat"]:
                e = ((v[n].astype(np.float64) - o) ** 2)[:bh, :bw]
                block_sse[m] = e.reshape(bh // BLOCK, BLOCK, bw // BLOCK, BLOCK).sum(axis=(1, 3))
            best = np.minimum.reduce(list(block_sse.values()))
            res["oracle"].append(psnr(best.sum() / (bh * bw)))
            if "blend" in block_sse:
                res["or-blend"].append(psnr(np.minimum(block_sse["ours"], block_sse["blend"]).sum() / (bh * bw)))
            if args.flow:
                res["flow"].append(psnr(frame_mse(o, flow_interpolate(cv2, flow, orig[n - 1], orig[n + 1]))))
        best_other = max(np.mean(v) for v in per_other.values()) if per_other else float("nan")
        print("%-10s %-10.2f %-10.2f %-10.2f %-10s %s" % (clip, np.mean(res["ours"]), best_other,
                                                          np.mean(res["oracle"]),
                                                          "%.2f" % np.mean(res["or-blend"]) if res["or-blend"] else "-",
                                                          "%.2f" % np.mean(res["flow"]) if args.flow else ""))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
