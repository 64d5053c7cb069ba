;******************************************************************************
;* gpume: SIMD functions of the CPU backend
;*
;* This file is part of FFmpeg.
;*
;* FFmpeg is free software; you can redistribute it and/or
;* modify it under the terms of the GNU Lesser General Public
;* License as published by the Free Software Foundation; either
;* version 2.1 of the License, or (at your option) any later version.
;*
;* FFmpeg is distributed in the hope that it will be useful,
;* but WITHOUT ANY WARRANTY; without even the implied warranty of
;* MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
;* Lesser General Public License for more details.
;*
;* You should have received a copy of the GNU Lesser General Public
;* License along with FFmpeg; if not, write to the Free Software
;* Foundation, Inc., 51 Franklin Street, Fifth Floor, Boston, MA 02110-1301 USA
;******************************************************************************

%include "libavutil/x86/x86util.asm"

SECTION_RODATA

pw_2:    times 8 dw 2
pw_2048: times 8 dw 2048
pq_top_bit: dq 0x8000000000000000
pd_256:  dd 256
pq_2p24: dq 0x4170000000000000     ; 2^24, a double
; the mask of a row's first n bytes is the 16 bytes from first_bytes + 16 - n on
first_bytes: times 16 db 0xff
             times 16 db 0
; the bilinear weights (4 - fx) (4 - fy), fx (4 - fy), (4 - fx) fy, fx fy of
; the quarter-pel fractions fy * 4 + fx
bilinear_weights:
%assign wy 0
%rep 4
%assign wx 0
%rep 4
    db (4 - wx) * (4 - wy), wx * (4 - wy), (4 - wx) * wy, wx * wy
%assign wx wx + 1
%endrep
%assign wy wy + 1
%endrep

SECTION .text

%if ARCH_X86_64

;------------------------------------------------------------------------------
; void ff_gpume_sad4x4_rows(uint16_t *sad, ptrdiff_t sad_stride, const uint16_t *add,
;                           const uint8_t *cur, ptrdiff_t cur_stride,
;                           const uint8_t *ref, ptrdiff_t ref_stride, int w, int h)
;
; mpsadbw gives the SADs of a row of 4 samples at 8 consecutive positions:
; four of them, one per row of the block, make 8 candidates of a row.
;------------------------------------------------------------------------------
INIT_XMM sse4
cglobal gpume_sad4x4_rows, 9, 11, 8, sad, sstride, add, cur, cstride, ref, rstride, w, h, x, rstride3
    movd          m4, [curq]
    movd          m5, [curq+cstrideq]
    lea         curq, [curq+cstrideq*2]
    movd          m6, [curq]
    movd          m7, [curq+cstrideq]
    lea    rstride3q, [rstrideq*3]
    add     sstrideq, sstrideq          ; elements to bytes
    movsxdifnidn  wq, wd
.row:
    xor           xq, xq
.col:
    lea         curq, [refq+xq]         ; the block is in m4-m7: cur is free
    movu          m0, [curq]
    movu          m1, [curq+rstrideq]
    movu          m2, [curq+rstrideq*2]
    movu          m3, [curq+rstride3q]
    mpsadbw       m0, m4, 0
    mpsadbw       m1, m5, 0
    mpsadbw       m2, m6, 0
    mpsadbw       m3, m7, 0
    paddw         m0, m1
    paddw         m2, m3
    movu          m1, [addq+xq*2]
    paddw         m0, m2
    paddw         m0, m1
    movu [sadq+xq*2], m0
    add           xq, 8
    cmp           xq, wq
    jl .col
    add         sadq, sstrideq
    add         addq, sstrideq
    add         refq, rstrideq
    dec           hd
    jg .row
    RET

;------------------------------------------------------------------------------
; int ff_gpume_first_least(const uint16_t *v, int n)
;
; pminuw finds the least of all, phminposuw of the 8 that are left; then
; the first 8 that hold it give its place. With ymm, 16 values a step: where
; n is an odd multiple of 8, its first 8 go first, in both lanes.
;------------------------------------------------------------------------------
%macro FIRST_LEAST 0
cglobal gpume_first_least, 2, 4, 2, v, n, i, mask
    movsxdifnidn  nq, nd
    lea           vq, [vq+nq*2]         ; v at the end, i from -n up to 0
    neg           nq
    mov           iq, nq
    pcmpeqb       m0, m0
%if mmsize == 32
    test          nd, 8
    jz .least
    movu         xm1, [vq+iq*2]
    vinserti128   m1, m1, xm1, 1
    pminuw        m0, m1
    add           iq, 8
    jz .reduce
%endif
.least:
    movu          m1, [vq+iq*2]
    pminuw        m0, m1
    add           iq, mmsize / 2
    jl .least
.reduce:
%if mmsize == 32
    vextracti128 xm1, m0, 1
    pminuw       xm0, xm1
%endif
    phminposuw   xm0, xm0
%if mmsize == 32
    vpbroadcastw  m0, xm0               ; the least in every word
%else
    pshuflw       m0, m0, 0
    punpcklqdq    m0, m0                ; the least in every word
%endif
    mov           iq, nq
%if mmsize == 32
    test          nd, 8
    jz .find
    pcmpeqw      xm1, xm0, [vq+iq*2]
    pmovmskb   maskd, xm1
    test       maskd, maskd
    jnz .found
    add           iq, 8
%endif
.find:
    movu          m1, [vq+iq*2]
    pcmpeqw       m1, m0
    pmovmskb   maskd, m1
    test       maskd, maskd
    jnz .found
    add           iq, mmsize / 2
    jmp .find
.found:
    bsf        maskd, maskd
    shr        maskd, 1
    sub           iq, nq
    lea          eax, [iq+maskq]
    RET
%endmacro

INIT_XMM sse4
FIRST_LEAST
INIT_YMM avx2
FIRST_LEAST

; FIRST_BYTES dst, n, tmp: the mask of the first n bytes (0 to 16) into
; xm<dst>; negates n, clobbers tmpq
%macro FIRST_BYTES 3
    neg          %2q
    lea          %3q, [first_bytes]
    movu       xm%1, [%3q+%2q+16]
%endmacro

; SAD16 [mask]: the SAD of the 16 samples from curq+xq and refq+xq on,
; both cleared where mask is 0, added to m4
%macro SAD16 0-1
    movu          m0, [curq+xq]
    movu          m1, [refq+xq]
%if %0
    pand          m0, %1
    pand          m1, %1
%endif
    psadbw        m0, m1
    paddq         m4, m0
%endmacro

;------------------------------------------------------------------------------
; uint32_t ff_gpume_sad_rect(const uint8_t *cur, ptrdiff_t cur_stride,
;                            const uint8_t *ref, ptrdiff_t ref_stride,
;                            int w, int h, uint32_t limit)
;
; 16 samples a step; the last step of a row clears the samples from w on in
; both rows.
;------------------------------------------------------------------------------
INIT_XMM sse2
cglobal gpume_sad_rect, 7, 10, 5, cur, cstride, ref, rstride, w, h, limit, x, last, sum
    movsxdifnidn  wq, wd
    lea        lastq, [wq-1]
    and        lastq, ~15               ; where the last step starts
    sub           wq, lastq             ; its samples, 1 to 16
    FIRST_BYTES    3, w, x
    pxor          m4, m4                ; the sum, two quadwords
.row:
    xor           xq, xq
    cmp           xq, lastq
    jge .last
.col:
    SAD16
    add           xq, 16
    cmp           xq, lastq
    jl .col
.last:
    SAD16         m3
    pshufd        m0, m4, q1032
    paddq         m0, m4
    movd        sumd, m0
    cmp         sumd, limitd
    jae .end
    add         curq, cstrideq
    add         refq, rstrideq
    dec           hd
    jg .row
.end:
    mov          eax, sumd
    RET

;------------------------------------------------------------------------------
; uint32_t ff_gpume_sad_qpel(const uint8_t *cur, ptrdiff_t cur_stride,
;                            const uint8_t *ref, ptrdiff_t ref_stride,
;                            int fx, int fy, int w, int h)
;
; pmaddubsw weighs pairs of neighbouring samples of two rows; the
; interpolated samples fit bytes, so psadbw sums their errors, 8 at a time.
; Where w is not a multiple of 8, the last 8 of a row have the samples from
; w on cleared in both rows.
;------------------------------------------------------------------------------
; QPEL8 dst, src, stride, cur, mask: the SAD of 8 interpolated samples of a
; row from src against cur, masked where mask is not 0, into the low
; quadword of dst (xmm registers, weights in m5 and m6); clobbers m1-m3
%macro QPEL8 4-5
    movq          %1, [%2]
    movq         xm1, [%2+1]
    movq         xm2, [%2+%3]
    movq         xm3, [%2+%3+1]
    punpcklbw     %1, xm1
    punpcklbw    xm2, xm3
    pmaddubsw     %1, xm5
    pmaddubsw    xm2, xm6
    paddw         %1, xm2
    pmulhrsw      %1, xm7               ; (x + 8) >> 4
    packuswb      %1, %1
    movq         xm1, [%4]
%if %0 == 5
    pand          %1, %5
    pand         xm1, %5
%endif
    psadbw        %1, xm1               ; the low quadword is the row's
%endmacro

; QPEL_ROWS part: the rows, whole steps of 8 while x < full, then where
; part is 1 the last samples, masked by m8
%macro QPEL_ROWS 1
%%row:
    xor           xq, xq
%if %1
    test       fulld, fulld
    jz %%part
%endif
%%col:
    lea         tmpq, [refq+xq]
    QPEL8         m0, tmpq, rstrideq, curq+xq
    paddd         m4, m0
    add           xq, 8
    cmp           xq, fullq
    jl %%col
%if %1
%%part:
    lea         tmpq, [refq+xq]
    QPEL8         m0, tmpq, rstrideq, curq+xq, m8
    paddd         m4, m0
%endif
    add         curq, cstrideq
    add         refq, rstrideq
    dec           hd
    jg %%row
%endmacro

INIT_XMM ssse3
cglobal gpume_sad_qpel, 8, 11, 9, cur, cstride, ref, rstride, fx, fy, w, h, x, tmp, full
    lea         fyd, [fyq*4+fxq]
    lea        tmpq, [bilinear_weights]
    movd          m6, [tmpq+fyq*4]
    pshuflw       m5, m6, q0000         ; row 0 pairs
    pshuflw       m6, m6, q1111         ; row 1 pairs
    punpcklqdq    m5, m5
    punpcklqdq    m6, m6
    mova          m7, [pw_2048]
    pxor          m4, m4
    mov        fulld, wd
    and        fulld, ~7                ; the samples of whole steps
    mov         tmpd, wd
    and         tmpd, 7
    jnz .part
    QPEL_ROWS      0
    jmp .end
.part:
    FIRST_BYTES    8, tmp, fx           ; of the last w & 7 samples; fx is free
    QPEL_ROWS      1
.end:
    movd         eax, m4
    RET

;------------------------------------------------------------------------------
; void ff_gpume_sad_hpel(uint32_t *sad, const uint8_t *cur, ptrdiff_t cur_stride,
;                        const uint8_t *ref, ptrdiff_t ref_stride, int w, int h)
;
; Columns of 8, row by row. Each source row is read once: its samples
; between neighbours, pavgb, are the horizontal points of the output row it
; is, and its pairs L + C and C + R, as words, give with those of the next
; row the diagonal points below it and above the next: (sum + 2) >> 2.
; Two points' samples share a register, so that psadbw against the current
; row in both quadwords sums both.
;------------------------------------------------------------------------------
; HPEL_SOURCE hl, hr, hmid, c, t1, t2: row [rblkq] with its samples c (bytes,
; loaded) into words L + C in hl and C + R in hr, and its horizontal points
; (C with L, C with R) into the two quadwords of hmid; clobbers t1, t2
%macro HPEL_SOURCE 6
    movq          %5, [rblkq-1]
    movq          %6, [rblkq+1]
    pavgb         %3, %5, %4
    pavgb         %1, %6, %4
    punpcklqdq    %3, %1
    punpcklbw     %5, m0
    punpcklbw     %6, m0
    punpcklbw     %1, %4, m0
    paddw         %2, %1, %6
    paddw         %1, %5
%endmacro

; HPEL_DIAG dst, hl, hr, hl2, hr2: the diagonal points between two source
; rows, left then right, as bytes in the two quadwords of dst (dst may be hl)
%macro HPEL_DIAG 5
    paddw         %1, %2, %4
    paddw        m15, %3, %5
    paddw         %1, m1
    paddw        m15, m1
    psrlw         %1, 2
    psrlw        m15, 2
    packuswb      %1, m15
%endmacro

%macro SAD_HPEL 0
cglobal gpume_sad_hpel, 7, 11, 16, sad, cur, cstride, ref, rstride, w, h, x, rows, cblk, rblk
    movsxdifnidn  wq, wd
    pxor          m0, m0
    mova          m1, [pw_2]
    pxor          m2, m2                ; points 1 and 3 (up left, up right)
    pxor          m3, m3                ; 6 and 8 (down left, down right)
    pxor          m4, m4                ; 2 and 7 (up, down)
    pxor          m5, m5                ; 4 and 5 (left, right)
    xor           xq, xq
.strip:
    lea        rblkq, [refq+xq]
    sub        rblkq, rstrideq          ; source row -1
    lea        cblkq, [curq+xq]
    mov        rowsd, hd
    movq          m8, [rblkq]
    HPEL_SOURCE   m6, m7, m11, m8, m12, m13
    add        rblkq, rstrideq
    movq         m14, [rblkq]           ; row 0
    HPEL_SOURCE  m12, m13, m11, m14, m9, m10
    HPEL_DIAG     m9, m6, m7, m12, m13  ; output row 0's up left and up right
    pavgb        m10, m8, m14           ; its up
    mova          m6, m12
    mova          m7, m13
    mova          m8, m14
.row:
    ; in: m6, m7 the pairs of source row y, m8 its samples, m9 output row
    ; y's diagonal points above it, m10 its up point, m11 its horizontal
    movq         m12, [cblkq]
    punpcklqdq   m12, m12
    psadbw        m9, m12
    psadbw       m11, m12
    paddq         m2, m9
    paddq         m5, m11
    add        rblkq, rstrideq
    movq         m15, [rblkq]           ; source row y + 1
    pavgb         m9, m8, m15           ; the down point, the up of row y + 1
    punpcklqdq   m10, m9
    psadbw       m10, m12
    paddq         m4, m10
    mova         m10, m9
    HPEL_SOURCE  m13, m14, m11, m15, m8, m9
    mova          m8, m15
    HPEL_DIAG     m6, m6, m7, m13, m14
    mova          m9, m6                ; the diagonal points below, above row y + 1
    psadbw        m6, m12
    paddq         m3, m6
    mova          m6, m13
    mova          m7, m14
    add        cblkq, cstrideq
    dec        rowsd
    jg .row
    add           xq, 8
    cmp           xq, wq
    jl .strip
    ; the sums, in the order of gpume_subpel_offset()
    movd   [sadq+ 0], m2
    movd   [sadq+ 4], m4
    movd   [sadq+12], m5
    movd   [sadq+20], m3
    punpckhqdq    m2, m2
    punpckhqdq    m3, m3
    punpckhqdq    m4, m4
    punpckhqdq    m5, m5
    movd   [sadq+ 8], m2
    movd   [sadq+16], m5
    movd   [sadq+24], m4
    movd   [sadq+28], m3
    RET
%endmacro

INIT_XMM sse2
SAD_HPEL
INIT_XMM avx
SAD_HPEL

; SAD8ROWS sum, tmp, tmp2: the SADs of 8 rows of cblk against rblk, one
; per quadword, into sum; both pointers move 8 rows down
%macro SAD8ROWS 3
    pxor          %1, %1
%rep 8
    movu          %2, [cblkq]
%if cpuflag(avx)
    psadbw        %2, [rblkq]
%else
    movu          %3, [rblkq]
    psadbw        %2, %3
%endif
    paddd         %1, %2
    add        cblkq, cstrideq
    add        rblkq, rstrideq
%endrep
%endmacro

;------------------------------------------------------------------------------
; void ff_gpume_sad8x8_grid(uint32_t *sad, const uint8_t *cur, ptrdiff_t cur_stride,
;                           const uint8_t *ref, ptrdiff_t ref_stride, int cols, int rows)
;
; psadbw of 16 samples sums two blocks' rows at once, one in each quadword;
; with AVX2 four blocks a step, two in each lane, while four remain, and the
; last two of a row in xmm registers.
;------------------------------------------------------------------------------
%macro SAD8X8_GRID 0
cglobal gpume_sad8x8_grid, 7, 10, 3, sad, cur, cstride, ref, rstride, cols, rows, x, cblk, rblk
    movsxdifnidn colsq, colsd
    shl        colsq, 3                 ; blocks to samples
.brow:
    xor           xq, xq
.bcol:
    lea        cblkq, [curq+xq]
    lea        rblkq, [refq+xq]
%if mmsize == 32
    lea           xq, [xq+32]
    cmp           xq, colsq
    jg .pair
    SAD8ROWS      m0, m1, m2
    vextracti128 xm1, m0, 1
    shufps       xm0, xm1, q2020        ; the four sums, from the low dwords
    movu      [sadq], xm0
    add         sadq, 16
    cmp           xq, colsq
    jl .bcol
    jmp .next
.pair:
%else
    add           xq, 16
%endif
    SAD8ROWS     xm0, xm1, xm2
    pshufd       xm0, xm0, q0020        ; the two sums, from the low dwords
    movq      [sadq], xm0
    add         sadq, 8
%if mmsize == 16
    cmp           xq, colsq
    jl .bcol
%endif
.next:
    lea         curq, [curq+cstrideq*8]
    lea         refq, [refq+rstrideq*8]
    dec        rowsd
    jg .brow
    RET
%endmacro

INIT_XMM sse2
SAD8X8_GRID
%if HAVE_AVX2_EXTERNAL
INIT_YMM avx2
SAD8X8_GRID

;------------------------------------------------------------------------------
; ff_gpume_sad_qpel, AVX2: 8 columns at a time, two rows in the two lanes.
; Each source row's pairs of neighbours are interleaved once and weighed as
; row 0 of the output row it starts and row 1 of the one above it.
;------------------------------------------------------------------------------
; QPEL_COLUMN masked: the SADs of the 8 columns from rblkq and cblkq on, all
; rows, into m4, masked by m9 where masked is 1
%macro QPEL_COLUMN 1
    mov      rowsd, hd
    movq       xm0, [rblkq]
    movq       xm1, [rblkq+1]
    punpcklbw  xm0, xm1                 ; pairs of source row 0
    cmp      rowsd, 2
    jl %%last
%%rows:
    movq       xm1, [rblkq+rstrideq]
    movq       xm2, [rblkq+rstrideq+1]
    punpcklbw  xm1, xm2                 ; source row 1
    lea      rblkq, [rblkq+rstrideq*2]
    movq       xm2, [rblkq]
    movq       xm3, [rblkq+1]
    punpcklbw  xm2, xm3                 ; source row 2
    vinserti128 m0, m0, xm1, 1          ; rows 0 and 1 of the two output rows
    vinserti128 m1, m1, xm2, 1          ; rows 1 and 2
    pmaddubsw   m0, m5
    pmaddubsw   m1, m6
    paddw       m0, m1
    pmulhrsw    m0, m7                  ; (x + 8) >> 4
    packuswb    m0, m8                  ; the high quadwords 0
    movq       xm1, [cblkq]
    movq       xm3, [cblkq+cstrideq]
    vinserti128 m1, m1, xm3, 1
%if %1
    pand        m0, m9
    pand        m1, m9
%endif
    psadbw      m0, m1
    paddq       m4, m0
    lea      cblkq, [cblkq+cstrideq*2]
    mova       xm0, xm2                 ; source row 2 starts the next pair
    sub      rowsd, 2
    cmp      rowsd, 2
    jge %%rows
%%last:
    test     rowsd, rowsd
    jz %%end
    movq       xm1, [rblkq+rstrideq]
    movq       xm2, [rblkq+rstrideq+1]
    punpcklbw  xm1, xm2
    pmaddubsw  xm0, xm5
    pmaddubsw  xm1, xm6
    paddw      xm0, xm1
    pmulhrsw   xm0, xm7
    packuswb   xm0, xm8
    movq       xm1, [cblkq]
%if %1
    pand       xm0, xm9
    pand       xm1, xm9
%endif
    psadbw     xm0, xm1                 ; the high lane of m0 is 0
    paddq       m4, m0
%%end:
%endmacro

cglobal gpume_sad_qpel, 8, 13, 10, cur, cstride, ref, rstride, fx, fy, w, h, x, tmp, cblk, rblk, rows
    lea        fyd, [fyq*4+fxq]
    lea       tmpq, [bilinear_weights]
    vpbroadcastw m5, [tmpq+fyq*4]       ; row 0 pairs
    vpbroadcastw m6, [tmpq+fyq*4+2]     ; row 1 pairs
    vbroadcasti128 m7, [pw_2048]
    pxor        m4, m4
    pxor        m8, m8
    xor         xq, xq
    mov        tmpd, wd
    and        tmpd, 7                  ; the samples past the whole steps
    and         wd, ~7
    jz .part
.col:
    lea      cblkq, [curq+xq]
    lea      rblkq, [refq+xq]
    QPEL_COLUMN  0
    add         xq, 8
    cmp         xd, wd
    jl .col
.part:
    test       tmpd, tmpd
    jz .end
    FIRST_BYTES  9, tmp, fx             ; of the last w & 7 samples; fx is free
    vpbroadcastq m9, xm9
    lea      cblkq, [curq+xq]
    lea      rblkq, [refq+xq]
    QPEL_COLUMN  1
.end:
    vextracti128 xm0, m4, 1
    paddq      xm0, xm4
    movd       eax, xm0
    RET

;------------------------------------------------------------------------------
; void ff_gpume_min_keys(uint64_t *keys, const uint32_t *cost, uint32_t add,
;                        uint32_t idx, int n)
;
; Four keys a step. pcmpgtq compares signed quadwords: both keys have their
; top bit flipped for it.
;------------------------------------------------------------------------------
cglobal gpume_min_keys, 5, 5, 7, keys, cost, add, idx, n
    movd        xm2, addd
    vpbroadcastq m2, xm2                ; add, quadwords
    movd        xm3, idxd
    vpbroadcastq m3, xm3                ; idx, quadwords
    vpbroadcastq m4, [pq_top_bit]
.loop:
    pmovzxdq     m0, [costq]
    paddq        m0, m2
    psllq        m0, 32
    por          m0, m3                 ; the new keys
    movu         m1, [keysq]
    pxor         m5, m1, m4
    pxor         m6, m0, m4
    pcmpgtq      m5, m6                 ; where the new key is less
    pblendvb     m1, m1, m0, m5
    movu   [keysq], m1
    add       costq, 16
    add       keysq, 32
    sub          nd, 4
    jg .loop
    RET

;------------------------------------------------------------------------------
; void ff_gpume_dis_sums(int64_t *sums, const uint8_t *ref, ptrdiff_t stride,
;                        const int32_t *t, const int32_t *gx, const int32_t *gy,
;                        int fx, int fy)
;
; A row of the patch a step. The horizontal samples (16 - fx) r(x) +
; fx r(x + 1), at most 4080, are pmaddubsw of the pairs (r(x), r(x + 1));
; each row's serve the row above it too. The vertical sum of two rows' is at
; most 65280: exact in unsigned words, then dwords for e = s - t. Each lane
; sums one column: gx e and gy e stay below 2^27 there, e^2 below 2^32 goes
; to quadwords.
;------------------------------------------------------------------------------
; DIS_WEIGHTS fx, fy, tmp: the bilinear weights of fractions fx, fy (dword
; registers; fx and tmp clobbered): bytes 16 - fx, fx in xm8, words 16 - fy
; in xm9, words fy in xm10
%macro DIS_WEIGHTS 3
    mov          %3, 16
    sub          %3, %1
    shl          %1, 8
    or           %1, %3
    movd        xm8, %1
    vpbroadcastw xm8, xm8
    mov          %3, 16
    sub          %3, %2
    movd        xm9, %3
    vpbroadcastw xm9, xm9
    movd       xm10, %2
    vpbroadcastw xm10, xm10
%endmacro

; DIS_HSAMPLES dst, ptr, tmp: the horizontal samples (16 - fx) r(x) + fx r(x + 1)
; of the 9 bytes at ptr, x = 0 .. 7, into the words of xm<dst>; clobbers xm<tmp>
%macro DIS_HSAMPLES 3
    movq      xm%1, [%2]
    movq      xm%3, [%2+1]
    punpcklbw xm%1, xm%3
    pmaddubsw xm%1, xm8
%endmacro

; DIS_SUM_DWORDS i, n: the sum of the signed dwords of m<n> into sums[i]
%macro DIS_SUM_DWORDS 2
    vextracti128 xm0, m%2, 1
    paddd       xm0, xm%2
    pshufd      xm1, xm0, q1032
    paddd       xm0, xm1
    pshufd      xm1, xm0, q2301
    paddd       xm0, xm1
    movd       rowd, xm0
    movsxd     rowq, rowd
    mov [sumsq+8*%1], rowq
%endmacro

cglobal gpume_dis_sums, 8, 9, 11, sums, ref, stride, t, gx, gy, fx, fy, row
    DIS_WEIGHTS fxd, fyd, rowd
    pxor         m4, m4                 ; gx e
    pxor         m5, m5                 ; gy e
    pxor         m6, m6                 ; e
    pxor         m7, m7                 ; e^2, quadwords
    DIS_HSAMPLES 0, refq, 1             ; row 0's horizontal samples
    mov        rowd, 8
.row:
    add        refq, strideq
    DIS_HSAMPLES 1, refq, 2             ; the next row's
    pmullw      xm2, xm0, xm9
    pmullw      xm3, xm1, xm10
    paddw       xm2, xm3
    mova        xm0, xm1
    pmovzxwd     m2, xm2                ; s
    movu         m3, [tq]
    psubd        m2, m3                 ; e
    paddd        m6, m2
    pmulld       m3, m2, [gxq]
    paddd        m4, m3
    pmulld       m3, m2, [gyq]
    paddd        m5, m3
    pmuldq       m3, m2, m2             ; the even lanes' e^2
    paddq        m7, m3
    psrlq        m2, 32
    pmuldq       m2, m2                 ; the odd lanes'
    paddq        m7, m2
    add          tq, 32
    add         gxq, 32
    add         gyq, 32
    dec        rowd
    jg .row
    DIS_SUM_DWORDS 0, 4
    DIS_SUM_DWORDS 1, 5
    DIS_SUM_DWORDS 2, 6
    vextracti128 xm0, m7, 1
    paddq       xm0, xm7
    pshufd      xm1, xm0, q1032
    paddq       xm0, xm1
    movq  [sumsq+24], xm0
    RET

;------------------------------------------------------------------------------
; void ff_gpume_dis_template(int32_t *t, int32_t *gx, int32_t *gy, int32_t *sums,
;                            const uint8_t *c, ptrdiff_t stride)
;
; A row of the patch a step, its samples and central differences in the
; dwords of one register; the sums in dwords (at most 64 * 255^2).
;------------------------------------------------------------------------------
cglobal gpume_dis_template, 6, 8, 8, t, gx, gy, sums, c, stride, up, row
    mov         upq, cq
    sub         upq, strideq            ; the row above
    pxor         m3, m3                 ; gx^2
    pxor         m4, m4                 ; gx gy
    pxor         m5, m5                 ; gy^2
    pxor         m6, m6                 ; gx
    pxor         m7, m7                 ; gy
    mov        rowd, 8
.row:
    pmovzxbd     m0, [cq+1]
    pmovzxbd     m2, [cq-1]
    psubd        m0, m2                 ; gx
    pmovzxbd     m1, [upq+strideq*2]
    pmovzxbd     m2, [upq]
    psubd        m1, m2                 ; gy
    pmovzxbd     m2, [cq]
    pslld        m2, 8
    movu       [tq], m2
    movu      [gxq], m0
    movu      [gyq], m1
    paddd        m6, m0
    paddd        m7, m1
    pmulld       m2, m0, m1
    paddd        m4, m2
    pmulld       m0, m0
    paddd        m3, m0
    pmulld       m1, m1
    paddd        m5, m1
    add          cq, strideq
    add         upq, strideq
    add          tq, 32
    add         gxq, 32
    add         gyq, 32
    dec        rowd
    jg .row
    phaddd       m3, m4
    phaddd       m5, m6
    phaddd       m3, m5                 ; each lane's gx^2, gx gy, gy^2, gx
    vextracti128 xm0, m3, 1
    paddd       xm0, xm3
    movu    [sumsq], xm0
    vextracti128 xm1, m7, 1
    paddd       xm1, xm7
    phaddd      xm1, xm1
    phaddd      xm1, xm1
    movd [sumsq+16], xm1
    RET

;------------------------------------------------------------------------------
; void ff_gpume_dis_weights(int64_t *acc, ptrdiff_t plane, const uint8_t *ref,
;                           ptrdiff_t stride, const uint8_t *cur, int fx, int fy,
;                           const int32_t *v)
;
; The samples as in gpume_dis_sums. The weights 2^24 / max(e, 256) by
; vdivpd: the quotient of two integers below 2^25 lies 1/65280 or more from
; any integer it is not, far beyond a double's error, so it truncates to the
; integer quotient. The products wt vx and wt vy in quadwords, by pmuldq.
;------------------------------------------------------------------------------
; DIS_ADD_PRODUCTS ptr, n: the 8 quadwords at ptr += the weights (quadwords,
; m3 and m4) times the dword in each quadword of m<n>; clobbers m7, m8
%macro DIS_ADD_PRODUCTS 2
    pmuldq       m7, m3, m%2
    pmuldq       m8, m4, m%2
    paddq        m7, [%1]
    paddq        m8, [%1+32]
    movu       [%1], m7
    movu    [%1+32], m8
%endmacro

cglobal gpume_dis_weights, 8, 9, 11, acc, plane, ref, stride, cur, fx, fy, vec, ptr
    DIS_WEIGHTS fxd, fyd, ptrd
    DIS_HSAMPLES 0, refq, 1
    add        refq, strideq
    DIS_HSAMPLES 1, refq, 2
    pmullw      xm0, xm9
    pmullw      xm1, xm10
    paddw       xm0, xm1
    pmovzxwd     m0, xm0                ; s
    pmovzxbd     m1, [curq]
    pslld        m1, 8
    psubd        m0, m1
    pabsd        m0, m0
    vpbroadcastd m1, [pd_256]
    pmaxsd       m0, m1                 ; max(e, 256)
    vbroadcastsd m2, [pq_2p24]
    vcvtdq2pd    m3, xm0
    vextracti128 xm4, m0, 1
    vcvtdq2pd    m4, xm4
    vdivpd       m3, m2, m3
    vdivpd       m4, m2, m4
    vcvttpd2dq  xm3, m3
    vcvttpd2dq  xm4, m4
    pmovzxdq     m3, xm3                ; wt of pixels 0 to 3, quadwords
    pmovzxdq     m4, xm4                ; of pixels 4 to 7
    vpbroadcastd m5, [vecq]
    vpbroadcastd m6, [vecq+4]
    lea        ptrq, [accq+planeq*8]
    DIS_ADD_PRODUCTS accq, 5            ; wt vx
    DIS_ADD_PRODUCTS ptrq, 6            ; wt vy
    lea        ptrq, [ptrq+planeq*8]
    paddq        m3, [ptrq]
    paddq        m4, [ptrq+32]
    movu     [ptrq], m3
    movu  [ptrq+32], m4
    RET
%endif

%endif ; ARCH_X86_64
