# FATE tests of the gpume filter (installed as tests/fate/gpume.mak by
# tools/overlay.sh; references in fate/ref/ -> tests/ref/fate/).
#
# Every test uses device=cpu: the CPU reference backend is deterministic (the
# same vectors for any number of slice threads and on any CPU), so the
# references hold everywhere, with or without a GPU. The drawn vectors
# (codecview) make the frame CRCs depend on the exported motion vectors; the
# ffprobe test checks the per-frame metadata and which frames carry vectors.
#
#   make fate-gpume                 run them all (from the top-level Makefile)
#   make fate-gpume-ref             regenerate the references into fate/ref/

# testsrc2 seen through a crop window moving by (2, 1) pixels per frame:
# global motion plus testsrc2's own moving parts; 10 frames of 320x240
GPUME_SRC = testsrc2=s=400x300:r=25:d=0.4,crop=320:240:x=2*n:y=n

GPUME_FATE_DEPS = GPUME CODECVIEW TESTSRC2 CROP

FATE_GPUME-$(call FILTERFRAMECRC, $(GPUME_FATE_DEPS)) += fate-gpume-full
fate-gpume-full: CMD = framecrc -lavfi $(GPUME_SRC),gpume=device=cpu:algo=full,codecview=mv=pf

FATE_GPUME-$(call FILTERFRAMECRC, $(GPUME_FATE_DEPS)) += fate-gpume-hme
fate-gpume-hme: CMD = framecrc -lavfi $(GPUME_SRC),gpume=device=cpu:algo=hme,codecview=mv=pf

FATE_GPUME-$(call FILTERFRAMECRC, $(GPUME_FATE_DEPS)) += fate-gpume-lfs
fate-gpume-lfs: CMD = framecrc -lavfi $(GPUME_SRC),gpume=device=cpu:algo=lfs,codecview=mv=pf

FATE_GPUME-$(call FILTERFRAMECRC, $(GPUME_FATE_DEPS)) += fate-gpume-dis
fate-gpume-dis: CMD = framecrc -lavfi $(GPUME_SRC),gpume=device=cpu:algo=dis:dir=bi,codecview=mv=pf+bf+bb

# cost-optimal partition: blocks from 4x4 to 32x32
FATE_GPUME-$(call FILTERFRAMECRC, $(GPUME_FATE_DEPS)) += fate-gpume-block-auto
fate-gpume-block-auto: CMD = framecrc -lavfi $(GPUME_SRC),gpume=device=cpu:algo=full:block=auto,codecview=mv=pf

# forward and backward vectors (B frames), the last frame flushed with
# forward vectors only (P): draw all three kinds
FATE_GPUME-$(call FILTERFRAMECRC, $(GPUME_FATE_DEPS)) += fate-gpume-bi
fate-gpume-bi: CMD = framecrc -lavfi $(GPUME_SRC),gpume=device=cpu:algo=hme:dir=bi,codecview=mv=pf+bf+bb

# integer vectors, temporal predictor, 16x16 CTUs with 8x8 blocks
FATE_GPUME-$(call FILTERFRAMECRC, $(GPUME_FATE_DEPS)) += fate-gpume-subpel0
fate-gpume-subpel0: CMD = framecrc -lavfi $(GPUME_SRC),gpume=device=cpu:algo=full:subpel=0:pred=temporal:ctu=16:block=8:range=8,codecview=mv=pf

# natural camera motion: 5 decoded frames of the yuv444p H.264 clip, cropped
# (no scaling before gpume: the vectors come from the decoder's luma as is);
# the conversion codecview needs comes after gpume, bitexact
FATE_GPUME_SAMPLES-$(call FILTERDEMDEC, GPUME CODECVIEW CROP SCALE FORMAT, MOV, H264) += fate-gpume-cockatoo
fate-gpume-cockatoo: CMD = framecrc -i $(TARGET_SAMPLES)/cockatoo.mp4 -an -frames:v 5 -sws_flags +accurate_rnd+bitexact -vf crop=320:240:480:240,gpume=device=cpu:algo=hme,scale,format=yuv420p,codecview=mv=pf

# per-frame metadata and side data, read with ffprobe through lavfi
FATE_GPUME_FFPROBE-$(call ALLYES, GPUME_FILTER TESTSRC2_FILTER CROP_FILTER LAVFI_INDEV WRAPPED_AVFRAME_DECODER) += fate-gpume-metadata
fate-gpume-metadata: CMD = run ffprobe$(PROGSSUF)$(EXESUF) -bitexact -of compact=p=0 -show_entries frame=pts,pict_type:frame_tags=lavfi.gpume.mean_sad,lavfi.gpume.scene_score:frame_side_data=side_data_type -f lavfi "$(GPUME_SRC),gpume=device=cpu:algo=full"

FATE_GPUME_FFPROBE-$(call ALLYES, GPUME_FILTER TESTSRC2_FILTER CROP_FILTER LAVFI_INDEV WRAPPED_AVFRAME_DECODER) += fate-gpume-metadata-bwd
fate-gpume-metadata-bwd: CMD = run ffprobe$(PROGSSUF)$(EXESUF) -bitexact -of compact=p=0 -show_entries frame=pts,pict_type:frame_tags=lavfi.gpume.mean_sad,lavfi.gpume.scene_score:frame_side_data=side_data_type -f lavfi "$(GPUME_SRC),gpume=device=cpu:algo=lfs:dir=bwd"

# dir=bi: the metadata describe the forward vectors on every frame, so the
# first frame (backward vectors only, B) has no key
FATE_GPUME_FFPROBE-$(call ALLYES, GPUME_FILTER TESTSRC2_FILTER CROP_FILTER LAVFI_INDEV WRAPPED_AVFRAME_DECODER) += fate-gpume-metadata-bi
fate-gpume-metadata-bi: CMD = run ffprobe$(PROGSSUF)$(EXESUF) -bitexact -of compact=p=0 -show_entries frame=pts,pict_type:frame_tags=lavfi.gpume.mean_sad,lavfi.gpume.scene_score:frame_side_data=side_data_type -f lavfi "$(GPUME_SRC),gpume=device=cpu:algo=full:dir=bi"

# two instances: a frame without vectors of the second carries nothing of
# the first (frame 0: I, no key, no vectors; not the first's B and mean_sad)
FATE_GPUME_FFPROBE-$(call ALLYES, GPUME_FILTER TESTSRC2_FILTER CROP_FILTER LAVFI_INDEV WRAPPED_AVFRAME_DECODER) += fate-gpume-metadata-chain
fate-gpume-metadata-chain: CMD = run ffprobe$(PROGSSUF)$(EXESUF) -bitexact -of compact=p=0 -show_entries frame=pts,pict_type:frame_tags=lavfi.gpume.mean_sad,lavfi.gpume.scene_score:frame_side_data=side_data_type -f lavfi "$(GPUME_SRC),gpume=device=cpu:algo=lfs:dir=bwd,gpume=device=cpu:algo=hme"

FATE_FFMPEG         += $(FATE_GPUME-yes)
FATE_SAMPLES_FFMPEG += $(FATE_GPUME_SAMPLES-yes)
FATE_FFPROBE        += $(FATE_GPUME_FFPROBE-yes)

# the sample test needs SAMPLES (configure --samples or make SAMPLES=...)
FATE_GPUME = $(FATE_GPUME-yes) $(FATE_GPUME_FFPROBE-yes) $(if $(SAMPLES),$(FATE_GPUME_SAMPLES-yes))
fate-gpume: $(FATE_GPUME)
