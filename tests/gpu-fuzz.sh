#!/bin/sh
# The fuzz targets' inputs on an NVIDIA GPU: the replay programs of
# tests/fuzz/ (built by tests/tests.mak: BUILDDIR/tests/target_gpume_fuzzer-replay
# and target_mcfps_fuzzer-replay) run every input with the filters on the
# CPU, on CUDA and on OpenCL (GPUME_FUZZ_DEVICE, tests/fuzz/fuzz_input.h),
# and CUDA once more under compute-sanitizer's memcheck. Each run checks
# what the fuzzer checks (a violation aborts), and each input's digest of
# its output frames and errors on CUDA and OpenCL must be the CPU's: the
# same vectors, metadata, pictures and refusals for sizes, formats, options,
# commands, timestamps and vectors of any producer.
#
# Inputs: the seeds and regressions of tests/fuzz/, and with
# GPU_FUZZ_EXTRA=DIR also DIR/corpus and DIR/corpus-mcfps (the corpora
# make fuzz and make fuzz-mcfps grow in BUILDDIR/fuzz). GPU_FUZZ_DEVICES
# names the runs, "cpu cuda opencl memcheck" unless set; the others are
# compared with the CPU's run where it came first and passed.
#
# usage: tests/gpu-fuzz.sh [BUILDDIR [OUTDIR]]; the last line is
# "N failed", the exit status 1 on a failure. Without an NVIDIA GPU it
# prints "skipped: ..." and exits 0.
set -u

tests=$(dirname "$0")
b=${1:-build}
out=${2:-$b/gpu-fuzz}
mkdir -p "$out"
fails=0
note() { echo "$*" | tee -a "$out/summary.txt"; }
: > "$out/summary.txt"

if ! nvidia-smi > /dev/null 2>&1; then
    note "skipped: no NVIDIA GPU (nvidia-smi failed)"
    note "0 failed"
    exit 0
fi
# NVIDIA's OpenCL, named in a vendors directory of our own (containers may
# lack /etc/OpenCL/vendors/nvidia.icd); no OpenCL frames or device=opencl
# inputs of their own: every input runs where GPUME_FUZZ_DEVICE says
icd=$(mktemp -d)
echo libnvidia-opencl.so.1 > "$icd/nvidia.icd"
export OCL_ICD_VENDORS="$icd" GPUME_FUZZ_NO_OPENCL=1 GPUME_FUZZ_DIGEST=1

# replay TARGET DIR...: every input of the DIRs on each device
replay() {
    target=$1
    shift
    bin=$b/tests/$target-replay
    if [ ! -x "$bin" ]; then
        note "FAIL $target: no $bin (make -f tests/tests.mak $bin)"
        fails=$((fails + 1))
        return
    fi
    list=$out/$target.inputs
    cpu_failed=1
    for d in "$@"; do
        for f in "$d"/*; do [ -f "$f" ] && echo "$f"; done
    done > "$list"
    n=$(wc -l < "$list")
    if [ "$n" -eq 0 ]; then
        note "FAIL $target: no inputs in $*"
        fails=$((fails + 1))
        return
    fi
    for dev in ${GPU_FUZZ_DEVICES:-cpu cuda opencl memcheck}; do
        case $dev in
        memcheck) set -- compute-sanitizer --tool memcheck --error-exitcode 1 --leak-check full "$bin"
                  devenv=cuda ;;
        *)        set -- "$bin"; devenv=$dev ;;
        esac
        if [ "$dev" = memcheck ] && ! command -v compute-sanitizer > /dev/null; then
            note "skipped: $target under compute-sanitizer (not found)"
            continue
        fi
        log=$out/$target-$dev.log
        [ "$dev" = cpu ] && cpu_failed=0
        # shellcheck disable=SC2046 # the inputs' names: no spaces
        GPUME_FUZZ_DEVICE=$devenv timeout 540 "$@" $(cat "$list") > "$log" 2>&1
        rc=$?
        ok=$(grep -c '^ok ' "$log")
        grep '^digest ' "$log" > "$out/$target-$dev.digest"
        if [ "$rc" -ne 0 ] || [ "$ok" -ne "$n" ]; then
            fails=$((fails + 1))
            [ "$dev" = cpu ] && cpu_failed=1
            note "FAIL $target on $dev: exit status $rc after $ok of $n inputs:" \
                 "$(grep -v '^ok \|^digest ' "$log" | grep -m 3 -i 'check failed\|error\|abort' | tr '\n' ' ' | cut -c1-400)"
        elif [ "$dev" != cpu ] && [ "$cpu_failed" = 1 ]; then
            note "ok $target on $dev: $n inputs checked (no CPU digests to compare with)"
        elif [ "$dev" != cpu ] && ! cmp -s "$out/$target-cpu.digest" "$out/$target-$dev.digest"; then
            fails=$((fails + 1))
            note "FAIL $target on $dev: $(diff "$out/$target-cpu.digest" "$out/$target-$dev.digest" |
                                          grep -c '^>') of $n inputs give other frames than on the CPU:" \
                 "$(diff "$out/$target-cpu.digest" "$out/$target-$dev.digest" | grep '^>' | head -n 3 |
                    awk '{ print $3 }' | tr '\n' ' ')"
        elif [ "$dev" = cpu ]; then
            note "ok $target on $dev: $n inputs"
        else
            note "ok $target on $dev: $n inputs, each with the CPU's frames"
        fi
    done
}

extra=${GPU_FUZZ_EXTRA:-}
replay target_gpume_fuzzer "$tests/fuzz/corpus" "$tests/fuzz/regressions" ${extra:+"$extra/corpus"}
replay target_mcfps_fuzzer "$tests/fuzz/corpus-mcfps" "$tests/fuzz/regressions-mcfps" ${extra:+"$extra/corpus-mcfps"}
rm -rf "$icd"
note "$fails failed"
exit $((fails > 0))
