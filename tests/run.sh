#!/bin/sh
# gpume test driver (make check). Runs every suite; each prints its own
# closing line "N passed, N failed[, N skipped]", which this script adds up.
# A suite that crashes or prints no closing line counts as one failure.
#
# environment (from the Makefile): BUILDDIR FFMPEG FFPROBE FFMPEG_TREE
#   FFMPEG_BUILD CLIPS GPUME_CUDA GPUME_OPENCL
# GPUME_SUITES="unit filter" limits the run to the named suites.
set -u

: "${BUILDDIR:=build}" "${FFMPEG_BUILD:=$BUILDDIR/ffmpeg}" "${FFMPEG_TREE:=$BUILDDIR/ffmpeg-tree}"
: "${FFMPEG:=$FFMPEG_BUILD/ffmpeg}" "${FFPROBE:=$FFMPEG_BUILD/ffprobe}" "${CLIPS:=$BUILDDIR/clips}"
: "${GPUME_CUDA:=no}" "${GPUME_OPENCL:=no}"
export BUILDDIR FFMPEG_BUILD FFMPEG_TREE FFMPEG FFPROBE CLIPS GPUME_CUDA GPUME_OPENCL

# valgrind, wherever a suite runs it, leaves out what is not the filters' code
VALGRIND_OPTS="${VALGRIND_OPTS:+$VALGRIND_OPTS }--suppressions=$(cd "$(dirname "$0")" && pwd)/valgrind.supp"
export VALGRIND_OPTS

logs=$BUILDDIR/tests/logs
mkdir -p "$logs"
total_pass=0 total_fail=0 total_skip=0

# suite NAME COMMAND...: run, show its closing line, add its counts
suite() {
    name=$1
    shift
    case " ${GPUME_SUITES:-$name} " in *" $name "*) ;; *) return 0 ;; esac
    echo "== $name: $*"
    start=$(date +%s)
    "$@" > "$logs/$name.log" 2>&1
    rc=$?
    line=$(grep -E '^([A-Za-z-]+: )?[0-9]+ passed, [0-9]+ failed' "$logs/$name.log" | tail -n 1)
    p=$(echo "$line" | sed -n 's/.*\b\([0-9][0-9]*\) passed.*/\1/p')
    f=$(echo "$line" | sed -n 's/.* \([0-9][0-9]*\) failed.*/\1/p')
    k=$(echo "$line" | sed -n 's/.* \([0-9][0-9]*\) skipped.*/\1/p')
    grep -E '^(FAIL|skipped)' "$logs/$name.log" | head -n 20
    if [ -z "$line" ]; then
        echo "$name: no result line (exit status $rc); last lines of $logs/$name.log:"
        tail -n 15 "$logs/$name.log"
        p=0 f=1 k=0
    elif [ "$rc" -ne 0 ] && [ "${f:-0}" -eq 0 ]; then
        echo "$name: exit status $rc"
        f=1
    fi
    echo "$name: ${p:-0} passed, ${f:-0} failed, ${k:-0} skipped ($(($(date +%s) - start)) s)"
    total_pass=$((total_pass + ${p:-0}))
    total_fail=$((total_fail + ${f:-0}))
    total_skip=$((total_skip + ${k:-0}))
}

tmk() { make --no-print-directory -f tests/tests.mak BUILDDIR="$BUILDDIR" \
            FFMPEG_TREE="$FFMPEG_TREE" FFMPEG_BUILD="$FFMPEG_BUILD" GPUME_CUDA="$GPUME_CUDA" "$@"; }

build_and_run() { # TARGET ARGS...: build a test program, then run it
    t=$1
    shift
    tmk "$BUILDDIR/tests/$t" && "$BUILDDIR/tests/$t" "$@"
}

suite unit      build_and_run checkme
suite unit-asan env ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
                    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
                    sh -c 'make --no-print-directory -f tests/tests.mak BUILDDIR="$BUILDDIR" FFMPEG_TREE="$FFMPEG_TREE" FFMPEG_BUILD="$FFMPEG_BUILD" "$BUILDDIR/tests/checkme-asan" && "$BUILDDIR/tests/checkme-asan" --quick'
suite mvcheck   build_and_run mvcheck
suite cuda      build_and_run backendcheck --backend=cuda
suite opencl    build_and_run backendcheck --backend=opencl
# mcfps's GPU backends against its CPU backend; the real frames are three of
# cockatoo.mp4 (make clips) scaled to 176x144, else of testsrc2 moving
mcfps_backendcheck() { # BACKEND
    real=$BUILDDIR/tests/mcfps-real-176x144.yuv
    if [ ! -s "$real" ]; then
        if [ -f "$CLIPS/cockatoo.mp4" ]; then
            set -- "$1" -i "$CLIPS/cockatoo.mp4" -vf "select='gte(n\,40)',scale=176:144"
        else
            set -- "$1" -f lavfi -i "testsrc2=s=352x288:r=25,crop=176:144:x=3*n:y=n"
        fi
        b=$1; shift
        "$FFMPEG" -nostdin -v error "$@" -an -pix_fmt yuv420p -frames:v 3 -f rawvideo -y "$real" ||
            return 1
        set -- "$b"
    fi
    tmk "$BUILDDIR/tests/mcfps-backendcheck" &&
        "$BUILDDIR/tests/mcfps-backendcheck" --backend="$1" --real="$real:176x144:3"
}
suite mcfps-cuda   mcfps_backendcheck cuda
suite mcfps-opencl mcfps_backendcheck opencl
for s in tests/suites/*.sh; do
    [ -f "$s" ] || continue
    n=${s##*/}
    suite "${n%.sh}" sh "$s"
done

echo
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" -eq 0 ]
