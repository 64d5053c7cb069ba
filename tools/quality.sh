#!/bin/sh
# make quality: how well the vectors predict (luma MC-PSNR of the forward
# vectors, gpume-mv eval psnr_fwd: frame t predicted from t-1, bilinear
# quarter pel) of gpume algo=hme|lfs|full and mestimate esa|epzs, at the same
# range, block and sub-pel, on the CPU backend (the reference: every
# backend gives the same vectors), with the wall time of each run; the
# defaults of gpume beside the H.264 decoder's own vectors (-export_mvs).
#
# Clips: cockatoo.mp4, realshort.mp4, cityCC0.mpg and, from opencv-doc
# (tools/fetch-clips.sh --extra), vtest.avi (walkers), tree.avi, Megamind.avi;
# and two synthetic clips made from cityCC0's first frame by
# tools/synth-clip.py: a pan by (5.25, -2.5) pixels per frame and a zoom by
# 1.5 % per frame. Settings: range=16:block=16, range=32:block=auto,
# range=64:block=16 (ctu=32, subpel=2, lambda=2: the defaults otherwise).
# lfs and mestimate export fixed 16x16 blocks only: they run at block 16.
# Results are kept in BUILDDIR/quality/*.txt (delete them to measure again);
# the table goes to stdout.
#
# environment: BUILDDIR FFMPEG CLIPS; QUALITY_FRAMES (default 20);
#   QUALITY_CLIPS (names, default all); QUALITY_ESA_RANGES (ranges at which
#   mestimate=esa runs, default 16: single-threaded, it takes minutes per
#   frame of cockatoo at range 64)
set -eu

: "${BUILDDIR:=build}" "${CLIPS:=$BUILDDIR/clips}" "${FFMPEG:=$BUILDDIR/ffmpeg/ffmpeg}"
mv=$BUILDDIR/gpume-mv
nf=${QUALITY_FRAMES:-20}
esa_ranges=${QUALITY_ESA_RANGES:-16}
out=$BUILDDIR/quality
mkdir -p "$out"
say() { echo "quality: $*" >&2; }

sh tools/fetch-clips.sh "$BUILDDIR" --extra >&2
for f in "$FFMPEG" "$mv"; do
    [ -x "$f" ] || { say "$f missing (make first)"; exit 1; }
done

# the synthetic clips
if [ ! -s "$out/pan.y4m" ] || [ ! -s "$out/zoom.y4m" ]; then
    "$FFMPEG" -nostdin -v error -y -i "$CLIPS/cityCC0.mpg" -frames:v 1 -pix_fmt gray \
        -f rawvideo "$out/citysrc.gray"
    for k in pan zoom; do
        python3 tools/synth-clip.py $k "$out/citysrc.gray" 720 405 "$out/$k.y4m" 480 270 "$nf"
    done
fi

path_of() {
    case $1 in
    pan|zoom) echo "$out/$1.y4m" ;;
    *) echo "$CLIPS/$1" ;;
    esac
}

# run CLIP KEY GRAPH [-export_mvs]: "psnr seconds", cached in $out
run() {
    f=$out/$(echo "$1" | tr -c 'A-Za-z0-9\n' _)-$2.txt
    if [ ! -s "$f" ]; then
        t0=$(date +%s.%N)
        if [ -n "$3" ]; then
            p=$("$mv" eval -frames "$nf" -vf "$3" ${4:-} "$(path_of "$1")" | sed -n 's/.*psnr_fwd=\([^ ]*\).*/\1/p')
        else
            p=$("$mv" eval -frames "$nf" ${4:-} "$(path_of "$1")" | sed -n 's/.*psnr_fwd=\([^ ]*\).*/\1/p')
        fi
        t1=$(date +%s.%N)
        echo "$p $(echo "$t1 - $t0" | bc)" > "$f"
    fi
    cat "$f"
}

# same_frames CLIP: "ours decoder frames", the MC-PSNR of gpume's defaults and
# of the decoder's vectors pooled over the same frames: those the decoder
# exported forward vectors for (its intra frames have none, and a scene cut
# coded intra would otherwise count against gpume alone)
same_frames() {
    k=$out/$(echo "$1" | tr -c 'A-Za-z0-9\n' _)
    [ -s "$k-default.frames" ] ||
        "$mv" eval -frames "$nf" -vf gpume=device=cpu "$(path_of "$1")" > "$k-default.frames"
    [ -s "$k-export.frames" ] ||
        "$mv" eval -frames "$nf" -export_mvs "$(path_of "$1")" > "$k-export.frames" 2> /dev/null || true
    # column 9 of the per-frame table is psnr_fwd; pooled: the mean of the frames' MSE
    awk 'FNR == 1 { file++; next } $1 ~ /^[0-9]+$/ { p[file, $1] = $9 }
         END {
             for (k in p) {
                 split(k, a, SUBSEP)
                 if (a[1] != 2 || p[2, a[2]] !~ /^[0-9.]+$/ || p[1, a[2]] !~ /^[0-9.]+$/) continue
                 m1 += 10 ^ (-p[1, a[2]] / 10); m2 += 10 ^ (-p[2, a[2]] / 10); n++
             }
             if (n) printf "%.2f %.2f %d\n", -10 * log(m1 / n) / log(10), -10 * log(m2 / n) / log(10), n
         }' "$k-default.frames" "$k-export.frames"
}

cell() { # "psnr seconds" -> "psnr (s)"
    set -- $1
    if [ $# -eq 2 ]; then printf '%.2f (%.1f s)' "$1" "$2"; else printf 'failed'; fi
}

clips=${QUALITY_CLIPS:-cockatoo.mp4 realshort.mp4 cityCC0.mpg vtest.avi tree.avi Megamind.avi pan zoom}
echo "MC-PSNR of the forward vectors in dB (wall seconds of the $nf-frame run), gpume on the CPU backend ($(nproc) cores)"
echo
echo "| clip | setting | hme | hme − full | full | lfs | esa | epzs |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for c in $clips; do
    for s in 16:16 32:auto 64:16; do
        r=${s%%:*} b=${s#*:}
        g="device=cpu:range=$r:block=$b"
        h=$(run "$c" "hme-$r-$b" "gpume=$g:algo=hme")
        fu=$(run "$c" "full-$r-$b" "gpume=$g:algo=full")
        l=$(run "$c" "lfs-$r-16" "gpume=device=cpu:range=$r:block=16:algo=lfs")
        case " $esa_ranges " in
        *" $r "*) e=$(cell "$(run "$c" "esa-$r" "mestimate=method=esa:mb_size=16:search_param=$r")") ;;
        *) e=— ;;
        esac
        ep=$(run "$c" "epzs-$r" "mestimate=method=epzs:mb_size=16:search_param=$r")
        d=$(echo "${h%% *} - ${fu%% *}" | bc 2>/dev/null || echo 0)
        echo "| $c | range=$r:block=$b | $(cell "$h") | $(printf '%+.2f' "$d") | $(cell "$fu") | $(cell "$l") | $e | $(cell "$ep") |"
    done
done
echo
echo "Defaults (gpume with no options, CPU backend) beside the decoder's exported vectors:"
echo
echo "| clip | codec | gpume defaults | decoder -export_mvs | on the decoder's frames: gpume, decoder (frames) |"
echo "| --- | --- | --- | --- | --- |"
for c in $clips; do
    dflt=$(run "$c" default "gpume=device=cpu")
    case $c in
    pan|zoom) codec=synthetic x=— same=— ;;
    *)  codec=$("$(dirname "$FFMPEG")/ffprobe" -v error -select_streams v:0 -show_entries stream=codec_name \
                -of csv=p=0 "$(path_of "$c")" | tr -d ,)
        # H.264, MPEG-2 and MPEG-4 decoders export their vectors; others (cinepak) none
        x=$(run "$c" export "" -export_mvs)
        case $x in [0-9]*) x=$(cell "$x") ;; *) x="none exported" ;; esac
        same=$(same_frames "$c")
        [ -n "$same" ] && same=$(echo "$same" | awk '{ printf "%.2f, %.2f (%d)", $1, $2, $3 }') || same=— ;;
    esac
    echo "| $c | $codec | $(cell "$dflt") | $x | $same |"
done
