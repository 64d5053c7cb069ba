#!/bin/sh
# The fuzz target's inputs as regression tests: tests/fuzz/target_gpume_fuzzer.c
# built as a plain program (-DGPUME_FUZZ_MAIN) against the FFmpeg of this
# build, run on the seed corpus (tests/fuzz/corpus: format and size changes,
# refusals, the 16383 limit, timestamps, EOF after one frame, ...) and on the
# inputs that once failed (tests/fuzz/regressions), under valgrind when it is
# installed. Every input is checked as the fuzzer checks it (vectors, side
# data, restarts, refusals); a failed check aborts. make fuzz runs the real
# fuzzer (clang, ASan, UBSan).
# The same for the target of mcfps on vectors of any producer
# (tests/fuzz/target_mcfps_fuzzer.c): its seeds (tests/fuzz/corpus-mcfps:
# odd rates, every mode and option, invalid values, vectors with extreme
# fields, arrays empty or of a partial vector, lavfi.gpume.* keys of any
# text, captions, timestamps, size and format changes, the end at any point)
# and tests/fuzz/regressions-mcfps, all in one process: they are many and
# small, and a start under valgrind costs more than an input. make
# fuzz-mcfps runs that fuzzer.
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

# the mcfps target: an input that fails is the first without its "ok" line,
# and the inputs after it run again; where every input ran and valgrind
# still failed, one by one, to name the input
bin=$BUILDDIR/tests/fuzz-replay-mcfps
# shellcheck disable=SC2086 # word lists
if ! $CC -O1 -g -Wall -DGPUME_FUZZ_MAIN -I"$FFMPEG_TREE" -I"$FFMPEG_BUILD" -o "$bin" \
        tests/fuzz/target_mcfps_fuzzer.c $libs $extra -lm -lpthread > "$bin.log" 2>&1; then
    echo "FAIL build mcfps: $(tail -n 3 "$bin.log" | tr '\n' ' ')"
    fail=$((fail + 1))
    files=
else
    files=$(for f in tests/fuzz/corpus-mcfps/* tests/fuzz/regressions-mcfps/*; do
                [ -f "$f" ] && echo "$f"; done)
fi
detail() { # OUTPUT STATUS
    d=$(echo "$1" | grep -m3 'check failed\|Invalid\|uninitialised\|definitely\|runtime error' |
        tr '\n' ' ' | cut -c1-300)
    echo "${d:-exit status $2}"
}
while [ -n "$files" ]; do
    # shellcheck disable=SC2086 # vg: a command prefix; files: a word list
    out=$(timeout 300 $vg "$bin" $files 2>&1)
    rc=$?
    done_ok='' bad='' rest=''
    for f in $files; do
        if [ -n "$bad" ]; then
            rest="$rest $f"
        elif echo "$out" | grep -qxF "ok $f"; then
            done_ok="$done_ok $f"
        else
            bad=$f
        fi
    done
    if [ "$rc" -ne 0 ] && [ -z "$bad" ]; then
        for f in $files; do
            # shellcheck disable=SC2086
            if out=$(timeout 300 $vg "$bin" "$f" 2>&1); then
                pass=$((pass + 1))
                echo "ok $f"
            else
                rc=$?
                fail=$((fail + 1))
                echo "FAIL $f: $(detail "$out" $rc)"
            fi
        done
        break
    fi
    for f in $done_ok; do
        pass=$((pass + 1))
        echo "ok $f"
    done
    [ -n "$bad" ] || break
    fail=$((fail + 1))
    echo "FAIL $bad: $(detail "$out" $rc)"
    files=$rest
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
