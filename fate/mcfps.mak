# FATE tests of the mcfps filter (installed as tests/fate/mcfps.mak by
# tools/overlay.sh; references in fate/ref/ -> tests/ref/fate/).
#
# mcfps reads the vectors of gpume=device=cpu (deterministic on every
# machine) and interpolates on the CPU reference; the frame CRCs depend on
# every step of docs/ALGORITHMS.md "mcfps" and on the output timestamps.
#
#   make fate-mcfps                 run them all (from the top-level Makefile)
#   make fate-mcfps-ref             regenerate the references into fate/ref/

# testsrc2 seen through a window moving by (3, 1) pixels per frame, 25 fps,
# 8 frames of 160x120 (global motion plus testsrc2's own moving parts)
MCFPS_SRC  = testsrc2=s=240x160:r=25:d=0.32,crop=160:120:x=3*n:y=n
# the same at 60 fps, 12 frames: down-conversion
MCFPS_SRC60 = testsrc2=s=240x160:r=60:d=0.2,crop=160:120:x=3*n:y=n
# a cut: the window jumps to another part of the picture after frame 4
MCFPS_CUT  = testsrc2=s=320x240:r=25:d=0.32,crop=160:120:x=if(lt(n\\,4)\\,3*n\\,150):y=if(lt(n\\,4)\\,n\\,110)
MCFPS_ME   = gpume=device=cpu:dir=bi

MCFPS_FATE_DEPS = GPUME MCFPS TESTSRC2 CROP

# 25 -> 60: phases 104, 208, 56, 160, 8, ... every 12 frames; every 5th
# output is an input frame passed through
FATE_MCFPS-$(call FILTERFRAMECRC, $(MCFPS_FATE_DEPS)) += fate-mcfps-up
fate-mcfps-up: CMD = framecrc -lavfi $(MCFPS_SRC),$(MCFPS_ME),mcfps=fps=60

# x4 slow motion (25 -> 100): phases 64, 128, 192
FATE_MCFPS-$(call FILTERFRAMECRC, $(MCFPS_FATE_DEPS)) += fate-mcfps-x4
fate-mcfps-x4: CMD = framecrc -lavfi $(MCFPS_SRC),$(MCFPS_ME),mcfps=fps=100

# 60 -> 25, motion-compensated (phases 0, 102, 205, 51, 154)
FATE_MCFPS-$(call FILTERFRAMECRC, $(MCFPS_FATE_DEPS)) += fate-mcfps-down
fate-mcfps-down: CMD = framecrc -lavfi $(MCFPS_SRC60),$(MCFPS_ME),mcfps=fps=25

# NTSC rate syntax, forward vectors only (the backward field derived)
FATE_MCFPS-$(call FILTERFRAMECRC, $(MCFPS_FATE_DEPS)) += fate-mcfps-fwd
fate-mcfps-fwd: CMD = framecrc -lavfi $(MCFPS_SRC),gpume=device=cpu:dir=fwd,mcfps=fps=ntsc

# a scene cut: each tick of the pair a copy of the nearer input (here the
# one tick at the middle: the earlier input)
FATE_MCFPS-$(call FILTERFRAMECRC, $(MCFPS_FATE_DEPS)) += fate-mcfps-cut
fate-mcfps-cut: CMD = framecrc -lavfi "$(MCFPS_CUT),$(MCFPS_ME),mcfps=fps=50"

# odd size, 4:2:2 chroma following the luma vectors
FATE_MCFPS-$(call FILTERFRAMECRC, $(MCFPS_FATE_DEPS) FORMAT) += fate-mcfps-odd
fate-mcfps-odd: CMD = framecrc -lavfi testsrc2=s=67x37:r=25:d=0.2,format=yuv422p,$(MCFPS_ME),mcfps=fps=50

# nv12 and nv21 (NVDEC's nv12): by definition the yuv420p conversion with
# the chroma interleaved. The yuv420p tests write their output as nv12 (or
# nv21); the nv12 (nv21) tests convert nv12 (nv21) frames and are compared
# with those references, as FFmpeg's overlay_nv12 is with overlay_yuv420
# (so a regenerated reference of an nv12 test would overwrite the yuv420p
# one, and the yuv420p test would fail)
MCFPS_NV12_DEPS = $(MCFPS_FATE_DEPS) FORMAT SCALE
FATE_MCFPS-$(call FILTERFRAMECRC, $(MCFPS_NV12_DEPS)) += fate-mcfps-yuv420p-as-nv12
fate-mcfps-yuv420p-as-nv12: CMD = framecrc -lavfi $(MCFPS_SRC),format=yuv420p,$(MCFPS_ME),mcfps=fps=100,scale,format=nv12

FATE_MCFPS-$(call FILTERFRAMECRC, $(MCFPS_NV12_DEPS)) += fate-mcfps-nv12
fate-mcfps-nv12: CMD = framecrc -lavfi $(MCFPS_SRC),format=yuv420p,scale,format=nv12,$(MCFPS_ME),mcfps=fps=100
fate-mcfps-nv12: REF = $(SRC_PATH)/tests/ref/fate/mcfps-yuv420p-as-nv12

# odd size, moving: the last chroma column and row
MCFPS_ODD = testsrc2=s=96x64:r=25:d=0.2,format=yuv420p,crop=67:37:x=2*n:y=n:exact=1
FATE_MCFPS-$(call FILTERFRAMECRC, $(MCFPS_NV12_DEPS)) += fate-mcfps-yuv420p-as-nv21
fate-mcfps-yuv420p-as-nv21: CMD = framecrc -lavfi $(MCFPS_ODD),$(MCFPS_ME),mcfps=fps=50,scale,format=nv21

FATE_MCFPS-$(call FILTERFRAMECRC, $(MCFPS_NV12_DEPS)) += fate-mcfps-nv21
fate-mcfps-nv21: CMD = framecrc -lavfi $(MCFPS_ODD),scale,format=nv21,$(MCFPS_ME),mcfps=fps=50
fate-mcfps-nv21: REF = $(SRC_PATH)/tests/ref/fate/mcfps-yuv420p-as-nv21

# the comparison modes (no vectors needed)
FATE_MCFPS-$(call FILTERFRAMECRC, MCFPS TESTSRC2 CROP) += fate-mcfps-blend
fate-mcfps-blend: CMD = framecrc -lavfi $(MCFPS_SRC),mcfps=fps=60:mode=blend

FATE_MCFPS-$(call FILTERFRAMECRC, MCFPS TESTSRC2 CROP) += fate-mcfps-dup
fate-mcfps-dup: CMD = framecrc -lavfi $(MCFPS_SRC),mcfps=fps=60:mode=dup

# what the output frames carry: no vectors, no lavfi.gpume.* keys, no pict_type
FATE_MCFPS_FFPROBE-$(call ALLYES, GPUME_FILTER MCFPS_FILTER TESTSRC2_FILTER CROP_FILTER LAVFI_INDEV WRAPPED_AVFRAME_DECODER) += fate-mcfps-sidedata
fate-mcfps-sidedata: CMD = run ffprobe$(PROGSSUF)$(EXESUF) -bitexact -of compact=p=0 -show_entries frame=pts,pict_type:frame_tags:frame_side_data=side_data_type -f lavfi "$(MCFPS_SRC),$(MCFPS_ME),mcfps=fps=50"

FATE_FFMPEG  += $(FATE_MCFPS-yes)
FATE_FFPROBE += $(FATE_MCFPS_FFPROBE-yes)

FATE_MCFPS = $(FATE_MCFPS-yes) $(FATE_MCFPS_FFPROBE-yes)
fate-mcfps: $(FATE_MCFPS)
