#!/bin/sh
# FFmpeg's run-time conventions for gpume: the timeline option, commands
# (sendcmd) that change options between frames, and ffprobe -show_frames
# listing the per-frame metadata and side data. Every check compares frame
# hashes of two real runs (codecview draws the vectors, so a frame's hash
# depends on them): a run with enable= or commands must equal, frame for
# frame, the runs it is made of (trim + gpume with the options in force, and
# plain frames outside the timeline).
#
# environment (tests/run.sh): FFMPEG FFPROBE. Prints "ok name" or
# "FAIL name: detail", and "N passed, N failed" last.
set -u

: "${BUILDDIR:=build}" "${FFMPEG:=$BUILDDIR/ffmpeg/ffmpeg}" "${FFPROBE:=$BUILDDIR/ffmpeg/ffprobe}"
pass=0 fail=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpume-runtime.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

ok()  { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1: $2"; }

# 20 frames of 320x240: testsrc2 seen through a window moving by (2, 1)
SRC="testsrc2=s=400x300:r=25:d=0.8,crop=320:240:x=2*n:y=n"
DRAW="codecview=mv=pf+bf+bb"

# hashes NAME FILTERS: one md5 per frame, in order, into $tmp/NAME
hashes() {
    if ! "$FFMPEG" -nostdin -v error -f lavfi -i "$SRC" -vf "$2" -f framemd5 - \
            > "$tmp/$1.md5" 2> "$tmp/$1.err"; then
        bad "$1" "ffmpeg failed: $(tail -n 3 "$tmp/$1.err")"
        : > "$tmp/$1"
        return 1
    fi
    grep -v '^#' "$tmp/$1.md5" | awk -F', *' '{ print $6 }' > "$tmp/$1"
}

# same NAME EXPECTED ACTUAL: frame hashes equal, and the run drew vectors
same() {
    if [ ! -s "$tmp/$3" ] || ! cmp -s "$tmp/$2" "$tmp/$3"; then
        bad "$1" "frame hashes differ from the expected run (frames $(diff "$tmp/$2" "$tmp/$3" | grep -c '^>') of $(wc -l < "$tmp/$3"))"
    else
        ok "$1"
    fi
}

# the plain frames, and gpume on all of them: vectors change the frames
hashes plain "$DRAW"
hashes all "gpume=device=cpu,$DRAW"
if [ "$(paste -d' ' "$tmp/plain" "$tmp/all" | awk '$1 != $2' | wc -l)" -ge 15 ]; then
    ok "vectors-drawn"
else
    bad "vectors-drawn" "gpume's vectors changed fewer than 15 of 20 frames"
fi

# timeline: frames 5..12 carry the vectors of a run on frames 5..12 alone,
# the others pass untouched; with dir=bi the last enabled frame has forward
# vectors only (as at the end of a stream)
for dir in fwd bi; do
    hashes "tl-$dir" "gpume=device=cpu:dir=$dir:enable='between(n,5,12)',$DRAW"
    hashes "tl-$dir-in" "trim=start_frame=5:end_frame=13,gpume=device=cpu:dir=$dir,$DRAW"
    { sed -n 1,5p "$tmp/plain"; cat "$tmp/tl-$dir-in"; sed -n '14,$p' "$tmp/plain"; } > "$tmp/tl-$dir-want"
    same "timeline-$dir" "tl-$dir-want" "tl-$dir"
done
# frames outside the timeline carry no vectors, not even an earlier gpume's
hashes tl-stale "gpume=device=cpu,gpume=device=cpu:enable='between(n,5,12)',$DRAW"
same "timeline-no-stale-vectors" "tl-fwd-want" "tl-stale"
# the frames outside the timeline, and only they, carry lavfi.gpume.disabled
# (an earlier gpume's keys are removed, this one is set); the first frame
# enabled again, and only it, lavfi.gpume.restart
"$FFMPEG" -nostdin -v error -f lavfi -i "$SRC" \
    -vf "gpume=device=cpu,gpume=device=cpu:enable='not(between(n,5,12))',metadata=print:file=-" \
    -f null - > "$tmp/tl-keys.txt" 2> "$tmp/tl-keys.err"
keyed() { awk -v k="$2" '/^frame:/ { n = $1; sub(/frame:/, "", n) } $0 == k { printf "%d ", n }' "$1"; }
got=$(keyed "$tmp/tl-keys.txt" lavfi.gpume.disabled=1)
restarts=$(keyed "$tmp/tl-keys.txt" lavfi.gpume.restart=1)
if [ "$got" = "5 6 7 8 9 10 11 12 " ] && [ "$restarts" = "13 " ] &&
   grep -q "lavfi.gpume.mean_sad" "$tmp/tl-keys.txt"; then
    ok "timeline-disabled-key"
else
    bad "timeline-disabled-key" "frames with lavfi.gpume.disabled: ${got:-none}; with lavfi.gpume.restart: ${restarts:-none}"
fi
# commands with frames 3 and 9 restart there: those frames, and only they,
# carry lavfi.gpume.restart
"$FFMPEG" -nostdin -v error -f lavfi -i "$SRC" \
    -vf "sendcmd=c='0.12 gpume range 32;0.36 gpume lambda 4',gpume=device=cpu:dir=bi,metadata=print:file=-" \
    -f null - > "$tmp/cmd-keys.txt" 2> "$tmp/cmd-keys.err"
restarts=$(keyed "$tmp/cmd-keys.txt" lavfi.gpume.restart=1)
if [ "$restarts" = "3 9 " ]; then
    ok "command-restart-key"
else
    bad "command-restart-key" "frames with lavfi.gpume.restart: ${restarts:-none}"
fi
# enabled, off, enabled again with the same frames and options: the second
# part starts a new sequence (no temporal predictor from the first) on the
# backend set up once
TOGGLE="gpume=device=cpu:dir=bi:pred=temporal:enable='not(between(n,5,7))'"
hashes tl-toggle "$TOGGLE,$DRAW"
hashes tl-toggle-a "trim=end_frame=5,gpume=device=cpu:dir=bi:pred=temporal,$DRAW"
hashes tl-toggle-b "trim=start_frame=8,gpume=device=cpu:dir=bi:pred=temporal,$DRAW"
{ cat "$tmp/tl-toggle-a"; sed -n 6,8p "$tmp/plain"; cat "$tmp/tl-toggle-b"; } > "$tmp/tl-toggle-want"
same "timeline-toggle" "tl-toggle-want" "tl-toggle"
"$FFMPEG" -nostdin -v verbose -f lavfi -i "$SRC" -vf "$TOGGLE" -f null - > "$tmp/tl-toggle.log" 2>&1
setups=$(grep -c 'estimating [0-9x]* frames' "$tmp/tl-toggle.log")
if [ "$setups" = 1 ]; then
    ok "timeline-toggle-setups"
else
    bad "timeline-toggle-setups" "$setups set-ups for one frame size and one set of options"
fi
# t-based expression, as the docs write it
hashes tl-t "gpume=device=cpu:enable='between(t,0.2,0.48)',$DRAW"
same "timeline-t" "tl-fwd-want" "tl-t"
# the frame size changes while the timeline is off: the frames of runs on
# each enabled part alone, and one set-up for each size (the re-enabled
# part starts at the new size at once)
RS="scale=w='if(gte(n,8),400,320)':h='if(gte(n,8),300,240)':eval=frame"
hashes tl-rs "$RS,gpume=device=cpu:dir=bi:enable='not(between(n,5,12))',$DRAW"
hashes tl-rs-a "$RS,trim=end_frame=5,gpume=device=cpu:dir=bi,$DRAW"
hashes tl-rs-off "$RS,trim=start_frame=5:end_frame=13,$DRAW"
hashes tl-rs-b "$RS,trim=start_frame=13,gpume=device=cpu:dir=bi,$DRAW"
cat "$tmp/tl-rs-a" "$tmp/tl-rs-off" "$tmp/tl-rs-b" > "$tmp/tl-rs-want"
same "timeline-size-change" "tl-rs-want" "tl-rs"
"$FFMPEG" -nostdin -v verbose -f lavfi -i "$SRC" \
    -vf "$RS,gpume=device=cpu:dir=bi:enable='not(between(n,5,12))'" -f null - > "$tmp/tl-rs.log" 2>&1
setups=$(grep -o 'estimating [0-9x]* frames' "$tmp/tl-rs.log" | tr '\n' ' ')
if [ "$setups" = "estimating 320x240 frames estimating 400x300 frames " ]; then
    ok "timeline-size-change-setups"
else
    bad "timeline-size-change-setups" "set-ups: ${setups:-none}"
fi

# command NAME OPTIONS COMMAND NEWOPTIONS: the command sent with frame 5
# takes effect on frame 5, which starts a new sequence with NEWOPTIONS;
# frames 0..4 are those of a run with OPTIONS on frames 0..4
command() {
    hashes "cmd-$1" "sendcmd=c='0.2 gpume $3',gpume=device=cpu:$2,$DRAW"
    hashes "cmd-$1-a" "trim=end_frame=5,gpume=device=cpu:$2,$DRAW"
    hashes "cmd-$1-b" "trim=start_frame=5,gpume=device=cpu:$4,$DRAW"
    cat "$tmp/cmd-$1-a" "$tmp/cmd-$1-b" > "$tmp/cmd-$1-want"
    same "command-$1" "cmd-$1-want" "cmd-$1"
}
command lambda   "algo=hme"                "lambda 64"          "algo=hme:lambda=64"
command range    "algo=full:range=8"       "range 48"           "algo=full:range=48"
command algo     "algo=hme:dir=bi"         "algo full"          "algo=full:dir=bi"
command block    "algo=full"               "block auto"         "algo=full:block=auto"
command subpel   "algo=lfs:pred=temporal"  "subpel 0"           "algo=lfs:pred=temporal:subpel=0"
# a command that sets the value in force changes nothing: no new sequence,
# the frames of a run without it
hashes cmd-same "sendcmd=c='0.2 gpume lambda 2',gpume=device=cpu:lambda=2,$DRAW"
hashes cmd-same-want "gpume=device=cpu:lambda=2,$DRAW"
same "command-same-value" "cmd-same-want" "cmd-same"
# nor do commands that change a value and then put it back before the next
# frame, and a command refused after one that changed nothing
hashes cmd-back "sendcmd=c='0.2 gpume range 8, gpume range auto',gpume=device=cpu,$DRAW"
same "command-changed-back" "all" "cmd-back"
hashes cmd-refused "sendcmd=c='0.2 gpume lambda 2, gpume ctu 8',gpume=device=cpu:lambda=2,$DRAW"
same "command-same-then-refused" "cmd-same-want" "cmd-refused"
# an option value the filter cannot use (block larger than ctu): the
# command is refused with an error line, and nothing changes: the frames
# are those of a run without it
hashes cmd-invalid "sendcmd=c='0.2 gpume ctu 16',gpume=device=cpu:algo=full:block=32,$DRAW"
hashes cmd-invalid-want "gpume=device=cpu:algo=full:block=32,$DRAW"
same "command-invalid" "cmd-invalid-want" "cmd-invalid"
if grep -q 'block=32 is larger than ctu=16' "$tmp/cmd-invalid.err"; then
    ok "command-invalid-message"
else
    bad "command-invalid-message" "no error line for the refused command: $(head -n 3 "$tmp/cmd-invalid.err")"
fi
# a command (refused, or accepted), then frames of a size gpume refuses:
# the size is the error, once, and no command is blamed for it
for c in "ctu 16" "range 9"; do
    n="command-then-refused-size-${c% *}"
    "$FFMPEG" -nostdin -v warning -f lavfi -i "testsrc2=s=64x48:r=25:d=0.2" \
        -vf "sendcmd=c='0.04 gpume $c',scale=w='if(gte(n,3),16384,64)':h=16:eval=frame,gpume=device=cpu:algo=full:block=32" \
        -f null - > "$tmp/$n.err" 2>&1
    if [ "$(grep -c 'frame size 16384x16: width and height must be at most' "$tmp/$n.err")" -eq 1 ] &&
       ! grep -q 'options set by the last commands\|changed from 0x0' "$tmp/$n.err"; then
        ok "$n"
    else
        bad "$n" "$(grep 'gpume' "$tmp/$n.err" | tail -n 3 | tr '\n' ' ')"
    fi
done
# a command for an option that cannot change while running is refused
# (sendcmd shows the reply at the verbose level); lambda is accepted
"$FFMPEG" -nostdin -v verbose -f lavfi -i "$SRC" \
    -vf "sendcmd=c='0.2 gpume device cpu; 0.3 gpume lambda 8',gpume=device=cpu" -f null - > "$tmp/dev.err" 2>&1
if grep -q 'Command reply for command #0: ret:Function not implemented' "$tmp/dev.err" &&
   grep -q 'Command reply for command #0: ret:Success' "$tmp/dev.err"; then
    ok "command-device"
else
    bad "command-device" "replies: $(grep 'Command reply' "$tmp/dev.err" | tr '\n' ' ')"
fi

# ffprobe -show_frames: frame 0 without vectors or gpume keys; every other
# frame with the side data, pict_type P, mean_sad and scene_score, and the
# mean_sad that metadata=print shows for the same frame
if "$FFPROBE" -v error -f lavfi -i "$SRC,gpume=device=cpu" -show_frames \
        -show_entries frame=pict_type:frame_tags:frame_side_data=side_data_type -of flat \
        > "$tmp/probe" 2> "$tmp/probe.err"; then
    r=$(awk -F= '
        /^frames\.frame\.[0-9]+\./ {
            split($1, k, "."); n = k[3]
            if (n + 1 > nb) nb = n + 1
            if ($1 ~ /pict_type$/) pt[n] = $2
            if ($1 ~ /tags\.lavfi_gpume_mean_sad$/) sad[n] = $2
            if ($1 ~ /tags\.lavfi_gpume_scene_score$/) sc[n] = $2
            if ($2 ~ /Motion vectors/) mv[n] = 1
        }
        END {
            if (nb != 20) { print "frames: " nb; exit }
            if (mv[0] || sad[0] != "") { print "frame 0 has vectors or mean_sad"; exit }
            for (i = 1; i < nb; i++)
                if (!mv[i] || pt[i] != "\"P\"" || sad[i] == "" || sc[i] == "") {
                    print "frame " i ": vectors " mv[i] ", pict_type " pt[i] ", mean_sad " sad[i] ", scene_score " sc[i]; exit
                }
            print "ok " sad[7]
        }' "$tmp/probe")
    case $r in
    ok*)
        want=$("$FFMPEG" -nostdin -v error -f lavfi -i "$SRC" -vf "gpume=device=cpu,metadata=print:file=-" -f null - 2>/dev/null |
               awk '/^frame:7 /{ f = 1; next } /^frame:/{ f = 0 } f && /lavfi.gpume.mean_sad=/ { sub(/.*=/, ""); print }')
        if [ -n "$want" ] && [ "\"$want\"" = "${r#ok }" ]; then
            ok "ffprobe-show-frames"
        else
            bad "ffprobe-show-frames" "frame 7 mean_sad ${r#ok } in ffprobe, '$want' in metadata=print"
        fi ;;
    *) bad "ffprobe-show-frames" "$r" ;;
    esac
else
    bad "ffprobe-show-frames" "ffprobe failed: $(tail -n 3 "$tmp/probe.err")"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
