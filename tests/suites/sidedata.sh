#!/bin/sh
# Side-data semantics of gpume (docs/ALGORITHMS.md §9, docs SPEC §2), read back
# with gpume-mv dump / eval on the CPU backend: vector counts and block
# geometry (odd sizes too), motion_x/motion_scale against src - dst, source
# and pict_type per direction, frame counts with a one-frame delay, the
# lavfi.gpume.* metadata (scene cuts), a known translation, untouched pixels,
# and gpume-mv itself: on mestimate and decoder vectors, its errors (no
# output from a run that fails before its first frame) and a new filter graph
# when the input's frames change size or pixel format.
#
# environment (tests/run.sh): FFMPEG BUILDDIR CLIPS. Prints "FAIL name: detail"
# per failure and "N passed, N failed" last; exit status 1 on a failure.
set -u

: "${BUILDDIR:=build}" "${CLIPS:=$BUILDDIR/clips}" "${FFMPEG:=$BUILDDIR/ffmpeg/ffmpeg}"
MV=$BUILDDIR/gpume-mv
CLIP=$CLIPS/realshort.mp4
pass=0 fail=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpume-sidedata.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

ok()  { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1: $2"; }
finish() {
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
    exit
}

# check NAME FILE AWK-PROGRAM: the program prints an explanation and exits 1 on a failure
check() {
    name=$1 file=$2
    shift 2
    if msg=$(awk -F, "$@" "$file" 2>&1); then ok "$name"; else bad "$name" "$(echo "$msg" | head -n 3 | tr '\n' ' ')"; fi
}

# dump NAME ARGS...: gpume-mv dump ARGS into $tmp/NAME.csv; a failure of the tool fails NAME
dump() {
    name=$1
    shift
    if "$MV" dump "$@" > "$tmp/$name.csv" 2> "$tmp/$name.err"; then
        return 0
    fi
    bad "$name" "gpume-mv dump $* failed: $(tail -n 2 "$tmp/$name.err" | tr '\n' ' ')"
    return 1
}

# column of a gpume-mv eval table: evalcol FILE FRAME COLUMN
evalcol() {
    awk -v f="$2" -v c="$3" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
                             $1 == f { print $col[c] }' "$1"
}
# value of KEY in the "overall" line of a gpume-mv eval output
overall() {
    tr ' ' '\n' < "$1" | sed -n "s/^$2=//p"
}

# build or update the tool (a no-op when it is up to date)
if ! make --no-print-directory -f tools/gpume-mv/gpume-mv.mak BUILDDIR="$BUILDDIR" "$MV" > "$tmp/build.log" 2>&1; then
    bad build "make -f tools/gpume-mv/gpume-mv.mak $MV: $(tail -n 3 "$tmp/build.log" | tr '\n' ' ')"
    finish
fi

# awk helpers shared by the checks; columns of the csv:
# 1 frame 2 pts 3 pict_type 4 count 5 source 6 w 7 h 8 src_x 9 src_y 10 dst_x 11 dst_y
# 12 motion_x 13 motion_y 14 motion_scale 15 mean_sad 16 scene_score 17 gpume_meta
AWK_LIB='
function die(m) { print m; bad = 1; exit 1 }
function floor4(q) { return q >= 0 ? int(q / 4) : -int((-q + 3) / 4) }
END { if (bad) exit 1 }'

SRC="lavfi:testsrc2=s=320x240:r=25:d=0.4"   # 10 frames
G=gpume=device=cpu:block=16

# --- counts, geometry, directions on 320x240, block 16 ------------------------

# tiles W H B: every frame with vectors of source S has ceil(W/B) * ceil(H/B)
# blocks of it, tiling the frame: top-left on the B grid, w/h clipped at the
# edges, dst = top-left + w/2, h/2, each tile once
TILES='
NR > 1 && $4 > 0 && $5 == S {
    x = $10 - int($6 / 2); y = $11 - int($7 / 2)
    if (x % B || y % B) die("frame " $1 ": top-left " x "," y " not on the " B " grid")
    if ($6 != (W - x < B ? W - x : B) || $7 != (H - y < B ? H - y : B))
        die("frame " $1 ": block at " x "," y " is " $6 "x" $7)
    if (seen[$1 " " x " " y]++) die("frame " $1 ": two blocks at " x "," y)
    n[$1]++; area[$1] += $6 * $7
}
END {
    want = int((W + B - 1) / B) * int((H + B - 1) / B)
    for (f in n) {
        if (n[f] != want) die("frame " f ": " n[f] " vectors of source " S ", expected " want)
        if (area[f] != W * H) die("frame " f ": blocks cover " area[f] " pixels of " W * H)
    }
    if (!length(n)) die("no vectors")
}'

if dump fwd -vf "$G:block=16" "$SRC"; then
    check count-fwd-first-frame "$tmp/fwd.csv" "$AWK_LIB"'
        NR > 1 && $1 == 0 { lines++; if ($4 != 0 || $5 != "") die("frame 0 has " $4 " vectors") }
        END { if (lines != 1) die("frame 0: " lines " lines, expected 1 with count 0") }'
    check count-fwd-300 "$tmp/fwd.csv" "$AWK_LIB"'
        NR > 1 && $1 > 0 { n[$1]++; if ($4 != 300) die("frame " $1 ": count " $4) }
        NR > 1 { frames[$1] = 1 }
        END { if (length(frames) != 10) die(length(frames) " frames, expected 10")
              for (f in n) if (n[f] != 300) die("frame " f ": " n[f] " lines") }'
    check geometry-320x240-b16 "$tmp/fwd.csv" -v W=320 -v H=240 -v B=16 -v S=-1 "$AWK_LIB$TILES"
    check source-pict-fwd "$tmp/fwd.csv" "$AWK_LIB"'
        NR > 1 && $1 > 0 { if ($5 != -1) die("frame " $1 ": source " $5); if ($3 != "P") die("frame " $1 ": pict_type " $3) }'
    check metadata-fwd "$tmp/fwd.csv" "$AWK_LIB"'
        NR > 1 && $1 > 0 {
            if ($15 == "" || $16 == "") die("frame " $1 ": lavfi.gpume.mean_sad/scene_score missing")
            if ($15 < 0 || $16 < 0 || $16 > 1) die("frame " $1 ": mean_sad " $15 ", scene_score " $16)
            if ($17 !~ /mean_sad=/ || $17 !~ /scene_score=/) die("frame " $1 ": gpume_meta " $17)
        }'
fi

if dump bwd -vf "$G:block=16:dir=bwd" "$SRC"; then
    check dir-bwd "$tmp/bwd.csv" "$AWK_LIB"'
        NR > 1 { frames[$1] = 1 }
        NR > 1 && $1 < 9 { n[$1]++
            if ($4 != 300 || $5 != 1) die("frame " $1 ": count " $4 ", source " $5)
            if ($3 != "B") die("frame " $1 ": pict_type " $3)
            if ($15 == "" || $16 < 0 || $16 > 1) die("frame " $1 ": metadata " $15 " " $16) }
        NR > 1 && $1 == 9 && $4 != 0 { die("last frame: " $4 " vectors, expected none") }
        END { if (length(frames) != 10) die(length(frames) " frames out of 10")
              for (f in n) if (n[f] != 300) die("frame " f ": " n[f] " vectors") }'
    check geometry-bwd "$tmp/bwd.csv" -v W=320 -v H=240 -v B=16 -v S=1 "$AWK_LIB$TILES"
fi

if dump bi -vf "$G:block=16:dir=bi" "$SRC"; then
    check dir-bi "$tmp/bi.csv" "$AWK_LIB"'
        NR > 1 { frames[$1] = 1; n[$1 " " $5]++; type[$1] = $3 }
        # vectors into the previous frame come first
        NR > 1 && $5 == -1 && n[$1 " 1"] { die("frame " $1 ": source -1 after source +1") }
        END {
            if (length(frames) != 10) die(length(frames) " frames out of 10")
            if (n["0 -1"] || n["0 1"] != 300 || type[0] != "B") die("frame 0: " n["0 -1"] "/" n["0 1"] " fwd/bwd, " type[0])
            for (f = 1; f < 9; f++)
                if (n[f " -1"] != 300 || n[f " 1"] != 300 || type[f] != "B")
                    die("frame " f ": " n[f " -1"] "/" n[f " 1"] " fwd/bwd, " type[f])
            if (n["9 -1"] != 300 || n["9 1"] || type[9] != "P") die("last frame: " n["9 -1"] "/" n["9 1"] " fwd/bwd, " type[9])
        }'
    check geometry-bi-fwd "$tmp/bi.csv" -v W=320 -v H=240 -v B=16 -v S=-1 "$AWK_LIB$TILES"
    check geometry-bi-bwd "$tmp/bi.csv" -v W=320 -v H=240 -v B=16 -v S=1 "$AWK_LIB$TILES"
fi

# frames out == frames in on a real clip with a one-frame delay
if dump clip-null "$CLIP" && dump clip-bi -vf "$G:dir=bi:algo=lfs" "$CLIP" && dump clip-bwd -vf "$G:dir=bwd:algo=lfs" "$CLIP"; then
    nin=$(awk -F, 'NR > 1 { f[$1] = 1 } END { print length(f) }' "$tmp/clip-null.csv")
    for d in bi bwd; do
        nout=$(awk -F, 'NR > 1 { f[$1] = 1 } END { print length(f) }' "$tmp/clip-$d.csv")
        if [ "$nin" -gt 1 ] && [ "$nin" = "$nout" ]; then ok "frame-count-$d"; else bad "frame-count-$d" "$nout frames out, $nin in"; fi
    done
fi

# pts unchanged and in order through the one-frame delay
if [ -f "$tmp/clip-bi.csv" ]; then
    a=$(awk -F, 'NR > 1 && !s[$1]++ { print $2 }' "$tmp/clip-null.csv" | tr '\n' ' ')
    b=$(awk -F, 'NR > 1 && !s[$1]++ { print $2 }' "$tmp/clip-bi.csv" | tr '\n' ' ')
    if [ -n "$a" ] && [ "$a" = "$b" ]; then ok pts-bi; else bad pts-bi "pts '$b', expected '$a'"; fi
fi

# a size change (320x240 -> 160x120 from frame 4) restarts the estimation:
# frame 3 is flushed with forward vectors only, frame 4 has backward ones only
if dump resize -vf "scale=w='if(gte(n,5),160,320)':h='if(gte(n,5),120,240)':eval=frame,$G:dir=bi" "$SRC"; then
    check resize-bi "$tmp/resize.csv" "$AWK_LIB"'
        NR > 1 { n[$1 " " $5]++; type[$1] = $3 }
        END {
            want["0 1"] = 300; want["1 -1"] = want["1 1"] = want["2 -1"] = want["2 1"] = want["3 -1"] = 300
            want["4 1"] = 80; want["9 -1"] = 80
            for (f = 5; f < 9; f++) want[f " -1"] = want[f " 1"] = 80
            for (f = 0; f < 10; f++) for (s = -1; s <= 1; s += 2)
                if (n[f " " s] != want[f " " s] + 0) die("frame " f ", source " s ": " n[f " " s] + 0 " vectors, expected " want[f " " s] + 0)
            if (type[3] != "P" || type[4] != "B" || type[9] != "P") die("pict_type " type[3] type[4] type[9] ", expected PBP")
        }'
fi

# --- odd sizes: edge blocks clipped ------------------------------------------
for case in 100x50:16 100x50:8 17x9:8 33x17:16 1x1:8 130x66:64; do
    size=${case%:*} b=${case#*:} w=${size%x*} h=${size#*x}
    if dump "odd-$size-$b" -frames 3 -vf "format=yuv444p,crop=$w:$h:0:0,$G:block=$b:ctu=64" \
            "lavfi:testsrc2=s=160x80:r=25:d=1"; then
        check "geometry-$size-b$b" "$tmp/odd-$size-$b.csv" -v W="$w" -v H="$h" -v B="$b" -v S=-1 "$AWK_LIB$TILES"
    fi
done

# block=auto: the chosen partition tiles the frame (eval: every pixel covered once, area = W*H)
if dump auto -frames 4 -vf "$G:block=auto:algo=full" "$CLIP"; then
    check partition-auto-area "$tmp/auto.csv" "$AWK_LIB"'
        NR > 1 && $4 > 0 { x = $10 - int($6 / 2); y = $11 - int($7 / 2)
            if (x % 8 || y % 8 || $6 % 8 || $7 % 8) die("frame " $1 ": block " x "," y " " $6 "x" $7)
            area[$1] += $6 * $7; n[$1]++ }
        END { for (f in area) if (area[f] != 320 * 240) die("frame " f ": area " area[f])
              if (!length(area)) die("no vectors") }'
fi

# --- motion_x / motion_scale against src - dst, per subpel --------------------
for sp in 0 1 2; do
    dump "subpel$sp" -frames 5 -vf "$G:subpel=$sp" "$CLIP" || continue
    check "motion-scale-subpel$sp" "$tmp/subpel$sp.csv" -v SP="$sp" "$AWK_LIB"'
        NR > 1 && $4 > 0 {
            ms = 2 ^ SP; d = $8 - $10; e = $9 - $11
            if ($14 != ms) die("frame " $1 ": motion_scale " $14 ", expected " ms)
            if (SP == 0 && ($12 != d * ms || $13 != e * ms))
                die("frame " $1 ": motion " $12 "," $13 " but src - dst " d "," e)
            dx = $12 / ms - d; dy = $13 / ms - e
            if (dx > 0.5 || dx < -0.5 || dy > 0.5 || dy < -0.5)
                die("frame " $1 ": motion/scale " $12 / ms "," $13 / ms " vs src - dst " d "," e)
            # ALGORITHMS.md 9: src = dst + ((q + 2) >> 2), q in quarter pels
            qx = $12 * 4 / ms; qy = $13 * 4 / ms
            if (d != floor4(qx + 2) || e != floor4(qy + 2))
                die("frame " $1 ": src - dst " d "," e " is not the rounding of q " qx "," qy)
            if ($12 % ms || $13 % ms) frac++
            n++
        }
        END { if (!n) die("no vectors"); if (SP > 0 && !frac) die("no fractional vector on a real clip") }'
done

# --- metadata -----------------------------------------------------------------
if [ -f "$tmp/subpel2.csv" ]; then
    check mean-sad-real-content "$tmp/subpel2.csv" "$AWK_LIB"'
        NR > 1 && $1 > 0 { if (!($15 > 0)) die("frame " $1 ": mean_sad " $15); if ($16 < 0 || $16 > 1) die("scene_score " $16) }'
fi

# mean_sad is the prediction error of the exported vectors: it equals gpume-mv
# eval mae (same quarter-pel interpolation) when the blocks tile the frame
for opts in "subpel=2" "subpel=0:algo=lfs" "block=auto:algo=full" "dir=bwd:block=8"; do
    if "$MV" eval -frames 6 -vf "$G:$opts" "$CLIP" > "$tmp/mae.txt" 2> "$tmp/mae.err"; then
        check "mean-sad-is-mae-$opts" "$tmp/mae.txt" -F' ' -v BWD="$(case $opts in dir=bwd*) echo 1;; *) echo 0;; esac)" "$AWK_LIB"'
            NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
            $1 == "overall" { next }
            { m = BWD ? $col["mae_bwd"] : $col["mae_fwd"]; s = $col["mean_sad"]
              if (m == "-" && s == "-") next
              if (m == "-" || s == "-" || m - s > 0.00011 || s - m > 0.00011)
                  die("frame " $1 ": mean_sad " s ", prediction error " m); n++ }
            END { if (n < 4) die("only " n " frames compared") }'
    else
        bad "mean-sad-is-mae-$opts" "gpume-mv eval failed: $(tail -n 2 "$tmp/mae.err" | tr '\n' ' ')"
    fi
done

# a hard cut (testsrc2, then testsrc from frame 10): scene_score near 1 on the
# cut, small elsewhere; a cut to black: above 0.9
CUT="testsrc2=s=320x240:r=25:d=0.8[a];testsrc=s=320x240:r=25:d=0.8,format=yuv420p[b];[a][b]overlay=enable=gte(n\\,10)"
if dump cut -vf "$G" "lavfi:$CUT"; then
    check scene-cut "$tmp/cut.csv" "$AWK_LIB"'
        NR > 1 && $4 > 0 && !seen[$1]++ {
            if ($1 == 10 && $16 < 0.75) die("cut frame: scene_score " $16)
            if ($1 != 10 && $16 > 0.05) die("frame " $1 ": scene_score " $16 " without a cut")
            n++ }
        END { if (n != 19) die(n " frames with metadata, expected 19") }'
fi
BLACK="testsrc2=s=320x240:r=25:d=0.8[a];color=c=black:s=320x240:r=25:d=0.8[b];[a][b]overlay=enable=gte(n\\,10)"
if dump cut-black -vf "$G" "lavfi:$BLACK"; then
    check scene-cut-black "$tmp/cut-black.csv" "$AWK_LIB"'
        NR > 1 && $1 == 10 && !seen++ { if ($16 < 0.9) die("cut frame: scene_score " $16) }
        END { if (!seen) die("no cut frame") }'
fi

# --- a known translation ----------------------------------------------------------
# crop=320:240:x=2*n:y=n moves the picture by (-2, -1) per frame: the vectors
# into the previous frame are (+2, +1). testsrc2 is mostly flat colour bars
# (most blocks see no texture: (0,0), or (2,0) on the vertical bar edges), so
# the median is taken on a textured still (a frame of cityCC0) moved the same way.
still=$tmp/still.png seq=$tmp/translate.y4m
if "$FFMPEG" -v error -y -i "$CLIPS/cityCC0.mpg" -frames:v 1 -vf crop=400:300:160:60 "$still" &&
   "$FFMPEG" -v error -y -loop 1 -i "$still" -vf "format=yuv444p,crop=320:240:x=2*n:y=n" \
             -frames:v 8 -f yuv4mpegpipe "$seq"; then
    echo '* 2 1' > "$tmp/truth.txt"
    MEDIAN='
        NR > 1 && $4 > 0 { k = $1; n[k]++; x[k, n[k]] = $12 / $14; y[k, n[k]] = $13 / $14 }
        function med(a, k, m,   i, j, t, v) {
            for (i = 1; i <= m; i++) v[i] = a[k, i]
            for (i = 2; i <= m; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
            return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
        }
        END { for (k in n) { mx = med(x, k, n[k]); my = med(y, k, n[k])
                  if (mx - 2 > TOL || 2 - mx > TOL || my - 1 > TOL || 1 - my > TOL)
                      die("frame " k ": median vector " mx "," my ", expected 2,1") }
              if (length(n) != 7) die(length(n) " frames with vectors, expected 7") }'
    for opts in algo=full:subpel=0 algo=hme:subpel=0 algo=lfs:subpel=0 algo=hme:subpel=2 algo=full:subpel=1:block=8; do
        tol=0; case $opts in *subpel=0*) ;; *) tol=0.25 ;; esac
        dump "translate-$opts" -vf "$G:$opts" "$seq" &&
            check "translation-median-$opts" "$tmp/translate-$opts.csv" -v TOL=$tol "$AWK_LIB$MEDIAN"
        if "$MV" eval -truth "$tmp/truth.txt" -vf "$G:$opts" "$seq" > "$tmp/epe.txt" 2> "$tmp/epe.err"; then
            med=$(overall "$tmp/epe.txt" epe_median) blocks=$(overall "$tmp/epe.txt" epe_blocks)
            b=16; case $opts in *block=8*) b=8 ;; esac
            want=$((7 * (320 / b) * (240 / b)))
            if [ "$blocks" = "$want" ] && awk -v m="$med" -v t="$tol" 'BEGIN { exit !(m <= t) }'; then
                ok "translation-epe-$opts"
            else
                bad "translation-epe-$opts" "epe_median=$med over $blocks blocks (expected <= $tol over $want)"
            fi
        else
            bad "translation-epe-$opts" "gpume-mv eval failed: $(tail -n 2 "$tmp/epe.err" | tr '\n' ' ')"
        fi
    done
    # the truth read from a pipe gives the file's table; a rectangle at the
    # far left of int's range holds no block
    printf '* 2 1\n' | "$MV" eval -truth /dev/stdin -vf "$G:algo=full:subpel=0" "$seq" > "$tmp/epe-pipe.txt" 2>&1
    if "$MV" eval -truth "$tmp/truth.txt" -vf "$G:algo=full:subpel=0" "$seq" > "$tmp/epe-file.txt" 2>&1 &&
       cmp -s "$tmp/epe-pipe.txt" "$tmp/epe-file.txt"; then
        ok truth-from-pipe
    else
        bad truth-from-pipe "$(tail -n 1 "$tmp/epe-pipe.txt")"
    fi
    printf '* 2 1 -2147483648 0 10 100000\n' > "$tmp/far-truth.txt"
    if "$MV" eval -truth "$tmp/far-truth.txt" -vf "$G:algo=full:subpel=0" "$seq" > "$tmp/epe-far.txt" 2>&1 &&
       [ "$(overall "$tmp/epe-far.txt" epe_blocks)" = 0 ]; then
        ok truth-far-rectangle
    else
        bad truth-far-rectangle "epe_blocks=$(overall "$tmp/epe-far.txt" epe_blocks), expected 0"
    fi
else
    bad translation "cannot make the translated sequence from $CLIPS/cityCC0.mpg"
fi

# --- pixels untouched -------------------------------------------------------------
md5_of() { # INPUT-ARGS... -- FILTER
    "$FFMPEG" -v error -nostdin "$@" -f md5 - 2>&1
}
for d in fwd bwd bi; do
    a=$(md5_of -f lavfi -i testsrc2=s=320x240:r=25:d=0.4 -vf null)
    b=$(md5_of -f lavfi -i testsrc2=s=320x240:r=25:d=0.4 -vf "$G:dir=$d")
    case $a in MD5=*) ;; *) a="no md5: $a" ;; esac
    if [ "$a" = "$b" ]; then ok "pixels-unchanged-$d"; else bad "pixels-unchanged-$d" "$a vs $b"; fi
done
a=$(md5_of -i "$CLIP" -an -fps_mode passthrough -vf null)
b=$(md5_of -i "$CLIP" -an -fps_mode passthrough -vf "$G:dir=bi:block=auto:algo=full")
if [ "$a" = "$b" ] && [ "${a#MD5=}" != "$a" ]; then ok pixels-unchanged-clip-bi; else bad pixels-unchanged-clip-bi "$a vs $b"; fi

# --- gpume-mv on other estimators and on decoder vectors -------------------------
if dump mestimate -frames 6 -vf mestimate "$CLIP"; then
    # (mestimate leaves motion_x, motion_y and motion_scale unset: whatever
    # the allocator returned, so they are not checked)
    check mestimate-dump "$tmp/mestimate.csv" "$AWK_LIB"'
        NR > 1 && $4 > 0 { n++; if ($5 != -1 && $5 != 1) die("source " $5) }
        END { if (!n) die("no mestimate vectors") }'
fi
if "$MV" eval -frames 6 -vf mestimate "$CLIP" > "$tmp/me.txt" 2> "$tmp/me.err"; then
    p=$(overall "$tmp/me.txt" psnr_fwd) c=$(overall "$tmp/me.txt" cover_fwd)
    if awk -v p="$p" -v c="$c" 'BEGIN { exit !(p > 25 && c > 0.99) }'; then ok mestimate-eval
    else bad mestimate-eval "psnr_fwd=$p cover_fwd=$c"; fi
else
    bad mestimate-eval "gpume-mv eval failed: $(tail -n 2 "$tmp/me.err" | tr '\n' ' ')"
fi
if dump export-mvs -frames 6 -export_mvs "$CLIP"; then
    check export-mvs-dump "$tmp/export-mvs.csv" "$AWK_LIB"'
        NR > 1 && $4 > 0 { n++; if ($14 != 4) die("h264 motion_scale " $14 ", expected 4") }
        END { if (!n) die("no decoder vectors") }'
fi
if dump jsonl -f jsonl -vf "$G:dir=bi" "$SRC"; then
    check jsonl "$tmp/jsonl.csv" "$AWK_LIB"'
        { n++; c = $0; sub(/.*"count":/, "", c); c += 0
          m = gsub(/"source":/, "&"); if (m != c) die("line " NR ": count " c ", " m " vectors")
          if ($0 !~ /^\{"frame":[0-9]+,"pts":[0-9]+,"pict_type":"[BP]",/ || $0 !~ /\]\}$/) die("line " NR ": " substr($0, 1, 80)) }
        END { if (n != 10) die(n " lines, expected 10") }'
fi

# --- gpume-mv: errors (its unit tests: tests/mvcheck.c) ----------------------
# expect_error NAME STATUS-PATTERN MESSAGE-PATTERN ARGS...
expect_error() {
    name=$1 st=$2 pat=$3
    shift 3
    "$MV" "$@" > "$tmp/out.txt" 2> "$tmp/err.txt"
    rc=$?
    if [ "$rc" -ne 0 ] && echo "$rc" | grep -qE "^($st)$" && grep -qiE "$pat" "$tmp/err.txt"; then ok "$name"
    else bad "$name" "exit $rc, stderr: $(head -n 2 "$tmp/err.txt" | tr '\n' ' ')"; fi
}
expect_error error-missing-file 1 "nonexistent.mp4" dump "$tmp/nonexistent.mp4"
expect_error error-bad-graph 1 "filter graph" dump -vf "gpume=nosuchoption=1" "$SRC"
expect_error error-bad-source 1 "filter graph" dump "lavfi:nosuchsource"
expect_error error-bad-format 2 "csv or jsonl" dump -f xml "$SRC"
expect_error error-bad-frames 2 "frames" dump -frames 0 "$SRC"
expect_error error-no-input 2 "no input" eval -vf null
expect_error error-rgb-eval 1 "8-bit YUV or gray" eval -vf format=rgb24 "$SRC"
printf '* 2 1\n3 x 1\n' > "$tmp/bad-truth.txt"
expect_error error-bad-truth 1 "bad-truth.txt:2" eval -truth "$tmp/bad-truth.txt" "$SRC"
: > "$tmp/empty-truth.txt"
expect_error error-empty-truth 1 "no truth lines" eval -truth "$tmp/empty-truth.txt" "$SRC"
printf '* 5 5\n\000\n* 2 2\n' > "$tmp/nul-truth.txt"
expect_error error-nul-truth 1 "NUL byte" eval -truth "$tmp/nul-truth.txt" "$SRC"
head -c 1000 /dev/urandom > "$tmp/garbage.mp4"
expect_error error-garbage-input 1 "garbage.mp4" dump "$tmp/garbage.mp4"

# --- gpume-mv: nothing on stdout from a run that fails before its first frame --
# (a header-only csv or table looked like a stream without frames)
# silent_failure NAME ARGS...: gpume-mv fails and prints nothing on stdout
silent_failure() {
    name=$1
    shift
    "$MV" "$@" > "$tmp/$name.out" 2> "$tmp/$name.err"
    rc=$?
    if [ "$rc" -ne 0 ] && [ ! -s "$tmp/$name.out" ]; then ok "$name"
    else bad "$name" "exit $rc, stdout: $(head -c 120 "$tmp/$name.out" | tr '\n' ' ')"; fi
}
silent_failure no-header-dump-missing-file dump "$tmp/nonexistent.mp4"
silent_failure no-header-eval-missing-file eval "$tmp/nonexistent.mp4"
silent_failure no-header-dump-garbage dump "$tmp/garbage.mp4"
silent_failure no-header-dump-bad-graph dump -vf "gpume=nosuchoption=1" "$SRC"
silent_failure no-header-eval-bad-graph eval -vf "gpume=nosuchoption=1" "$SRC"
# ... or whose graph gives frames eval cannot read, or fails at its first
# frame (mcfps without vectors)
silent_failure no-header-eval-rgb24 eval -frames 3 -vf "gpume=device=cpu,format=rgb24" "$SRC"
silent_failure no-header-dump-no-vectors dump -vf "mcfps=device=cpu" "$SRC"
silent_failure no-header-eval-no-vectors eval -vf "mcfps=device=cpu" "$SRC"

# --- gpume-mv: a new filter graph when the decoded frames change --------------
# PNG sequences whose frames change size or pixel format: gpume-mv, like the
# ffmpeg CLI, drains the graph and configures a new one for the new frames.
# png NAME FILTER PIX_FMT: one PNG of testsrc2 through FILTER
png() {
    "$FFMPEG" -v error -nostdin -f lavfi -i "testsrc2=s=64x48:d=0.04,$2" -frames:v 1 \
        -pix_fmt "$3" -y "$tmp/$1" 2>&1
}
if png size00.png null gray && png size01.png null gray &&
   png size02.png crop=32:32 gray && png size03.png crop=32:32 gray &&
   png fmt00.png crop=32:32 gray && png fmt01.png crop=32:32 monob &&
   png fmt02.png crop=32:32 monob && png fmt03.png crop=32:32 gray; then
    # 64x48 x2 then 32x32 x2, halved by crop: 32x24 (12 blocks of 8) then
    # 16x16 (4 blocks); in the old graph, crop and gpume would keep 32x24
    if dump rebuild-size -vf "crop=iw/2:ih/2:0:0,$G:block=8" "$tmp/size%02d.png"; then
        check rebuild-size "$tmp/rebuild-size.csv" "$AWK_LIB"'
            NR > 1 { n[$1] = $4; frames[$1] = 1 }
            END { if (length(frames) != 4) die(length(frames) " frames out of 4")
                  if (n[0] != 0 || n[1] != 12 || n[2] != 0 || n[3] != 4)
                      die("vectors per frame " n[0] " " n[1] " " n[2] " " n[3] ", expected 0 12 0 4") }'
    fi
    # the old graph's delayed frame comes out before the new graph starts
    if dump rebuild-size-bwd -vf "$G:dir=bwd:block=8" "$tmp/size%02d.png"; then
        check rebuild-size-bwd "$tmp/rebuild-size-bwd.csv" "$AWK_LIB"'
            NR > 1 { n[$1] = $4; src[$1] = $5; frames[$1] = 1 }
            END { if (length(frames) != 4) die(length(frames) " frames out of 4")
                  if (n[0] != 48 || src[0] != 1 || n[1] != 0 || n[2] != 16 || src[2] != 1 || n[3] != 0)
                      die("vectors per frame " n[0] " " n[1] " " n[2] " " n[3] ", expected 48 0 16 0") }'
    fi
    # gray, monob, monob, gray: format=gray converts the monob frames in their
    # own graph; in a graph configured for gray they would reach eval as monob
    if "$MV" eval -vf format=gray "$tmp/fmt%02d.png" > "$tmp/rebuild-format.txt" 2> "$tmp/rebuild-format.err"; then
        f=$(overall "$tmp/rebuild-format.txt" frames) p=$(evalcol "$tmp/rebuild-format.txt" 2 psnr0)
        if [ "$f" = 4 ] && [ "$p" = inf ]; then ok rebuild-format
        else bad rebuild-format "frames=$f, psnr0 of frame 2 (after frame 1, the same monob image) $p, expected 4 and inf"; fi
    else
        bad rebuild-format "gpume-mv eval failed: $(tail -n 2 "$tmp/rebuild-format.err" | tr '\n' ' ')"
    fi
else
    bad rebuild-inputs "cannot make the PNG sequences"
fi

finish
