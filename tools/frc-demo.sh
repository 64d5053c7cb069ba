#!/bin/sh
# The frame-rate-conversion part of make demo:
#  - OUT.mp4: the first FRC_DEMO_FRAMES frames of CLIP (cockatoo.mp4, 20 fps)
#    at twice their rate through gpume=dir=bi:range=64,mcfps=fps=40;
#  - OUT.png: one frame made between two others, 2x2: the original frame
#    that was dropped (top left), mcfps (top right), minterpolate's default
#    (bottom left) and the blend of the two neighbours (bottom right), each
#    scaled to 640x360. The neighbours are frames 20 and 22 of the clip at
#    10 fps (every other frame dropped), so the truth is known.
#
# usage: frc-demo.sh FFMPEG CLIP OUT    (writes OUT.mp4 and OUT.png)
set -eu

ffmpeg=$1 clip=$2 out=$3
: "${FRC_DEMO_FRAMES:=40}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/frc-demo.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
ff() { "$ffmpeg" -nostdin -hide_banner -loglevel error -y "$@"; }

ff -i "$clip" -an -frames:v "$FRC_DEMO_FRAMES" -vf "gpume=dir=bi:range=64,mcfps=fps=40" \
   -c:v mpeg4 -q:v 3 "$out.mp4"

# frames 0..29 numbered at 20 fps, the odd ones dropped, frame 21 rebuilt
src="setpts=N/20/TB,select=lt(n\,30)"
shot() { # NAME FILTER: frame 21 of the rebuilt clip, 640x360
    ff -i "$clip" -an -vf "$src,select=not(mod(n\,2)),$2,select=eq(n\,21),scale=640:360" \
       -frames:v 1 "$tmp/$1.png"
}
ff -i "$clip" -an -vf "$src,select=eq(n\,21),scale=640:360" -frames:v 1 "$tmp/truth.png"
shot mcfps "gpume=dir=bi:range=64,mcfps=fps=20"
shot minterp "minterpolate=fps=20"
shot blend "mcfps=fps=20:mode=blend"
ff -i "$tmp/truth.png" -i "$tmp/mcfps.png" -i "$tmp/minterp.png" -i "$tmp/blend.png" \
   -filter_complex "[0]pad=1280:720[a];[a][1]overlay=640:0[b];[b][2]overlay=0:360[c];[c][3]overlay=640:360" \
   -frames:v 1 "$out.png"
echo "frc-demo: wrote $out.mp4 and $out.png (original | mcfps / minterpolate | blend)"
