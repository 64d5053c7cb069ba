#!/bin/sh
# Every command the README and docs/ print, run as written: lines of the
# README's and docs/*.md's code blocks and of docs/*.texi's @example blocks
# that start with ffmpeg, ffprobe, build/ffmpeg/..., build/gpume-mv, printf or
# cp build/clips (continuation lines joined). They run in a scratch folder
# whose build/ is the build directory and whose PATH starts with the build's
# ffmpeg, as the README says, on the clips it names (in.mp4 is
# build/clips/phone.mp4, HEVC + AAC). Checks: exit status 0; an .mp4 written
# holds H.264 video and, as its input, AAC audio (video alone with -an);
# metadata=print shows lavfi.gpume keys. Commands that need CUDA are
# skipped without an NVIDIA device. Needs the full build (libx264, libx265,
# aac). First, with any build, the tree's doc/filters.texi made into HTML
# by makeinfo.
set -u
: "${BUILDDIR:=build}" "${FFMPEG:=$BUILDDIR/ffmpeg/ffmpeg}" "${FFPROBE:=$BUILDDIR/ffmpeg/ffprobe}"
pass=0 fail=0 skip=0

work=$BUILDDIR/tests/examples
rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)

# the documentation as FFmpeg's doc/Makefile makes its HTML pages where
# makeinfo is found (the default of its configure): every @ref of the
# filters' sections must name a node of doc/filters.texi
texi=${FFMPEG_TREE:-$BUILDDIR/ffmpeg-tree}/doc/filters.texi
if ! command -v makeinfo > /dev/null; then
    echo "skipped: doc/filters.texi as HTML (no makeinfo: Debian's texinfo)"
    skip=$((skip + 1))
elif makeinfo --html -I "$(dirname "$texi")" --no-split -D config-not-all \
        --init-file="$(dirname "$texi")/t2h.pm" --output "$work/filters.html" "$texi" > "$work/makeinfo.log" 2>&1; then
    echo "ok doc/filters.texi as HTML (makeinfo)"
    pass=$((pass + 1))
else
    echo "FAIL doc/filters.texi as HTML: $(grep -m 3 'filters.texi:' "$work/makeinfo.log" | tr '\n' ' ')"
    fail=$((fail + 1))
fi

if ! "$FFMPEG" -hide_banner -encoders 2>/dev/null | grep -q libx264; then
    echo "skipped: the examples need the full build (this ffmpeg has no libx264)"
    echo "$pass passed, $fail failed, $((skip + 1)) skipped"
    [ "$fail" -eq 0 ]
    exit
fi
ln -s "$(cd "$BUILDDIR" && pwd)" "$work/build"
bindir=$(cd "$(dirname "$FFMPEG")" && pwd)

# the commands: "FILE<TAB>COMMAND" per line
cmds=$work/commands
for f in README.md docs/*.md docs/*.texi; do
    [ -f "$f" ] || continue
    case $f in
    *.texi) awk '/^@example/ { e = 1; next } /^@end example/ { e = 0; next } e { print }' "$f" |
            sed -e 's/@{/{/g' -e 's/@}/}/g' -e 's/@@/@/g' ;;
    *)      awk '/^```/ { f = !f; next } f || /^    / { sub(/^    /, ""); print; next } { print "" }' "$f" ;;
    esac | awk -v file="$f" '
        # join continuation lines; keep the commands we can run
        /\\$/ { sub(/\\$/, ""); buf = buf $0; next }
        { line = buf $0; buf = "" }
        { sub(/[ \t]+#.*$/, "", line); sub(/^[ \t]+/, "", line) }
        line ~ /^(ffmpeg|ffprobe|build\/ffmpeg\/ffmpeg|build\/ffmpeg\/ffprobe|build\/gpume-mv|cp build\/clips\/[^ ]+|printf)[ ]/ {
            gsub(/[ \t]+/, " ", line); print file "\t" line
        }'
done > "$cmds"

n=$(wc -l < "$cmds")
if [ "$n" -lt 5 ]; then
    echo "FAIL examples: only $n commands found in README.md and docs/"
    echo "0 passed, 1 failed"
    exit 1
fi
# in.mp4 first (the README's cp command makes it), then the rest in order
tab=$(printf '\t')
{ grep "${tab}cp " "$cmds"; grep -v "${tab}cp " "$cmds"; } > "$cmds.sorted"

have_cuda=no
[ -e /dev/nvidia0 ] && have_cuda=yes

# the clips tools/fetch-clips.sh fetches only when asked (--extra, --more,
# --held-out): a command that reads one not fetched is skipped, naming it
optional_clips=$(sed -n 's/^ *--[a-z-]*) *names="\$names \(.*\)"$/\1/p; s/^ *names="\$names \(.*\)"$/\1/p' tools/fetch-clips.sh)

i=0
while IFS="$tab" read -r file cmd; do
    i=$((i + 1))
    log=$work/cmd$i.log
    case $cmd in
    *cuda*)
        if [ "$have_cuda" = no ]; then
            echo "skipped: ($file) $cmd: no NVIDIA device"
            skip=$((skip + 1))
            continue
        fi ;;
    esac
    missing=
    for c in $optional_clips; do
        case $cmd in
        *"build/clips/$c"*) [ -f "$BUILDDIR/clips/$c" ] || missing=$c ;;
        esac
    done
    if [ -n "$missing" ]; then
        echo "skipped: ($file) $cmd: $missing not fetched (tools/fetch-clips.sh --extra, --more or --held-out)"
        skip=$((skip + 1))
        continue
    fi
    rm -f "$work"/out*.mp4
    (cd "$work" && PATH="$bindir:$work/build:$PATH" eval "$cmd" < /dev/null) > "$log" 2>&1
    rc=$?
    if [ "$rc" -ne 0 ]; then
        echo "FAIL ($file) $cmd: exit status $rc; last lines of $log:"
        tail -n 5 "$log"
        fail=$((fail + 1))
        continue
    fi
    why=
    for o in $(echo "$cmd" | tr ' ' '\n' | grep -E '^[A-Za-z0-9_.-]+\.mp4$' | tail -n 1); do
        [ "$o" != in.mp4 ] || continue
        streams=$("$FFPROBE" -v error -show_entries stream=codec_name -of csv=p=0 "$work/$o" 2>&1 | tr '\n' ' ')
        case $cmd in
        *" -an "*)      # the sound left out: H.264 video alone
            [ "$streams" = "h264 " ] || why="$o holds '$streams', not H.264 video alone (-an)" ;;
        *)
            case $streams in
            *h264*aac*|*aac*h264*) ;;
            *) why="$o holds '$streams', not H.264 video with AAC audio" ;;
            esac ;;
        esac
    done
    case $cmd in
    *metadata=print*) grep -q 'lavfi.gpume' "$log" || why="metadata=print showed no lavfi.gpume key" ;;
    esac
    if [ -n "$why" ]; then
        echo "FAIL ($file) $cmd: $why"
        fail=$((fail + 1))
    else
        echo "ok ($file) $cmd"
        pass=$((pass + 1))
    fi
done < "$cmds.sorted"

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
