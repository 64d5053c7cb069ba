# gpume: builds an FFmpeg 7.1 that contains the filters of this repository
# (libavfilter/filters.mak: gpume, ...).
# 'make' alone: install missing build dependencies, fetch FFmpeg, overlay
# gpume onto it, configure and build ffmpeg and ffprobe in $(BUILDDIR)/ffmpeg.

BUILDDIR = build

all:

# clean and distclean work without a configuration
ifneq ($(filter-out clean distclean,$(or $(MAKECMDGOALS),all)),)
include config.mak
config.mak:
	./configure
else
-include config.mak
endif

SHELL      := /bin/sh
NPROC      := $(shell nproc 2>/dev/null || echo 1)
SRC        := $(or $(FFMPEG_SOURCE),$(BUILDDIR)/ffmpeg-src)
TREE       := $(BUILDDIR)/ffmpeg-tree
FFBUILD    := $(BUILDDIR)/ffmpeg
FFMPEG     := $(FFBUILD)/ffmpeg
FFPROBE    := $(FFBUILD)/ffprobe
CLIPS      := $(BUILDDIR)/clips

DEMO_INPUT  = $(CLIPS)/cockatoo.mp4
DEMO_FILTER = gpume=algo=hme,codecview=mv=pf
DEMO_OUTPUT = gpume-demo.mp4

# the backends install-deps needs to provide
export CUDA OPENCL
# for tools/ffmpeg-configure.sh
export FFMPEG_CC NVCCFLAGS EXTRA_FFMPEG_FLAGS
# pocl compiles kernels into a cache; keep it out of $HOME
export POCL_CACHE_DIR := $(BUILDDIR)/pocl-cache

# honour the caller's -j through the jobserver, else use every core
SUBJOBS = $(if $(findstring jobserver,$(MAKEFLAGS)),,-j$(NPROC))

all: ffmpeg

deps:
	$(SHELL) tools/install-deps.sh $(BUILDDIR)

clips: | deps
	$(SHELL) tools/fetch-clips.sh $(BUILDDIR)

ifeq ($(FFMPEG_SOURCE),)
$(SRC)/configure: | deps
	$(SHELL) tools/fetch-ffmpeg.sh $(BUILDDIR)/fetch $(SRC)
endif

# cheap, and only rewrites changed files: run it every time so that added,
# edited and removed gpume sources are always picked up
overlay: $(SRC)/configure | deps
	$(SHELL) tools/overlay.sh $(SRC) . $(TREE)

ffmpeg-configure: overlay
	$(SHELL) tools/ffmpeg-configure.sh $(BUILDDIR) $(TREE)

ffmpeg: ffmpeg-configure
	+$(MAKE) -C $(FFBUILD) $(SUBJOBS) ffmpeg ffprobe

# GPUME_CUDA/GPUME_OPENCL: the backends FFmpeg was configured with
TEST_ENV = BUILDDIR=$(BUILDDIR) FFMPEG=$(abspath $(FFMPEG)) FFPROBE=$(abspath $(FFPROBE)) \
           FFMPEG_TREE=$(TREE) FFMPEG_BUILD=$(FFBUILD) CLIPS=$(CLIPS)                    \
           GPUME_CUDA=$$(grep -q '^CONFIG_CUDA_LLVM=yes\|^CONFIG_CUDA_NVCC=yes' $(FFBUILD)/ffbuild/config.mak && echo yes || echo no) \
           GPUME_OPENCL=$$(grep -q '^CONFIG_OPENCL=yes' $(FFBUILD)/ffbuild/config.mak && echo yes || echo no)

check: ffmpeg clips
	@test -f tests/run.sh || { echo "tests/run.sh missing" >&2; exit 1; }
	@echo "RUN tests/run.sh"
	@$(TEST_ENV) $(SHELL) tests/run.sh

# the FATE tests of each filter (fate/NAME.mak): make fate-gpume, make fate
FATE_TARGETS := $(patsubst fate/%.mak,fate-%,$(wildcard fate/*.mak))
fate: $(FATE_TARGETS)
$(FATE_TARGETS): ffmpeg clips
	+$(MAKE) -C $(FFBUILD) $(SUBJOBS) $@

# regenerate the references of failing or new tests and copy them to fate/ref
# (fate-ref: every filter; fate-gpume-ref: one filter)
fate-ref: $(FATE_TARGETS:%=%-ref)
$(FATE_TARGETS:%=%-ref): ffmpeg clips
	@mkdir -p fate/ref
	touch $(BUILDDIR)/fate-gen.stamp
	+$(MAKE) -C $(FFBUILD) $(SUBJOBS) -k $(@:-ref=) GEN=1 || true
	find $(TREE)/tests/ref/fate -type f -newer $(BUILDDIR)/fate-gen.stamp -exec cp {} fate/ref/ \;

demo: ffmpeg clips
	$(FFMPEG) -y -i $(DEMO_INPUT) -an -vf $(DEMO_FILTER) -c:v mpeg4 -q:v 3 $(DEMO_OUTPUT)
	$(SHELL) tools/frc-demo.sh $(FFMPEG) $(DEMO_INPUT) mcfps-demo

bench: ffmpeg clips
	@test -f tools/bench.sh || { echo "tools/bench.sh missing" >&2; exit 1; }
	@echo "RUN tools/bench.sh"
	@$(TEST_ENV) $(SHELL) tools/bench.sh

# frame-rate-conversion quality: mcfps beside minterpolate, blend and repetition
frc-bench: ffmpeg clips
	@$(TEST_ENV) $(SHELL) tools/frc-bench.sh
.PHONY: frc-bench

# gpume-mv (tools/gpume-mv/, rules in tools/gpume-mv/gpume-mv.mak): dumps and
# evaluates motion vectors, linked against FFmpeg's static libraries; the
# sub-make runs after 'ffmpeg' so that it sees the libraries that step rebuilt
all: gpume-mv
check: gpume-mv
gpume-mv $(BUILDDIR)/gpume-mv: ffmpeg
	+$(MAKE) --no-print-directory -f tools/gpume-mv/gpume-mv.mak BUILDDIR=$(BUILDDIR) \
	    FFMPEG_TREE=$(TREE) FFMPEG_BUILD=$(FFBUILD) $(BUILDDIR)/gpume-mv
.PHONY: gpume-mv

clean:
	if [ -f $(FFBUILD)/Makefile ]; then $(MAKE) -C $(FFBUILD) clean; fi
	rm -f $(DEMO_OUTPUT) mcfps-demo.mp4 mcfps-demo.png

distclean:
	rm -rf $(BUILDDIR)
	rm -f config.mak $(DEMO_OUTPUT) mcfps-demo.mp4 mcfps-demo.png

.PHONY: all deps clips overlay ffmpeg-configure ffmpeg check fate fate-ref $(FATE_TARGETS) $(FATE_TARGETS:%=%-ref) demo bench clean distclean

# make fuzz: the libFuzzer target under ASan+UBSan (rules in tests/fuzz/fuzz.mak)
include tests/fuzz/fuzz.mak
