#!/bin/sh
# FFmpeg's checkasm on the filters' SIMD functions (tests/checkasm/vf_*.c,
# registered by tools/overlay.sh): each against its C version at every CPU
# level the machine has, with checkasm's checks of the calling convention.
# checkasm links FFmpeg's static libraries, which both of ./configure's
# builds make; an FFmpeg build without them skips it.
set -u
: "${BUILDDIR:=build}" "${FFMPEG_BUILD:=$BUILDDIR/ffmpeg}" "${FFMPEG_TREE:=$BUILDDIR/ffmpeg-tree}"

if [ ! -f "$FFMPEG_BUILD/libavfilter/libavfilter.a" ]; then
    echo "skipped: checkasm needs FFmpeg's static libraries, and $FFMPEG_BUILD has none"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
fi
make --no-print-directory -C "$FFMPEG_BUILD" tests/checkasm/checkasm > "$FFMPEG_BUILD/tests/checkasm.log" 2>&1 || {
    tail -n 20 "$FFMPEG_BUILD/tests/checkasm.log"
    echo "FAIL checkasm: the build failed"
    echo "0 passed, 1 failed"
    exit 1
}

pass=0 fail=0
for f in tests/checkasm/vf_*.c; do
    t=${f##*/}
    t=${t%.c}
    if ! grep -q "\"$t\", checkasm_check_$t" "$FFMPEG_TREE/tests/checkasm/checkasm.c"; then
        echo "FAIL checkasm --test=$t: not registered in $FFMPEG_TREE/tests/checkasm/checkasm.c"
        fail=$((fail + 1))
        continue
    fi
    out=$("$FFMPEG_BUILD/tests/checkasm/checkasm" --test="$t" 2>&1)
    rc=$?
    echo "$out"
    ok=$(echo "$out" | grep -c '\[OK\]')
    bad=$(echo "$out" | grep -c '\[FAILED\]')
    if [ "$rc" -ne 0 ] || [ "$bad" -ne 0 ]; then
        echo "FAIL checkasm --test=$t: exit status $rc"
        bad=$((bad > 0 ? bad : 1))
    elif [ "$ok" -eq 0 ]; then
        # no SIMD version at any level here: nothing was compared
        echo "checkasm --test=$t: no SIMD function on this machine"
    fi
    pass=$((pass + ok))
    fail=$((fail + bad))
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
