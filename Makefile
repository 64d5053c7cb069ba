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
FFMPEG_VERSION ?= 7.1
# the fetched source: ffmpeg-src for 7.1, ffmpeg-V-src for the others
SRC        := $(or $(FFMPEG_SOURCE),$(BUILDDIR)/ffmpeg$(if $(filter-out 7.1,$(FFMPEG_VERSION)),-$(FFMPEG_VERSION))-src)
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
# the full build's libraries (install-deps); for tools/ffmpeg-configure.sh
export MINIMAL PREFIX CCACHE FFMPEG_CC NVCCFLAGS EXTRA_FFMPEG_FLAGS
# the cubins embedded beside the PTX, and the tools that make them
export CUBIN_ARCHS PTXAS FATBINARY
# pocl compiles kernels into a cache; keep it out of $HOME
export POCL_CACHE_DIR := $(BUILDDIR)/pocl-cache
# ccache: paths relative to this checkout and no working directory in the
# hash, so that objects compiled in another clone of it are cache hits
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1

# honour the caller's -j through the jobserver, else use every core
SUBJOBS = $(if $(findstring jobserver,$(MAKEFLAGS)),,-j$(NPROC))

all: ffmpeg

deps:
	$(SHELL) tools/install-deps.sh $(BUILDDIR)

clips: | deps
	$(SHELL) tools/fetch-clips.sh $(BUILDDIR)

ifeq ($(FFMPEG_SOURCE),)
$(SRC)/configure: | deps
	$(SHELL) tools/fetch-ffmpeg.sh $(BUILDDIR)/fetch $(SRC) $(FFMPEG_VERSION)
endif

# cheap, and only rewrites changed files: run it every time so that added,
# edited and removed gpume sources are always picked up
overlay: $(SRC)/configure | deps
	$(SHELL) tools/overlay.sh $(SRC) . $(TREE)

ffmpeg-configure: overlay
	$(SHELL) tools/ffmpeg-configure.sh $(BUILDDIR) $(TREE)

# a shared build's programs find the libraries through the rpath
# $ORIGIN/../lib: BUILDDIR/lib links to them here, PREFIX/lib once installed
# FFmpeg's default target: the libraries (shared and static: gpume-mv and
# the test programs link the static ones), ffmpeg, ffprobe, the manual pages
# (those that hold doc/filters.texi are removed first where it is newer: its
# rules do not remake a page whose .pod is gone when an included file changes)
ffmpeg: ffmpeg-configure
	@for p in ffmpeg-filters ffmpeg-all ffprobe-all ffplay-all; do           \
	    for f in $(FFBUILD)/doc/$$p.1 $(FFBUILD)/doc/$$p.html; do            \
	        if [ -f $$f ] && [ $(TREE)/doc/filters.texi -nt $$f ]; then rm -f $$f; fi; \
	    done;                                                                 \
	done
	+$(MAKE) -C $(FFBUILD) $(SUBJOBS)
	@rm -rf $(BUILDDIR)/lib
	@if grep -q '^CONFIG_SHARED=yes' $(FFBUILD)/ffbuild/config.mak; then \
	    mkdir -p $(BUILDDIR)/lib &&                                    \
	    for l in $(FFBUILD)/lib*/lib*.so*; do                           \
	        ln -s ../ffmpeg/$${l#$(FFBUILD)/} $(BUILDDIR)/lib/;         \
	    done;                                                           \
	fi

# GPUME_CUDA/GPUME_OPENCL: the backends FFmpeg was configured with
TEST_ENV = BUILDDIR=$(BUILDDIR) FFMPEG=$(abspath $(FFMPEG)) FFPROBE=$(abspath $(FFPROBE)) \
           FFMPEG_TREE=$(TREE) FFMPEG_BUILD=$(FFBUILD) CLIPS=$(CLIPS)                    \
           GPUME_CUDA=$$(grep -q '^CONFIG_CUDA_LLVM=yes\|^CONFIG_CUDA_NVCC=yes' $(FFBUILD)/ffbuild/config.mak && echo yes || echo no) \
           GPUME_OPENCL=$$(grep -q '^CONFIG_OPENCL=yes' $(FFBUILD)/ffbuild/config.mak && echo yes || echo no)

# a phone-like clip (HEVC and AAC, 2 s, 1280x720 4:2:0) that the full ffmpeg
# makes from cockatoo.mp4 and its audio: the README's examples read it
PHONE_CLIP = $(CLIPS)/phone.mp4
phone-clip: $(if $(filter yes,$(MINIMAL)),,$(PHONE_CLIP))
$(PHONE_CLIP): | ffmpeg clips
	$(FFMPEG) -nostdin -v error -y -i $(CLIPS)/cockatoo.mp4 -t 2 -vf format=yuv420p \
	    -c:v libx265 -preset fast -x265-params log-level=error -tag:v hvc1 \
	    -c:a aac -b:a 128k $@.tmp.mp4
	mv $@.tmp.mp4 $@

check: ffmpeg clips phone-clip
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

# H.264 (libx264) with the input's audio in AAC; the minimal build has
# neither, and writes MPEG-4 Part 2 without audio
DEMO_CODECS = $(if $(filter yes,$(MINIMAL)),-an -c:v mpeg4 -q:v 3,-c:v libx264 -crf 20 -preset fast -c:a aac -b:a 128k)
demo: ffmpeg clips phone-clip
	$(FFMPEG) -nostdin -y -i $(DEMO_INPUT) -vf $(DEMO_FILTER) $(DEMO_CODECS) $(DEMO_OUTPUT)
	$(SHELL) tools/frc-demo.sh $(FFMPEG) $(DEMO_INPUT) mcfps-demo

bench: ffmpeg clips
	@test -f tools/bench.sh || { echo "tools/bench.sh missing" >&2; exit 1; }
	@echo "RUN tools/bench.sh"
	@$(TEST_ENV) $(SHELL) tools/bench.sh

# prediction quality of hme, lfs, full and mestimate at the same settings
# (docs/QUALITY.md); results kept in build/quality/
quality: ffmpeg gpume-mv
	@$(TEST_ENV) $(SHELL) tools/quality.sh

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

# make install [DESTDIR=DIR]: FFmpeg's programs, libraries, headers,
# pkg-config files and manual pages (with the filters' documentation) under
# PREFIX (./configure --prefix=DIR; /usr/local by default), gpume-mv, and the
# documentation in PREFIX/share/doc/gpume (README.md, and docs/ beside it as
# in this tree, where its links point). The programs find the libraries
# through the rpath $ORIGIN/../lib, so a tree staged with DESTDIR can move.
PREFIX  ?= /usr/local
DOCDIR   = $(PREFIX)/share/doc/gpume
DOCS     = $(wildcard docs/*.md docs/*.texi docs/*.png)
install: ffmpeg gpume-mv
	+$(MAKE) -C $(FFBUILD) $(SUBJOBS) install DESTDIR=$(DESTDIR)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(DOCDIR)/docs
	install -m 755 $(BUILDDIR)/gpume-mv $(DESTDIR)$(PREFIX)/bin/gpume-mv
	install -m 644 README.md $(DESTDIR)$(DOCDIR)/
	install -m 644 $(DOCS) $(DESTDIR)$(DOCDIR)/docs/

uninstall:
	+$(MAKE) -C $(FFBUILD) uninstall DESTDIR=$(DESTDIR)
	rm -f $(DESTDIR)$(PREFIX)/bin/gpume-mv
	rm -rf $(DESTDIR)$(DOCDIR)

# make patch: a git-format patch series per FFmpeg version that adds the
# filters to a clean tree of it, in BUILDDIR/patches/ffmpeg-V/ (sources
# fetched as for the build); make patch-9.0: one version
PATCH_VERSIONS = 7.1 8.1 9.0
srcdir_of = $(BUILDDIR)/ffmpeg$(if $(filter-out 7.1,$(1)),-$(1))-src
patch: $(PATCH_VERSIONS:%=patch-%)
$(PATCH_VERSIONS:%=patch-%): patch-%: | deps
	@test -f $(call srcdir_of,$*)/configure || \
	    $(SHELL) tools/fetch-ffmpeg.sh $(BUILDDIR)/fetch $(call srcdir_of,$*) $*
	$(SHELL) tools/make-patch.sh . $(call srcdir_of,$*) $(BUILDDIR)/patches/ffmpeg-$* $(BUILDDIR)/patch-work/$*
	@rm -rf $(BUILDDIR)/patch-work/$*
# make patch-check-9.0: the series applies to a clean tree and gives what the
# overlay gives (the patched tree is left in BUILDDIR/ffmpeg-9.0-patched, for
# ./configure --ffmpeg-source=... to build)
$(PATCH_VERSIONS:%=patch-check-%): patch-check-%: patch-%
	$(SHELL) tools/check-patch.sh . $(call srcdir_of,$*) $(BUILDDIR)/patches/ffmpeg-$* $(BUILDDIR)/ffmpeg-$*-patched

clean:
	if [ -f $(FFBUILD)/Makefile ]; then $(MAKE) -C $(FFBUILD) clean; fi
	rm -f $(DEMO_OUTPUT) mcfps-demo.mp4 mcfps-demo.png

distclean:
	rm -rf $(BUILDDIR)
	rm -f config.mak $(DEMO_OUTPUT) mcfps-demo.mp4 mcfps-demo.png

.PHONY: all deps clips phone-clip overlay ffmpeg-configure ffmpeg check install uninstall patch $(PATCH_VERSIONS:%=patch-%) $(PATCH_VERSIONS:%=patch-check-%) fate fate-ref $(FATE_TARGETS) $(FATE_TARGETS:%=%-ref) demo bench quality clean distclean

# make fuzz, make fuzz-mcfps: the libFuzzer targets under ASan+UBSan (rules in tests/fuzz/fuzz.mak)
include tests/fuzz/fuzz.mak
