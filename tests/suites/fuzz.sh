#!/bin/sh
# The fuzz target's inputs as regression tests: tests/fuzz/target_gpume_fuzzer.c
# built as a plain program (-DGPUME_FUZZ_MAIN) against the FFmpeg of this
# build, run on the seed corpus (tests/fuzz/corpus: format and size changes,
# refusals, the 16383 limit, timestamps, EOF after one frame, ...) and on the
# inputs that once failed (tests/fuzz/regressions), under valgrind when it is
# installed. Every input is checked as the fuzzer checks it (vectors, side
# data, restarts, refusals); a failed check aborts. make fuzz runs the real
# fuzzer (clang, ASan, UBSan).
#
# environment (tests/run.sh): BUILDDIR FFMPEG_TREE FFMPEG_BUILD. Prints
# "ok NAME" or "FAIL NAME: detail" per input and "N passed, N failed" last.
set -u

: "${BUILDDIR:=build}" "${FFMPEG_TREE:=$BUILDDIR/ffmpeg-tree}" "${FFMPEG_BUILD:=$BUILDDIR/ffmpeg}"
: "${POCL_CACHE_DIR:=$BUILDDIR/pocl-cache}" "${CC:=cc}"
export POCL_CACHE_DIR
# OpenCL cases are slow (kernels compiled by PoCL on the first run): only
# with GPUME_FUZZ_OPENCL=1, else those inputs run on the CPU
[ "${GPUME_FUZZ_OPENCL:-0}" = 1 ] || { GPUME_FUZZ_NO_OPENCL=1; export GPUME_FUZZ_NO_OPENCL; }
pass=0 fail=0
bin=$BUILDDIR/tests/fuzz-replay
mkdir -p "$BUILDDIR/tests"

libs=
for l in avfilter postproc swscale avformat avcodec swresample avutil; do
    [ -f "$FFMPEG_BUILD/lib$l/lib$l.a" ] && libs="$libs $FFMPEG_BUILD/lib$l/lib$l.a"
done
extra=$(sed -n 's/^EXTRALIBS-[a-z]*=//p;s/^EXTRALIBS=//p' "$FFMPEG_BUILD/ffbuild/config.mak" 2>/dev/null | tr '\n' ' ')
# shellcheck disable=SC2086 # word lists
if ! $CC -O1 -g -Wall -DGPUME_FUZZ_MAIN -I"$FFMPEG_TREE" -I"$FFMPEG_BUILD" -o "$bin" \
        tests/fuzz/target_gpume_fuzzer.c $libs $extra -lm -lpthread > "$bin.log" 2>&1; then
    echo "FAIL build: $(tail -n 3 "$bin.log" | tr '\n' ' ')"
    echo "0 passed, 1 failed"
    exit 1
fi

vg=
if command -v valgrind > /dev/null 2>&1; then
    vg="valgrind -q --error-exitcode=100 --leak-check=full --errors-for-leak-kinds=definite"
else
    echo "note: valgrind not installed: the inputs run without it"
fi
for f in tests/fuzz/corpus/* tests/fuzz/regressions/*; do
    [ -f "$f" ] || continue
    # shellcheck disable=SC2086 # vg: a command prefix
    if out=$(timeout 300 $vg "$bin" "$f" 2>&1); then
        pass=$((pass + 1))
        echo "ok $f"
    else
        fail=$((fail + 1))
        echo "FAIL $f: $(echo "$out" | grep -m3 'check failed\|Invalid\|uninitialised\|definitely' | tr '\n' ' ' | cut -c1-300)"
    fi
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
