#!/bin/sh
# The Intel VME path (algo=vme), which no machine here can run (it needs an
# Intel Gen9-Gen11 GPU):
#  - vmecheck: the host conversion of VME results into blocks (tests/vmecheck.c);
#  - offline compiles of opencl/gpume_vme.cl (with gpume.h and gpume_vme.h
#    before it, as the host builds it) by Intel's ocloc for Gen9 (skl) and
#    Gen11 (icllp), whose disassembly must hold the VME messages: sends to
#    shared function 0x8 ("vme", integer search; three in gpume_vme_search:
#    stream-out, stream-in, single window) and 0xD ("cre", the REF
#    sub-pel refinement); and for Gen12 (tgllp), where the extension does
#    not exist, a compile that fails on the undeclared VME built-ins;
#  - the filter on a device without the extension (PoCL) fails with a message
#    naming it, and rejects options VME cannot honour.
# ocloc comes from tools/fetch-ocloc.sh (run by tools/install-deps.sh); without
# it those checks print "skipped: ocloc unavailable (...)".
#
# environment (tests/run.sh): BUILDDIR FFMPEG GPUME_OPENCL. Prints "FAIL name:
# detail" per failure and "N passed, N failed, N skipped" last.
set -u

: "${BUILDDIR:=build}" "${FFMPEG:=$BUILDDIR/ffmpeg/ffmpeg}" "${GPUME_OPENCL:=no}"
: "${POCL_CACHE_DIR:=$BUILDDIR/pocl-cache}"
export POCL_CACHE_DIR
pass=0 fail=0 skip=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpume-vme.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

ok()      { pass=$((pass + 1)); echo "ok $1"; }
bad()     { fail=$((fail + 1)); echo "FAIL $1: $2"; }
skipped() { skip=$((skip + 1)); echo "skipped: $1"; }

# --- host conversion --------------------------------------------------------
if make --no-print-directory -f tests/tests.mak BUILDDIR="$BUILDDIR" \
        "$BUILDDIR/tests/vmecheck" > "$tmp/build.log" 2>&1; then
    if "$BUILDDIR/tests/vmecheck" > "$tmp/vmecheck.log" 2>&1; then
        ok "vmecheck ($(tail -n 1 "$tmp/vmecheck.log"))"
    else
        bad vmecheck "$(grep -A2 '^FAIL' "$tmp/vmecheck.log" | head -n 6 | tr '\n' ' ')"
    fi
else
    bad vmecheck "build failed: $(tail -n 3 "$tmp/build.log" | tr '\n' ' ')"
fi

# --- offline compiles ---------------------------------------------------------
cat libavfilter/gpume.h libavfilter/gpume_vme.h opencl/gpume_vme.cl > "$tmp/vme.cl"
intel=$BUILDDIR/deps/intel
OCLOC= OCLOC_LIBS=
# shellcheck disable=SC1091
[ -f "$intel/.done" ] && . "$intel/.done"
if [ -z "$OCLOC" ] || [ ! -x "$OCLOC" ]; then
    why=$(tr '\n' ' ' < "$BUILDDIR/deps/intel.failed" 2>/dev/null)
    for d in skl icllp tgllp; do
        skipped "ocloc unavailable (${why:-tools/fetch-ocloc.sh has not run}): compile for $d"
    done
else
    ocloc() { LD_LIBRARY_PATH=$OCLOC_LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$OCLOC" "$@"; }

    # count_sends FILE SFID NAME: sends to shared function SFID, as iga prints them
    count_sends() {
        grep -c -E "^[[:space:]]*(\([^)]*\))?[[:space:]]*sends?[[:space:]].*[[:space:]]$2[[:space:]]+0x[0-9A-Fa-f]+[[:space:]].*; $3;" "$1"
    }
    for d in skl icllp; do
        name="ocloc-$d"
        if ! (cd "$tmp" && ocloc compile -q -file vme.cl -device "$d" -options "-cl-std=CL2.0" \
                  -output "vme_$d" -output_no_suffix) > "$tmp/$d.log" 2>&1 || [ ! -s "$tmp/vme_$d" ]; then
            bad "$name" "compile failed: $(grep -m 3 -i error "$tmp/$d.log" | tr '\n' ' ')"
            continue
        fi
        if ! (cd "$tmp" && ocloc disasm -file "vme_$d" -device "$d" -dump "dis_$d") > "$tmp/dis_$d.log" 2>&1; then
            bad "$name" "disasm failed: $(tail -n 2 "$tmp/dis_$d.log" | tr '\n' ' ')"
            continue
        fi
        msg=
        for k in gpume_vme_downscale gpume_vme_hme gpume_vme_search; do
            [ -s "$tmp/dis_$d/${k}_KernelHeap.asm" ] || msg="$msg no disassembly of $k;"
        done
        if [ -z "$msg" ]; then
            hme=$(count_sends "$tmp/dis_$d/gpume_vme_hme_KernelHeap.asm" 0x8 vme)
            ime=$(count_sends "$tmp/dis_$d/gpume_vme_search_KernelHeap.asm" 0x8 vme)
            cre=$(count_sends "$tmp/dis_$d/gpume_vme_search_KernelHeap.asm" 0xD cre)
            [ "$hme" -ge 1 ] || msg="$msg gpume_vme_hme has $hme VME sends (want >= 1);"
            [ "$ime" -ge 3 ] || msg="$msg gpume_vme_search has $ime VME sends (want >= 3);"
            [ "$cre" -ge 1 ] || msg="$msg gpume_vme_search has $cre CRE sends (want >= 1);"
        fi
        if [ -z "$msg" ]; then
            ok "$name (VME sends: hme $hme, search $ime; CRE sends: $cre)"
        else
            bad "$name" "$msg"
        fi
    done

    # Gen12: no cl_intel_device_side_avc_motion_estimation, so no VME types or built-ins
    if (cd "$tmp" && ocloc compile -file vme.cl -device tgllp -options "-cl-std=CL2.0" \
            -output vme_tgllp -output_no_suffix) > "$tmp/tgllp.log" 2>&1; then
        bad ocloc-tgllp-refused "the VME kernels compiled for Gen12 (tgllp)"
    elif grep -q "error: .*intel_sub_group_avc" "$tmp/tgllp.log"; then
        ok ocloc-tgllp-refused
    else
        bad ocloc-tgllp-refused "failed, but not on the VME built-ins: $(grep -m 2 error "$tmp/tgllp.log" | tr '\n' ' ')"
    fi
fi

# --- the filter without the extension ---------------------------------------------
# run NAME OPTIONS: gpume=OPTIONS on a short test source; output in $tmp/NAME.err
run() {
    "$FFMPEG" -nostdin -hide_banner -v error -f lavfi -i testsrc2=s=64x48:r=25:d=0.2 \
        -vf "gpume=$2" -f null - > "$tmp/$1.err" 2>&1
}
# refused NAME OPTIONS TEXT: the filter must fail and say TEXT
refused() {
    if run "$1" "$2"; then
        bad "$1" "gpume=$2 succeeded"
    elif grep -q -- "$3" "$tmp/$1.err"; then
        ok "$1"
    else
        bad "$1" "gpume=$2: no '$3' in: $(head -n 2 "$tmp/$1.err" | tr '\n' ' ')"
    fi
}

if [ "$GPUME_OPENCL" != yes ]; then
    refused no-opencl algo=vme "this build has no OpenCL"
    skipped "no OpenCL in this build: algo=vme on an OpenCL device without the extension"
else
    for dev in auto opencl; do
        name=no-extension-device-$dev
        if run "$name" "algo=vme:device=$dev"; then
            bad "$name" "gpume=algo=vme:device=$dev succeeded on a device without the extension"
        elif grep -q "no OpenCL platform" "$tmp/$name.err"; then
            skipped "no OpenCL platform: $name"
        elif ! grep -q "needs the OpenCL extension cl_intel_device_side_avc_motion_estimation" "$tmp/$name.err" ||
             ! grep -q "Intel Gen9-Gen11 GPU" "$tmp/$name.err"; then
            bad "$name" "no message naming the extension: $(head -n 2 "$tmp/$name.err" | tr '\n' ' ')"
        elif ! grep -q "device=$dev: the opencl device cannot run gpume" "$tmp/$name.err"; then
            # the option as given, not the one device it leaves
            bad "$name" "no 'device=$dev: the opencl device cannot run gpume' in: $(tail -n 2 "$tmp/$name.err" | tr '\n' ' ')"
        else
            ok "$name"
        fi
    done
fi
refused vme-block-8 algo=vme:block=8 "algo=vme exports 16x16 macroblocks"
refused vme-device-cpu algo=vme:device=cpu "algo=vme runs on OpenCL only"

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
