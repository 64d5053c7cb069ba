# bench-backend (tools/bench-backend.c): device time per frame of one
# backend's estimate, driven without FFmpeg (tools/bench.sh, bench-gpu.sh and
# profile-gpu.sh run it; usage at the head of its source).
#
#   make -f tools/bench-backend.mak BUILDDIR=<build dir> GPUME_CUDA=yes|no \
#       GPUME_OPENCL=yes|no <build dir>/tools/bench-backend \
#       [<build dir>/tools/bench-backend-ptx]
#
# It links what tests/backendcheck links: the CPU backend, and the CUDA and
# OpenCL host code and kernels of the FFmpeg build in $(FFMPEG_BUILD) for the
# backends named yes; that set is defined once, in tests/tests.mak.

GPUME_TOOLS_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
include $(GPUME_TOOLS_DIR)/../tests/tests.mak
.DEFAULT_GOAL := $(BUILDDIR)/tools/bench-backend

$(BUILDDIR)/tools/bench-backend: $(GPUME_TOOLS_DIR)/bench-backend.c $(GPU_TEST_DEPS)
	@mkdir -p $(@D)
	$(CC) $(GPU_TEST_CPPFLAGS) $(CHECKME_CFLAGS) -o $@ $< $(filter %.c %.o,$(GPU_TEST_DEPS)) $(CHECKME_LIBS) $(GPU_TEST_LIBS) -ldl

# The same benchmark with the kernels embedded as PTX, the way FFmpeg's own
# rules embed them, whatever form this build gives them (tools/cuda-kernels.mak):
# start-up with cubins (bench-backend) beside start-up with PTX JIT
# (bench-backend-ptx) from one build. The PTX is the build's (FFmpeg's make
# keeps it, or makes it again), compressed if its load_helper.o inflates.
BENCH_PTX_GZIP := $(shell grep -qE '^CONFIG_(PTX|SHADER)_COMPRESSION=yes' $(FFMPEG_BUILD)/ffbuild/config.mak 2>/dev/null && echo yes)

$(BUILDDIR)/tools/gpume-ptx-only.c: $(FFMPEG_BUILD)/libavfilter/gpume.ptx.o
	@mkdir -p $(@D)
	+$(MAKE) --no-print-directory -C $(FFMPEG_BUILD) libavfilter/gpume.ptx
ifeq ($(BENCH_PTX_GZIP),yes)
	gzip -nc9 $(FFMPEG_BUILD)/libavfilter/gpume.ptx > $(@:.c=.ptx.gz)
	$(FFMPEG_BUILD)/ffbuild/bin2c $(@:.c=.ptx.gz) $@ gpume_ptx
else
	$(FFMPEG_BUILD)/ffbuild/bin2c $(FFMPEG_BUILD)/libavfilter/gpume.ptx $@ gpume_ptx
endif

$(BUILDDIR)/tools/bench-backend-ptx: $(GPUME_TOOLS_DIR)/bench-backend.c $(GPU_TEST_DEPS) $(BUILDDIR)/tools/gpume-ptx-only.c
	@mkdir -p $(@D)
	$(CC) $(GPU_TEST_CPPFLAGS) $(CHECKME_CFLAGS) -o $@ $< $(filter-out %/gpume.ptx.o,$(filter %.c %.o,$(GPU_TEST_DEPS))) \
	    $(BUILDDIR)/tools/gpume-ptx-only.c $(CHECKME_LIBS) $(GPU_TEST_LIBS) -ldl

# tools/hme-misses.c: where hme loses to full (CPU backend; docs/QUALITY.md)
$(BUILDDIR)/tools/hme-misses: $(GPUME_TOOLS_DIR)/hme-misses.c $(GPU_TEST_DEPS)
	@mkdir -p $(@D)
	$(CC) $(GPU_TEST_CPPFLAGS) $(CHECKME_CFLAGS) -o $@ $< $(filter %.c %.o,$(GPU_TEST_DEPS)) $(CHECKME_LIBS) $(GPU_TEST_LIBS) -ldl
