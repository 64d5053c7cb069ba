# gpume unit tests (tests/checkme.c): the CPU backend against the naive
# implementation of docs/ALGORITHMS.md, plus unit and synthetic-motion checks.
#
# Include this fragment from the top Makefile, or run it alone:
#   make -f tests/tests.mak FFMPEG_TREE=<ffmpeg source tree> BUILDDIR=<build dir> checkme
# It needs $(FFMPEG_BUILD)/libavutil/libavutil.a and the generated
# libavutil/avconfig.h there (an FFmpeg build configured in $(FFMPEG_BUILD)).
#
# Targets:
#   $(BUILDDIR)/tests/checkme       -O2 build
#   $(BUILDDIR)/tests/checkme-asan  the same under ASan + UBSan (aborts on the first error)
#   checkme, checkme-asan           build and run (the ASan run uses --quick)
#   $(BUILDDIR)/tests/backendcheck, vmecheck, mvcheck: the other test programs, below
# checkme options: --seed=N --filter=SUBSTRING --quick --verbose; the last
# line of its output is "N passed, N failed", exit status 1 on any failure.

GPUME_TESTS_DIR  := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
GPUME_SRC_ROOT   := $(GPUME_TESTS_DIR)/..
BUILDDIR         ?= build
FFMPEG_TREE      ?= $(BUILDDIR)/ffmpeg-tree
FFMPEG_BUILD     ?= $(BUILDDIR)/ffmpeg

CHECKME_CFLAGS   ?= -O2 -g -std=c17 -Wall
CHECKME_ASAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# the gpume sources of this checkout come first, then FFmpeg's public headers and avconfig.h
CHECKME_CPPFLAGS := -I$(GPUME_SRC_ROOT) -I$(FFMPEG_TREE) -I$(FFMPEG_BUILD)
CHECKME_SRCS     := $(GPUME_SRC_ROOT)/libavfilter/gpume_cpu.c          \
                    $(GPUME_SRC_ROOT)/libavfilter/gpume_params.c       \
                    $(GPUME_TESTS_DIR)/naive_me.c                      \
                    $(GPUME_TESTS_DIR)/checkme.c
CHECKME_HDRS     := $(GPUME_SRC_ROOT)/libavfilter/gpume.h              \
                    $(GPUME_SRC_ROOT)/libavfilter/gpume_backend.h      \
                    $(GPUME_SRC_ROOT)/libavfilter/gpume_dis.h          \
                    $(GPUME_SRC_ROOT)/libavfilter/gpume_pad.h          \
                    $(GPUME_SRC_ROOT)/libavfilter/gpume_dsp.h          \
                    $(GPUME_SRC_ROOT)/libavfilter/gpume_kernel.h       \
                    $(GPUME_TESTS_DIR)/naive_me.h
CHECKME_AVUTIL   := $(FFMPEG_BUILD)/libavutil/libavutil.a
# the x86 functions of gpume_cpu.c and mcfps_cpu.c, from the FFmpeg build
# where it has x86 assembly (a prerequisite too: a test relinks after an
# assembly change)
CHECKME_X86       = $(if $(filter yes,$(shell sed -n 's/^HAVE_X86ASM=//p'                      \
                                                 $(FFMPEG_BUILD)/ffbuild/config.mak 2>/dev/null)),  \
                         $(addprefix $(FFMPEG_BUILD)/libavfilter/x86/,                         \
                                     gpume_dsp_init.o gpume_dsp.o mcfps_dsp_init.o mcfps_dsp.o))
# a static libavutil needs the libraries its configuration linked (libdl, libva, ...)
CHECKME_LIBS      = $(CHECKME_X86) $(CHECKME_AVUTIL)                                          \
                    $(shell sed -n 's/^EXTRALIBS-avutil=//p;s/^EXTRALIBS=//p'                  \
                                   $(FFMPEG_BUILD)/ffbuild/config.mak 2>/dev/null)             \
                    -lm -lpthread

$(BUILDDIR)/tests/checkme: $(CHECKME_SRCS) $(CHECKME_HDRS) $(CHECKME_AVUTIL) $(CHECKME_X86)
	@mkdir -p $(@D)
	$(CC) $(CHECKME_CPPFLAGS) $(CHECKME_CFLAGS) -o $@ $(CHECKME_SRCS) $(CHECKME_LIBS)

$(BUILDDIR)/tests/checkme-asan: $(CHECKME_SRCS) $(CHECKME_HDRS) $(CHECKME_AVUTIL) $(CHECKME_X86)
	@mkdir -p $(@D)
	$(CC) $(CHECKME_CPPFLAGS) $(CHECKME_CFLAGS) $(CHECKME_ASAN) -o $@ $(CHECKME_SRCS) $(CHECKME_LIBS)

checkme: $(BUILDDIR)/tests/checkme
	$(BUILDDIR)/tests/checkme

checkme-asan: $(BUILDDIR)/tests/checkme-asan
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	    $(BUILDDIR)/tests/checkme-asan --quick

.PHONY: checkme checkme-asan

# GPU backends against the CPU reference. backendcheck links the backends'
# host code and kernels from the FFmpeg build (so does the benchmark,
# tools/bench-backend.mak, with the same variables); without a GPU backend in
# the build it still builds and reports "skipped".
GPU_TEST_CPPFLAGS = $(CHECKME_CPPFLAGS) -I$(FFMPEG_TREE)/libavfilter \
                    -I$(BUILDDIR)/deps/nvenc/usr/include
ifeq ($(GPUME_CUDA),yes)
GPU_TEST_CPPFLAGS += -DGPUME_TEST_CUDA=1
GPU_TEST_SRCS     += $(GPUME_SRC_ROOT)/libavfilter/gpume_cuda.c      \
                     $(GPUME_SRC_ROOT)/libavfilter/gpume_cuda_staging.c \
                     $(FFMPEG_BUILD)/libavfilter/gpume.ptx.o         \
                     $(FFMPEG_BUILD)/libavfilter/cuda/load_helper.o
GPU_TEST_LIBS     += -lz -ldl
endif
# OpenCL: the host code, and the kernel source strings that FFmpeg's build
# generated from opencl/gpume.cl and the headers it needs (tools/overlay.sh)
ifeq ($(GPUME_OPENCL),yes)
GPU_TEST_CPPFLAGS += -DGPUME_TEST_OPENCL=1
GPU_TEST_SRCS     += $(GPUME_SRC_ROOT)/libavfilter/gpume_opencl.c         \
                     $(GPUME_SRC_ROOT)/libavfilter/gpume_opencl_program.c \
                     $(GPUME_SRC_ROOT)/libavfilter/gpume_opencl.h         \
                     $(GPUME_SRC_ROOT)/libavfilter/gpume_vme_opencl.c     \
                     $(GPUME_SRC_ROOT)/libavfilter/gpume_vme_opencl.h     \
                     $(GPUME_SRC_ROOT)/libavfilter/gpume_vme.c            \
                     $(GPUME_SRC_ROOT)/libavfilter/gpume_vme.h            \
                     $(FFMPEG_BUILD)/libavfilter/opencl/gpume.o           \
                     $(FFMPEG_BUILD)/libavfilter/opencl/gpume_vme.o       \
                     $(FFMPEG_BUILD)/libavfilter/opencl/gpume_h.o         \
                     $(FFMPEG_BUILD)/libavfilter/opencl/gpume_dis_h.o     \
                     $(FFMPEG_BUILD)/libavfilter/opencl/gpume_kernel_h.o  \
                     $(FFMPEG_BUILD)/libavfilter/opencl/gpume_opencl_h.o  \
                     $(FFMPEG_BUILD)/libavfilter/opencl/gpume_vme_h.o
GPU_TEST_LIBS     += -lOpenCL
endif
# rebuilt when the set of backends changes (GPUME_CUDA, GPUME_OPENCL)
GPU_TEST_FLAGS = $(BUILDDIR)/tests/gpu-test.flags
$(GPU_TEST_FLAGS): gpu-test-flags-force
	@mkdir -p $(@D)
	@echo '$(GPU_TEST_CPPFLAGS) $(GPU_TEST_SRCS)' | cmp -s - $@ || \
	    echo '$(GPU_TEST_CPPFLAGS) $(GPU_TEST_SRCS)' > $@
.PHONY: gpu-test-flags-force

GPU_TEST_DEPS = $(GPUME_SRC_ROOT)/libavfilter/gpume_cpu.c $(GPUME_SRC_ROOT)/libavfilter/gpume_params.c \
                $(GPUME_TESTS_DIR)/backend_device.h \
                $(CHECKME_HDRS) $(CHECKME_AVUTIL) $(GPU_TEST_SRCS) $(GPU_TEST_FLAGS)

$(BUILDDIR)/tests/backendcheck: $(GPUME_TESTS_DIR)/backendcheck.c $(GPU_TEST_DEPS) $(CHECKME_X86)
	@mkdir -p $(@D)
	$(CC) $(GPU_TEST_CPPFLAGS) $(CHECKME_CFLAGS) -o $@ $< $(filter %.c %.o,$(GPU_TEST_DEPS)) $(CHECKME_LIBS) $(GPU_TEST_LIBS)

# Intel VME host conversion (libavfilter/gpume_vme.c) on hand-made VME
# results: plain C, no OpenCL, no device (tests/suites/vme.sh runs it)
VMECHECK_SRCS := $(GPUME_TESTS_DIR)/vmecheck.c $(GPUME_SRC_ROOT)/libavfilter/gpume_vme.c
VMECHECK_HDRS := $(GPUME_SRC_ROOT)/libavfilter/gpume_vme.h $(GPUME_SRC_ROOT)/libavfilter/gpume.h

$(BUILDDIR)/tests/vmecheck: $(VMECHECK_SRCS) $(VMECHECK_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CHECKME_CPPFLAGS) $(CHECKME_CFLAGS) $(CHECKME_ASAN) -o $@ $(VMECHECK_SRCS)

vmecheck: $(BUILDDIR)/tests/vmecheck
	$(BUILDDIR)/tests/vmecheck

.PHONY: vmecheck

# gpume-mv's metrics, truth parser, eval and dump (tools/gpume-mv/, the files
# that need libavutil only) on hand-made frames, under ASan and UBSan
include $(GPUME_SRC_ROOT)/tools/gpume-mv/gpume-mv.mak

$(BUILDDIR)/tests/mvcheck: $(GPUME_TESTS_DIR)/mvcheck.c $(GPUME_MV_CORE_SRCS) $(GPUME_MV_HDRS) $(CHECKME_AVUTIL) $(CHECKME_X86)
	@mkdir -p $(@D)
	$(CC) $(CHECKME_CPPFLAGS) $(CHECKME_CFLAGS) $(CHECKME_ASAN) -o $@ $(GPUME_TESTS_DIR)/mvcheck.c $(GPUME_MV_CORE_SRCS) $(CHECKME_LIBS)

mvcheck: $(BUILDDIR)/tests/mvcheck
	$(BUILDDIR)/tests/mvcheck

.PHONY: mvcheck

# mcfps unit tests (tests/mcfpscheck.c): the shared steps of libavfilter/mcfps.h
# and the CPU reference, under ASan + UBSan; tests/suites/mcfps.sh runs it
MCFPSCHECK_SRCS := $(GPUME_TESTS_DIR)/mcfpscheck.c $(GPUME_SRC_ROOT)/libavfilter/mcfps_cpu.c
MCFPSCHECK_HDRS := $(GPUME_SRC_ROOT)/libavfilter/mcfps.h $(GPUME_SRC_ROOT)/libavfilter/mcfps_cpu.h \
                   $(GPUME_SRC_ROOT)/libavfilter/mcfps_backend.h $(GPUME_SRC_ROOT)/libavfilter/gpume_pad.h \
                   $(GPUME_TESTS_DIR)/mcfps_frames.h

$(BUILDDIR)/tests/mcfpscheck: $(MCFPSCHECK_SRCS) $(MCFPSCHECK_HDRS) $(CHECKME_AVUTIL) $(CHECKME_X86)
	@mkdir -p $(@D)
	$(CC) $(CHECKME_CPPFLAGS) $(CHECKME_CFLAGS) $(CHECKME_ASAN) -o $@ $(MCFPSCHECK_SRCS) $(CHECKME_LIBS)

mcfpscheck: $(BUILDDIR)/tests/mcfpscheck
	$(BUILDDIR)/tests/mcfpscheck

.PHONY: mcfpscheck

# mcfps GPU backends against its CPU reference (tests/mcfps-backendcheck.c):
# the backends' host code and kernels from the FFmpeg build, as for
# backendcheck; without a GPU backend in the build it reports "skipped"
MCFPS_GPU_CPPFLAGS = $(CHECKME_CPPFLAGS) -I$(FFMPEG_TREE)/libavfilter \
                     -I$(BUILDDIR)/deps/nvenc/usr/include
MCFPS_GPU_SRCS     = $(GPUME_SRC_ROOT)/libavfilter/mcfps_cpu.c
ifeq ($(GPUME_CUDA),yes)
MCFPS_GPU_CPPFLAGS += -DMCFPS_TEST_CUDA=1
MCFPS_GPU_SRCS     += $(GPUME_SRC_ROOT)/libavfilter/mcfps_cuda.c  \
                      $(GPUME_SRC_ROOT)/libavfilter/gpume_cuda_staging.c \
                      $(FFMPEG_BUILD)/libavfilter/mcfps.ptx.o     \
                      $(FFMPEG_BUILD)/libavfilter/cuda/load_helper.o
MCFPS_GPU_LIBS     += -lz -ldl
endif
ifeq ($(GPUME_OPENCL),yes)
MCFPS_GPU_CPPFLAGS += -DMCFPS_TEST_OPENCL=1
MCFPS_GPU_SRCS     += $(GPUME_SRC_ROOT)/libavfilter/mcfps_opencl.c  \
                      $(GPUME_SRC_ROOT)/libavfilter/gpume_opencl_program.c \
                      $(FFMPEG_BUILD)/libavfilter/opencl/mcfps.o    \
                      $(FFMPEG_BUILD)/libavfilter/opencl/mcfps_h.o
MCFPS_GPU_LIBS     += -lOpenCL
endif
MCFPS_GPU_FLAGS = $(BUILDDIR)/tests/mcfps-gpu-test.flags
$(MCFPS_GPU_FLAGS): gpu-test-flags-force
	@mkdir -p $(@D)
	@echo '$(MCFPS_GPU_CPPFLAGS) $(MCFPS_GPU_SRCS)' | cmp -s - $@ || \
	    echo '$(MCFPS_GPU_CPPFLAGS) $(MCFPS_GPU_SRCS)' > $@

MCFPS_GPU_DEPS = $(MCFPS_GPU_SRCS) $(MCFPSCHECK_HDRS) $(GPUME_TESTS_DIR)/backend_device.h $(GPUME_SRC_ROOT)/libavfilter/mcfps_cuda.h $(CHECKME_AVUTIL) $(MCFPS_GPU_FLAGS)

$(BUILDDIR)/tests/mcfps-backendcheck: $(GPUME_TESTS_DIR)/mcfps-backendcheck.c $(MCFPS_GPU_DEPS) $(CHECKME_X86)
	@mkdir -p $(@D)
	$(CC) $(MCFPS_GPU_CPPFLAGS) $(CHECKME_CFLAGS) -o $@ $< $(filter %.c %.o,$(MCFPS_GPU_DEPS)) $(CHECKME_LIBS) $(MCFPS_GPU_LIBS)

# the filters in a graph driven through the public API (tests/graphcheck.c),
# linked against the static FFmpeg libraries of the build as gpume-mv is
$(BUILDDIR)/tests/graphcheck: $(GPUME_TESTS_DIR)/graphcheck.c $(GPUME_MV_LIBA)
	@mkdir -p $(@D)
	$(CC) $(GPUME_MV_CPPFLAGS) $(CHECKME_CFLAGS) -o $@ $(GPUME_TESTS_DIR)/graphcheck.c $(GPUME_MV_LIBS)

graphcheck: $(BUILDDIR)/tests/graphcheck
	$(BUILDDIR)/tests/graphcheck

# mcfps's ticks against fps's on random input (tests/tickcheck.c)
$(BUILDDIR)/tests/tickcheck: $(GPUME_TESTS_DIR)/tickcheck.c $(GPUME_MV_LIBA)
	@mkdir -p $(@D)
	$(CC) $(GPUME_MV_CPPFLAGS) $(CHECKME_CFLAGS) -o $@ $(GPUME_TESTS_DIR)/tickcheck.c $(GPUME_MV_LIBS)

tickcheck: $(BUILDDIR)/tests/tickcheck
	$(BUILDDIR)/tests/tickcheck

# the fuzz targets (tests/fuzz/) as programs that replay the files given to
# them: the fuzz suite of make check, and tests/gpu-check.sh on a GPU
FUZZ_REPLAYS := $(BUILDDIR)/tests/target_gpume_fuzzer-replay $(BUILDDIR)/tests/target_mcfps_fuzzer-replay
$(FUZZ_REPLAYS): $(BUILDDIR)/tests/%-replay: $(GPUME_TESTS_DIR)/fuzz/%.c $(GPUME_TESTS_DIR)/fuzz/fuzz_input.h \
                                             $(GPUME_MV_LIBA)
	@mkdir -p $(@D)
	$(CC) $(GPUME_MV_CPPFLAGS) $(CHECKME_CFLAGS) -DGPUME_FUZZ_MAIN -o $@ $< $(GPUME_MV_LIBS)

.PHONY: graphcheck tickcheck
