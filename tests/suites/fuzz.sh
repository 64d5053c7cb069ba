#!/bin/sh
# The fuzz targets' inputs as regression tests. Each target
# (tests/fuzz/target_gpume_fuzzer.c, tests/fuzz/target_mcfps_fuzzer.c) is
# built as a plain program (-DGPUME_FUZZ_MAIN) against the FFmpeg of this
# build and runs its seeds and the inputs that once failed, under valgrind
# when it is installed:
#  - gpume: tests/fuzz/corpus (format and size changes, refusals, the 16383
#    limit, timestamps, EOF after one frame, ...) and tests/fuzz/regressions;
#  - mcfps on vectors of any producer: tests/fuzz/corpus-mcfps (odd rates,
#    every mode and option, invalid values, vectors with extreme fields,
#    arrays empty or of a partial vector, lavfi.gpume.* keys of any text,
#    captions, timestamps, size and format changes, the end at any point)
#    and tests/fuzz/regressions-mcfps.
# Every input is checked as the fuzzer checks it; a failed check aborts.
# A target's inputs run in one process: a start under valgrind costs more
# than most inputs. make fuzz and make fuzz-mcfps run the real fuzzers
# (clang, ASan, UBSan).
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
mkdir -p "$BUILDDIR/tests"

vg=
if command -v valgrind > /dev/null 2>&1; then
    vg="valgrind -q --error-exitcode=100 --leak-check=full --errors-for-leak-kinds=definite"
else
    echo "note: valgrind not installed: the inputs run without it"
fi

detail() { # OUTPUT STATUS
    d=$(echo "$1" | grep -m3 'check failed\|Invalid\|uninitialised\|definitely\|runtime error' |
        tr '\n' ' ' | cut -c1-300)
    echo "${d:-exit status $2}"
}

# replay TARGET DIR...: build tests/fuzz/TARGET.c as a replay program and run
# the files of the DIRs in it. An input that fails is the first without its
# "ok" line, and the inputs after it run again; where every input ran and
# valgrind still failed, they run one by one, to name the input.
replay() {
    target=$1
    shift
    bin=$BUILDDIR/tests/$target-replay
    if ! make --no-print-directory -f tests/tests.mak BUILDDIR="$BUILDDIR" FFMPEG_TREE="$FFMPEG_TREE" \
            FFMPEG_BUILD="$FFMPEG_BUILD" CC="$CC" "$bin" > "$bin.log" 2>&1; then
        echo "FAIL build $target: $(tail -n 3 "$bin.log" | tr '\n' ' ')"
        fail=$((fail + 1))
        return
    fi
    files=$(for d in "$@"; do
                for f in "$d"/*; do [ -f "$f" ] && echo "$f"; done
            done)
    if [ -z "$files" ]; then
        echo "FAIL $target: no inputs in $*"
        fail=$((fail + 1))
        return
    fi
    while [ -n "$files" ]; do
        # shellcheck disable=SC2086 # vg: a command prefix; files: a word list
        out=$(timeout 600 $vg "$bin" $files 2>&1)
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
            return
        fi
        for f in $done_ok; do
            pass=$((pass + 1))
            echo "ok $f"
        done
        [ -n "$bad" ] || return
        fail=$((fail + 1))
        echo "FAIL $bad: $(detail "$out" $rc)"
        files=$rest
    done
}

replay target_gpume_fuzzer tests/fuzz/corpus tests/fuzz/regressions
replay target_mcfps_fuzzer tests/fuzz/corpus-mcfps tests/fuzz/regressions-mcfps

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
