#!/bin/sh
# FATE tests of every filter (fate/NAME.mak: make fate-NAME), run inside the
# FFmpeg build: one result per FATE test.
set -u
: "${FFMPEG_BUILD:=build/ffmpeg}"

targets=$(for f in fate/*.mak; do [ -f "$f" ] && n=${f##*/} && echo "fate-${n%.mak}"; done)
log=$(make -k -C "$FFMPEG_BUILD" $targets 2>&1)
rc=$?
echo "$log" | grep -E '^TEST|failed'
tests=$(echo "$log" | grep -c '^TEST ')
failed=$(echo "$log" | grep -c '^Test .* failed')
for t in $(echo "$log" | sed -n 's/^Test \(.*\) failed.*/\1/p'); do
    echo "FAIL $t: see $FFMPEG_BUILD/tests/data/fate/$t.err"
done
if [ "$tests" -eq 0 ]; then
    echo "FAIL fate: no FATE test ran (make exit status $rc)"
    failed=1
fi
echo "$((tests - failed)) passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$rc" -eq 0 ]
