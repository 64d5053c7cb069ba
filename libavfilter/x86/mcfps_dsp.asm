;******************************************************************************
;* mcfps: SIMD functions of the CPU backend
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

SECTION_RODATA 32

pw_2048: times 16 dw 2048
pw_255:  times 8 dw 255
pd_2048: times 4 dd 2048
; the mask of a row's first n bytes is the 16 bytes from first_bytes + 16 - n on
first_bytes: times 16 db 0xff
             times 16 db 0
; the pairs of samples (k + t, k + t + 1), k = 0 .. 7, of a row's 15 samples
; loaded as bytes 0-7 = samples 0-7 and bytes 8-15 = samples 7-14
; the same for 4 taps: bytes 0-7 = samples 0-7, bytes 8-15 = samples 3-10
pred4_pairs: db 0, 1, 1, 2,  2,  3,  3,  4,  4,  5,  5,  6,  6,  7,  7, 13
             db 2, 3, 3, 4,  4,  5,  5,  6,  6,  7,  7, 13, 13, 14, 14, 15
; the same pairs for 4 outputs of two rows (or of a row of two planes),
; loaded as bytes 0-7 and 8-15
pred4x2_pairs: db 0, 1, 1, 2,  2,  3,  3,  4,  8,  9,  9, 10, 10, 11, 11, 12
               db 2, 3, 3, 4,  4,  5,  5,  6, 10, 11, 11, 12, 12, 13, 13, 14
pred8_pairs: db 0, 1, 1, 2,  2,  3,  3,  4,  4,  5,  5,  6,  6,  7,  7,  9
             db 2, 3, 3, 4,  4,  5,  5,  6,  6,  7,  7,  9,  9, 10, 10, 11
             db 4, 5, 5, 6,  6,  7,  7,  9,  9, 10, 10, 11, 11, 12, 12, 13
             db 6, 7, 7, 9,  9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15

SECTION .text

%if ARCH_X86_64

; BILINEAR dst, tmp, src, stride, w0, w1: the 16 samples of a row,
; (w0 pairs of row 0 + w1 pairs of row 1 + 8) >> 4, as bytes in dst
%macro BILINEAR 6
    movu          %1, [%3]
    movu         m12, [%3+1]
    mova          %2, %1
    punpcklbw     %1, m12
    punpckhbw     %2, m12
    pmaddubsw     %1, %5
    pmaddubsw     %2, %5
    movu         m12, [%3+%4]
    movu         m13, [%3+%4+1]
    mova         m14, m12
    punpcklbw    m12, m13
    punpckhbw    m14, m13
    pmaddubsw    m12, %6
    pmaddubsw    m14, %6
    paddw         %1, m12
    paddw         %2, m14
    pmulhrsw      %1, m10               ; (x + 8) >> 4
    pmulhrsw      %2, m10
    packuswb      %1, %2
%endmacro

;------------------------------------------------------------------------------
; uint32_t ff_mcfps_bilateral_sad16(const uint8_t *a, ptrdiff_t a_stride,
;                                   const uint8_t *b, ptrdiff_t b_stride,
;                                   const int8_t *w, int h, uint32_t limit)
; uint32_t ff_mcfps_bilateral_sad_part(const uint8_t *a, ptrdiff_t a_stride,
;                                      const uint8_t *b, ptrdiff_t b_stride,
;                                      const int8_t *w, int h, uint32_t limit,
;                                      int width)
;
; pmaddubsw weighs pairs of neighbouring samples; the interpolated samples
; fit bytes, so psadbw sums a row's errors. The _part version clears the
; samples from width on in both rows first, so that they add nothing.
;------------------------------------------------------------------------------

; BILATERAL_MASK mask: the mask of the first width bytes into m<mask>, both
; lanes; clobbers sumq
%macro BILATERAL_MASK 1
    movsxd    widthq, widthd
    lea         sumq, [first_bytes + 16]
    sub         sumq, widthq
%if mmsize == 32
    vbroadcasti128 m%1, [sumq]
%else
    movu         m%1, [sumq]
%endif
%endmacro

; SAD_LOOP a, b, acc, mask, part: the SADs of the rows in m<a> and m<b>
; (their first width samples, m<mask>, where part is 1; with ymm two rows,
; one in each lane) added to the quadword sums of m<acc>, their total into
; sumd; on to the next row, or two, at .rows while they are left and the
; total is below the limit
%macro SAD_LOOP 5
%if %5
    pand          m%1, m%4
    pand          m%2, m%4
%endif
    psadbw        m%1, m%2
    paddq         m%3, m%1
%if mmsize == 32
    vextracti128 xm%2, m%3, 1
    paddq        xm%2, xm%3
    pshufd       xm%1, xm%2, q1032
    paddq        xm%1, xm%2
%else
    pshufd        m%1, m%3, q1032
    paddq         m%1, m%3
%endif
    movd         sumd, xm%1
    cmp          sumd, limitd
    jae .end
%if mmsize == 32
    lea            aq, [aq+astrideq*2]
    lea            bq, [bq+bstrideq*2]
    sub            hd, 2
    jge .rows
%else
    add            aq, astrideq
    add            bq, bstrideq
    dec            hd
    jg .rows
%endif
%endmacro

; BILATERAL_SAD_SSSE3 name, part: the function, the _part version where
; part is 1
%macro BILATERAL_SAD_SSSE3 2
%if %2
cglobal mcfps_%1, 8, 9, 16, a, astride, b, bstride, w, h, limit, width, sum
    BILATERAL_MASK 15
%else
cglobal mcfps_%1, 7, 8, 15, a, astride, b, bstride, w, h, limit, sum
%endif
    movq          m9, [wq]
    pshuflw       m6, m9, q0000         ; a's row 0 weights, pairs
    pshuflw       m7, m9, q1111         ; a's row 1
    pshuflw       m8, m9, q2222         ; b's row 0
    pshuflw       m9, m9, q3333         ; b's row 1
    punpcklqdq    m6, m6
    punpcklqdq    m7, m7
    punpcklqdq    m8, m8
    punpcklqdq    m9, m9
    mova         m10, [pw_2048]
    pxor         m11, m11               ; the sum, two quadwords
.rows:
    BILINEAR      m0, m1, aq, astrideq, m6, m7
    BILINEAR      m2, m3, bq, bstrideq, m8, m9
    SAD_LOOP       0, 2, 11, 15, %2
.end:
    mov          eax, sumd
    RET
%endmacro

INIT_XMM ssse3
BILATERAL_SAD_SSSE3 bilateral_sad16, 0
BILATERAL_SAD_SSSE3 bilateral_sad_part, 1

;------------------------------------------------------------------------------
; uint32_t ff_mcfps_sad16(const uint8_t *a, ptrdiff_t a_stride,
;                         const uint8_t *b, ptrdiff_t b_stride,
;                         int h, uint32_t limit)
; uint32_t ff_mcfps_sad_part(const uint8_t *a, ptrdiff_t a_stride,
;                            const uint8_t *b, ptrdiff_t b_stride,
;                            int h, uint32_t limit, int width)
;
; bilateral_sad16() of samples already interpolated (bilinear_plane()); the
; sum is tested against the limit every row
;------------------------------------------------------------------------------
; PHASE_SAD_SSE2 name, part: as BILATERAL_SAD_SSSE3
%macro PHASE_SAD_SSE2 2
%if %2
cglobal mcfps_%1, 7, 8, 4, a, astride, b, bstride, h, limit, width, sum
    BILATERAL_MASK 3
%else
cglobal mcfps_%1, 6, 7, 3, a, astride, b, bstride, h, limit, sum
%endif
    pxor          m2, m2
.rows:
    movu          m0, [aq]
    movu          m1, [bq]
    SAD_LOOP       0, 1, 2, 3, %2
.end:
    mov          eax, sumd
    RET
%endmacro

INIT_XMM sse2
PHASE_SAD_SSE2 sad16, 0
PHASE_SAD_SSE2 sad_part, 1

;------------------------------------------------------------------------------
; void ff_mcfps_bilinear_plane(uint8_t *dst, ptrdiff_t dst_stride,
;                              const uint8_t *src, ptrdiff_t src_stride,
;                              const int8_t *w, int width, int h)
;
; 16 samples of a row a step
;------------------------------------------------------------------------------
INIT_XMM ssse3
cglobal mcfps_bilinear_plane, 7, 8, 15, dst, dstride, src, sstride, w, width, h, x
    movd          m7, [wq]
    pshuflw       m6, m7, q0000         ; row 0 weights, pairs
    pshuflw       m7, m7, q1111         ; row 1
    punpcklqdq    m6, m6
    punpcklqdq    m7, m7
    mova         m10, [pw_2048]
    movsxd    widthq, widthd
.row:
    xor           xq, xq
.col:
    lea           wq, [srcq+xq]
    BILINEAR      m0, m1, wq, sstrideq, m6, m7
    movu [dstq+xq], m0
    add           xq, 16
    cmp           xq, widthq
    jl .col
    add         srcq, sstrideq
    add         dstq, dstrideq
    dec           hd
    jg .row
    RET

%if HAVE_AVX2_EXTERNAL
; BILINEAR2 dst, hi, src, stride, w0, w1: BILINEAR of two rows at once, rows
; 0 and 1 in the low and high lanes of m<dst> (m<hi> a temporary); clobbers
; m5, m12, m13
%macro BILINEAR2 6
    movu          xm%1, [%3]
    vinserti128    m%1, m%1, [%3+%4], 1      ; rows 0 and 1
    movu          xm12, [%3+1]
    vinserti128    m12, m12, [%3+%4+1], 1
    punpckhbw      m%2, m%1, m12
    punpcklbw      m%1, m12
    pmaddubsw      m%1, %5
    pmaddubsw      m%2, %5
    movu          xm12, [%3+%4]
    vinserti128    m12, m12, [%3+%4*2], 1    ; rows 1 and 2
    movu          xm13, [%3+%4+1]
    vinserti128    m13, m13, [%3+%4*2+1], 1
    punpckhbw       m5, m12, m13
    punpcklbw      m12, m13
    pmaddubsw      m12, %6
    pmaddubsw       m5, %6
    paddw          m%1, m12
    paddw          m%2, m5
    pmulhrsw       m%1, m10                  ; (x + 8) >> 4
    pmulhrsw       m%2, m10
    packuswb       m%1, m%2                  ; in lane: each row's 16 samples
%endmacro

; BILINEAR1 dst, hi, src, stride, w0, w1: BILINEAR of one row into the low
; lane, xmm registers; clobbers m4, m5
%macro BILINEAR1 6
    movu          xm%1, [%3]
    movu           xm4, [%3+1]
    punpckhbw     xm%2, xm%1, xm4
    punpcklbw     xm%1, xm4
    pmaddubsw     xm%1, %5
    pmaddubsw     xm%2, %5
    movu           xm4, [%3+%4]
    movu           xm5, [%3+%4+1]
    punpcklbw      xm4, xm5
    pmaddubsw      xm4, %6
    paddw         xm%1, xm4
    movu           xm4, [%3+%4]
    punpckhbw      xm4, xm5
    pmaddubsw      xm4, %6
    paddw         xm%2, xm4
    pmulhrsw      xm%1, xm10
    pmulhrsw      xm%2, xm10
    packuswb      xm%1, xm%2
%endmacro

;------------------------------------------------------------------------------
; ff_mcfps_bilateral_sad16 with two rows a step, one in each lane; the sum is
; tested against the limit every two rows
;------------------------------------------------------------------------------

; SAD1_ADD a, b, acc, mask, part: SAD_LOOP's total with one row in the low
; lanes, not added to m<acc>, and no loop
%macro SAD1_ADD 5
%if %5
    pand         xm%1, xm%4
    pand         xm%2, xm%4
%endif
    psadbw       xm%1, xm%2
    vextracti128 xm%2, m%3, 1
    paddq        xm%2, xm%3
    paddq        xm%1, xm%2
    pshufd       xm%2, xm%1, q1032
    paddq        xm%1, xm%2
    movd         sumd, xm%1
%endmacro

; BILATERAL_SAD_AVX2 name, part: as BILATERAL_SAD_SSSE3
%macro BILATERAL_SAD_AVX2 2
%if %2
cglobal mcfps_%1, 8, 9, 15, a, astride, b, bstride, w, h, limit, width, sum
    BILATERAL_MASK 14
%else
cglobal mcfps_%1, 7, 8, 14, a, astride, b, bstride, w, h, limit, sum
%endif
    movq          xm9, [wq]
    vpbroadcastw   m6, xm9              ; a's row 0 weights, pairs
    psrlq         xm9, 16
    vpbroadcastw   m7, xm9              ; a's row 1
    psrlq         xm9, 16
    vpbroadcastw   m8, xm9              ; b's row 0
    psrlq         xm9, 16
    vpbroadcastw   m9, xm9              ; b's row 1
    mova          m10, [pw_2048]
    pxor          m11, m11              ; the sum, four quadwords
    xor          sumd, sumd
    sub            hd, 2
    jl .last
.rows:
    BILINEAR2       0, 2, aq, astrideq, m6, m7
    BILINEAR2       1, 3, bq, bstrideq, m8, m9
    SAD_LOOP        0, 1, 11, 14, %2
.last:
    cmp            hd, -1
    jne .end
    BILINEAR1       0, 2, aq, astrideq, xm6, xm7
    BILINEAR1       1, 3, bq, bstrideq, xm8, xm9
    SAD1_ADD        0, 1, 11, 14, %2
.end:
    mov           eax, sumd
    RET
%endmacro

INIT_YMM avx2
BILATERAL_SAD_AVX2 bilateral_sad16, 0
BILATERAL_SAD_AVX2 bilateral_sad_part, 1

; PHASE_SAD_AVX2 name, part: PHASE_SAD_SSE2 with two rows a step, one in
; each lane; the sum is tested against the limit every two rows
%macro PHASE_SAD_AVX2 2
%if %2
cglobal mcfps_%1, 7, 8, 4, a, astride, b, bstride, h, limit, width, sum
    BILATERAL_MASK 3
%else
cglobal mcfps_%1, 6, 7, 3, a, astride, b, bstride, h, limit, sum
%endif
    pxor           m2, m2
    xor          sumd, sumd
    sub            hd, 2
    jl .last
.rows:
    movu          xm0, [aq]
    vinserti128    m0, m0, [aq+astrideq], 1
    movu          xm1, [bq]
    vinserti128    m1, m1, [bq+bstrideq], 1
    SAD_LOOP        0, 1, 2, 3, %2
.last:
    cmp            hd, -1
    jne .end
    movu          xm0, [aq]
    movu          xm1, [bq]
    SAD1_ADD        0, 1, 2, 3, %2
.end:
    mov           eax, sumd
    RET
%endmacro

PHASE_SAD_AVX2 sad16, 0
PHASE_SAD_AVX2 sad_part, 1

; ff_mcfps_bilinear_plane with two rows of 16 samples a step, one in each lane
cglobal mcfps_bilinear_plane, 7, 9, 14, dst, dstride, src, sstride, w, width, h, x, tmp
    movd          xm9, [wq]
    vpbroadcastw   m6, xm9              ; row 0 weights, pairs
    psrlq         xm9, 16
    vpbroadcastw   m7, xm9              ; row 1
    mova          m10, [pw_2048]
    movsxd     widthq, widthd
    sub            hd, 2
    jl .last
.rows:
    xor            xq, xq
.cols:
    lea          tmpq, [srcq+xq]
    BILINEAR2       0, 2, tmpq, sstrideq, m6, m7
    movu   [dstq+xq], xm0
    lea          tmpq, [dstq+dstrideq]
    vextracti128 [tmpq+xq], m0, 1
    add            xq, 16
    cmp            xq, widthq
    jl .cols
    lea          srcq, [srcq+sstrideq*2]
    lea          dstq, [dstq+dstrideq*2]
    sub            hd, 2
    jge .rows
.last:
    cmp            hd, -1
    jne .end
    xor            xq, xq
.col:
    lea          tmpq, [srcq+xq]
    BILINEAR1       0, 2, tmpq, sstrideq, xm6, xm7
    movu   [dstq+xq], xm0
    add            xq, 16
    cmp            xq, widthq
    jl .col
.end:
    RET
%endif

; VPAIR acc_lo, acc_hi, row, coefficients: add the vertical pair of
; rows row and row + 1 of the stack, weighed, to the dword sums
%macro VPAIR 4
    mova          m0, [tmpq+%3*16]
    mova          m2, m0
    punpcklwd     m0, [tmpq+%3*16+16]
    punpckhwd     m2, [tmpq+%3*16+16]
    pmaddwd       m0, %4
    pmaddwd       m2, %4
    paddd         %1, m0
    paddd         %2, m2
%endmacro

; VPASS coefficients...: the vertical pass over the h rows of the stack, a
; pair of taps per argument: (sum + 2048) >> 12, clipped to [0, 255], as
; words; then return
%macro VPASS 1-4
    mov          tmpq, rsp
.vrow:
    mova          m4, [pd_2048]
    mova          m5, m4
%assign row 0
%rep %0
    VPAIR         m4, m5, row, %1
%assign row row + 2
%rotate 1
%endrep
    psrad         m4, 12
    psrad         m5, 12
    packssdw      m4, m5
    pxor          m0, m0
    pmaxsw        m4, m0
    pminsw        m4, [pw_255]
    movu      [outq], m4
    add          outq, 16
    add          tmpq, 16
    dec            hd
    jg .vrow
    RET
%endmacro

; PRED8_FOOTPRINT: srcq to the footprint's first sample (3 rows up, 3
; samples left), rowsd to its h + 7 rows, tmpq to the stack's first row
%macro PRED8_FOOTPRINT 0
    lea         rowsq, [strideq*3]
    sub          srcq, rowsq
    sub          srcq, 3
    lea         rowsd, [hq+7]
    mov          tmpq, rsp
%endmacro

; PRED8_HSUM: the 8-tap horizontal sums of the sample pairs in m0-m3,
; weighed by the tap pairs in m8-m11, into m0; clobbers m1-m3
%macro PRED8_HSUM 0
    pmaddubsw     m0, m8
    pmaddubsw     m1, m9
    pmaddubsw     m2, m10
    pmaddubsw     m3, m11
    paddw         m0, m1
    paddw         m2, m3
    paddw         m0, m2
%endmacro

;------------------------------------------------------------------------------
; void ff_mcfps_predict8_8tap(int16_t *out, const uint8_t *src, ptrdiff_t stride,
;                             const int8_t *taps, int h)
;
; The horizontal pass weighs pairs of samples by pmaddubsw into 16-bit sums,
; kept on the stack; the vertical pass weighs pairs of rows by pmaddwd.
;------------------------------------------------------------------------------
INIT_XMM ssse3
cglobal mcfps_predict8_8tap, 5, 7, 16, 15 * 16, out, src, stride, taps, h, rows, tmp
    movq         m11, [tapsq]
    pshuflw       m8, m11, q0000        ; horizontal pairs (0, 1), (2, 3), ...
    pshuflw       m9, m11, q1111
    pshuflw      m10, m11, q2222
    pshuflw      m11, m11, q3333
    punpcklqdq    m8, m8
    punpcklqdq    m9, m9
    punpcklqdq   m10, m10
    punpcklqdq   m11, m11
    movq         m15, [tapsq+8]         ; vertical taps, to words
    punpcklbw    m15, m15
    psraw        m15, 8
    pshufd       m12, m15, q0000
    pshufd       m13, m15, q1111
    pshufd       m14, m15, q2222
    pshufd       m15, m15, q3333
    PRED8_FOOTPRINT
.hrow:
    movq          m0, [srcq]
    movhps        m0, [srcq+7]
    mova          m1, m0
    mova          m2, m0
    mova          m3, m0
    pshufb        m0, [pred8_pairs]
    pshufb        m1, [pred8_pairs+16]
    pshufb        m2, [pred8_pairs+32]
    pshufb        m3, [pred8_pairs+48]
    PRED8_HSUM
    mova      [tmpq], m0
    add          tmpq, 16
    add          srcq, strideq
    dec         rowsd
    jg .hrow

    VPASS        m12, m13, m14, m15

%if HAVE_AVX2_EXTERNAL
; VPAIR2 acc_lo, acc_hi, row, coefficients: VPAIR of two output rows, the
; stack's rows (row, row + 1) weighed in the low lane and (row + 1, row + 2)
; in the high lane
%macro VPAIR2 4
    movu          m0, [tmpq+%3*16]
    movu          m1, [tmpq+%3*16+16]
    punpckhwd     m2, m0, m1
    punpcklwd     m0, m1
    pmaddwd       m0, %4
    pmaddwd       m2, %4
    paddd         %1, m0
    paddd         %2, m2
%endmacro

; predict8_8tap() with two rows a register in both passes: each lane holds
; one row of the horizontal pass, and sums one output row in the vertical
INIT_YMM avx2
cglobal mcfps_predict8_8tap, 5, 7, 16, 17 * 16, out, src, stride, taps, h, rows, tmp
    vpbroadcastw  m8, [tapsq]           ; horizontal pairs (0, 1), (2, 3), ...
    vpbroadcastw  m9, [tapsq+2]
    vpbroadcastw m10, [tapsq+4]
    vpbroadcastw m11, [tapsq+6]
    vbroadcasti128 m4, [pred8_pairs]
    vbroadcasti128 m5, [pred8_pairs+16]
    vbroadcasti128 m6, [pred8_pairs+32]
    vbroadcasti128 m7, [pred8_pairs+48]
    PRED8_FOOTPRINT
.hrow:
    movq         xm0, [srcq]            ; the high lane zero
    movhps       xm0, [srcq+7]
    cmp         rowsd, 1
    je .hpairs                          ; the last row of an odd count alone
    movq         xm1, [srcq+strideq]
    movhps       xm1, [srcq+strideq+7]
    vinserti128   m0, m0, xm1, 1
.hpairs:
    pshufb        m1, m0, m5
    pshufb        m2, m0, m6
    pshufb        m3, m0, m7
    pshufb        m0, m4
    PRED8_HSUM
    movu      [tmpq], m0
    add          tmpq, 32
    lea          srcq, [srcq+strideq*2]
    sub         rowsd, 2
    jg .hrow
    pxor         xm0, xm0
    movu      [tmpq], xm0               ; the row after the last, read for an odd h

    pmovsxbw    xm15, [tapsq+8]         ; vertical taps, to words
    vinserti128  m15, m15, xm15, 1
    pshufd       m12, m15, q0000
    pshufd       m13, m15, q1111
    pshufd       m14, m15, q2222
    pshufd       m15, m15, q3333
    vbroadcasti128 m6, [pw_255]
    vbroadcasti128 m7, [pd_2048]
    mov          tmpq, rsp
.vrow:
    mova          m4, m7
    mova          m5, m7
    VPAIR2        m4, m5, 0, m12
    VPAIR2        m4, m5, 2, m13
    VPAIR2        m4, m5, 4, m14
    VPAIR2        m4, m5, 6, m15
    psrad         m4, 12
    psrad         m5, 12
    packssdw      m4, m5
    pxor          m0, m0
    pmaxsw        m4, m0
    pminsw        m4, m6
    cmp            hd, 1
    je .last                            ; the last row of an odd h alone
    movu      [outq], m4
    add          outq, 32
    add          tmpq, 32
    sub            hd, 2
    jg .vrow
    RET
.last:
    movu      [outq], xm4
    RET
%endif

; PRED4_TAPS h01, h23, v01, v23: the taps of a 4-tap prediction, the
; horizontal pairs (0, 1) and (2, 3) in every word of m<h01> and m<h23>, the
; vertical ones as words, pairs in every dword of m<v01> and m<v23>
%macro PRED4_TAPS 4
    movd         m%2, [tapsq]
    pshuflw      m%1, m%2, q0000
    pshuflw      m%2, m%2, q1111
    punpcklqdq   m%1, m%1
    punpcklqdq   m%2, m%2
    movd         m%4, [tapsq+4]
    punpcklbw    m%4, m%4
    psraw        m%4, 8
    pshufd       m%3, m%4, q0000
    pshufd       m%4, m%4, q1111
%endmacro

;------------------------------------------------------------------------------
; void ff_mcfps_predict8_4tap(int16_t *out, const uint8_t *src, ptrdiff_t stride,
;                             const int8_t *taps, int h)
;
; predict8_8tap() with 4 taps: the same passes, two pairs each.
;------------------------------------------------------------------------------
INIT_XMM ssse3
cglobal mcfps_predict8_4tap, 5, 7, 12, 11 * 16, out, src, stride, taps, h, rows, tmp
    PRED4_TAPS     8, 9, 10, 11
    sub          srcq, strideq
    lea         rowsd, [hq+3]
    mov          tmpq, rsp
.hrow:
    movq          m0, [srcq-1]
    movhps        m0, [srcq+2]
    mova          m1, m0
    pshufb        m0, [pred4_pairs]
    pshufb        m1, [pred4_pairs+16]
    pmaddubsw     m0, m8
    pmaddubsw     m1, m9
    paddw         m0, m1
    mova      [tmpq], m0
    add          tmpq, 16
    add          srcq, strideq
    dec         rowsd
    jg .hrow

    VPASS        m10, m11

;------------------------------------------------------------------------------
; void ff_mcfps_predict4_4tap(int16_t *out, const uint8_t *src, ptrdiff_t stride,
;                             const int8_t *taps, int h)
;
; predict8_4tap() of a block 4 samples wide (the chroma of 4:2:0 and 4:2:2):
; two rows a register in both passes. The stack holds the rows of the
; horizontal pass 8 bytes apart.
;------------------------------------------------------------------------------
INIT_XMM ssse3
cglobal mcfps_predict4_4tap, 5, 7, 8, 6 * 16, out, src, stride, taps, h, rows, tmp
    PRED4_TAPS     4, 5, 6, 7
    sub          srcq, strideq
    dec          srcq
    lea         rowsd, [hq+3]
    mov          tmpq, rsp
.hrow:
    movq          m0, [srcq]
    cmp         rowsd, 1
    je .hpairs                          ; the last row of an odd count alone
    movhps        m0, [srcq+strideq]
.hpairs:
    mova          m1, m0
    pshufb        m0, [pred4x2_pairs]
    pshufb        m1, [pred4x2_pairs+16]
    pmaddubsw     m0, m4
    pmaddubsw     m1, m5
    paddw         m0, m1
    mova      [tmpq], m0
    add          tmpq, 16
    lea          srcq, [srcq+strideq*2]
    sub         rowsd, 2
    jg .hrow

    mov          tmpq, rsp
.vrow:
    movq          m0, [tmpq]            ; rows y .. y + 4 of the stack
    movq          m1, [tmpq+8]
    movq          m2, [tmpq+16]
    movq          m3, [tmpq+24]
    pxor          m4, m4
    cmp            hd, 1
    je .vpairs                          ; the last row of an odd h alone
    movq          m4, [tmpq+32]
.vpairs:
    mova          m5, m1
    punpcklwd     m0, m1                ; rows (y, y + 1)
    punpcklwd     m5, m2                ; (y + 1, y + 2)
    punpcklwd     m2, m3                ; (y + 2, y + 3)
    punpcklwd     m3, m4                ; (y + 3, y + 4)
    pmaddwd       m0, m6
    pmaddwd       m5, m6
    pmaddwd       m2, m7
    pmaddwd       m3, m7
    paddd         m0, m2                ; row y
    paddd         m5, m3                ; row y + 1
    mova          m2, [pd_2048]
    paddd         m0, m2
    paddd         m5, m2
    psrad         m0, 12
    psrad         m5, 12
    packssdw      m0, m5
    pxor          m1, m1
    pmaxsw        m0, m1
    pminsw        m0, [pw_255]
    movq      [outq], m0
    cmp            hd, 1
    je .end
    movhps [outq+16], m0
    add          outq, 32
    add          tmpq, 16
    sub            hd, 2
    jg .vrow
.end:
    RET

;------------------------------------------------------------------------------
; void ff_mcfps_predict4x2_4tap(int16_t *out, const uint8_t *src0,
;                               const uint8_t *src1, ptrdiff_t stride,
;                               const int8_t *taps, int h)
;
; predict4_4tap() of the same block of two planes: a row of src0 and the
; same row of src1 in one register, as predict4_4tap() takes two rows of
; one plane, then predict8_4tap()'s vertical pass over the stack.
;------------------------------------------------------------------------------
INIT_XMM ssse3
cglobal mcfps_predict4x2_4tap, 6, 8, 12, 11 * 16, out, src0, src1, stride, taps, h, rows, tmp
    PRED4_TAPS     8, 9, 10, 11
    sub         src0q, strideq
    sub         src1q, strideq
    dec         src0q
    dec         src1q
    lea         rowsd, [hq+3]
    mov          tmpq, rsp
.hrow:
    movq          m0, [src0q]
    movhps        m0, [src1q]
    mova          m1, m0
    pshufb        m0, [pred4x2_pairs]
    pshufb        m1, [pred4x2_pairs+16]
    pmaddubsw     m0, m8
    pmaddubsw     m1, m9
    paddw         m0, m1
    mova      [tmpq], m0
    add          tmpq, 16
    add         src0q, strideq
    add         src1q, strideq
    dec         rowsd
    jg .hrow

    VPASS        m10, m11

;------------------------------------------------------------------------------
; void ff_mcfps_mix8(uint8_t *dst, ptrdiff_t dst_stride, const int16_t *const *ends,
;                    const int16_t *avg, const int16_t *coef, const int16_t *wx,
;                    const int16_t *wyr, int h)
; void ff_mcfps_mix4(...): the same for a tile 4 samples wide, two rows a
;                    register
;
; With ca + cb = 256, mc = va + ((cb (vb - va) + 128) >> 8) and
; P = avg + ((m (mc - avg) + 128) >> 8): pmulhrsw of the differences times
; 128, exact. pmaddwd sums the weighted terms of two cells. The quotient is
; taken in float, exact as its terms lie below 2^24 and the weights' sum
; below 2^15: a quotient that is not an integer lies at least 1/W below the
; next, more than the rounding of its division.
;------------------------------------------------------------------------------

; MIX_COEFS: cb of the four cells, then m, each in every word of a stack slot
%macro MIX_COEFS 0
%assign k 0
%rep 8
    movd          m0, [coefq+2*k]
    pshuflw       m0, m0, q0000
    punpcklqdq    m0, m0
    mova [rsp+16*k], m0
%assign k k+1
%endrep
    pxor          m3, m3
%endmacro

; MIX_LOAD dst, src, width: the row (width 8) or the two rows (width 4: at
; oq and o2q) of the samples of src
%macro MIX_LOAD 3
%if %3 == 8
    movu          %1, [%2+oq]
%else
    movq          %1, [%2+oq]
    movhps        %1, [%2+o2q]
%endif
%endmacro

; MIX_ROW width: from the weights wt of the cells in m8-m11, the samples of
; a row (or two) into the low bytes of m0; clobbers m1, m2, m4-m13
%macro MIX_ROW 1
    paddw        m13, m8, m9            ; the sum W of the weights
    paddw        m13, m10
    paddw        m13, m11
    MIX_LOAD     m12, avgq, %1
%assign c 0
%rep 4
    mov           pq, [endsq+16*c]
    MIX_LOAD      m0, pq, %1            ; va
    mov           pq, [endsq+16*c+8]
    MIX_LOAD      m1, pq, %1            ; vb
    psubw         m1, m0
    psllw         m1, 7
    pmulhrsw      m1, [rsp+16*c]
    paddw         m0, m1                ; mc
    psubw         m0, m12
    psllw         m0, 7
    pmulhrsw      m0, [rsp+16*(4+c)]
    paddw       m %+ %eval(4+c), m0, m12 ; P
%assign c c+1
%endrep
    punpcklwd     m0, m4, m5            ; the sums of wt P, two cells a pmaddwd
    punpckhwd     m4, m5
    punpcklwd     m1, m8, m9
    punpckhwd     m8, m9
    pmaddwd       m0, m1
    pmaddwd       m4, m8
    punpcklwd     m1, m6, m7
    punpckhwd     m6, m7
    punpcklwd     m2, m10, m11
    punpckhwd    m10, m11
    pmaddwd       m1, m2
    pmaddwd       m6, m10
    paddd         m0, m1
    paddd         m4, m6
    punpcklwd     m1, m13, m3           ; W as dwords
    punpckhwd    m13, m3
    psrld         m2, m1, 1             ; + W / 2
    paddd         m0, m2
    psrld         m2, m13, 1
    paddd         m4, m2
    cvtdq2ps      m0, m0
    cvtdq2ps      m4, m4
    cvtdq2ps      m1, m1
    cvtdq2ps     m13, m13
    divps         m0, m1
    divps         m4, m13
    cvttps2dq     m0, m0
    cvttps2dq     m4, m4
    packssdw      m0, m4
    packuswb      m0, m0
%endmacro

INIT_XMM ssse3
cglobal mcfps_mix8, 8, 10, 16, 8 * 16, dst, dstride, ends, avg, coef, wx, wyr, h, o, p
    MIX_COEFS
    mova         m14, [wxq]             ; window weights of the left cells
    mova         m15, [wxq+16]          ; of the right cells
    xor           oq, oq
.row:
    movq          m8, [wyrq]            ; wy r of the four cells
    pshuflw       m9, m8, q1111
    pshuflw      m10, m8, q2222
    pshuflw      m11, m8, q3333
    pshuflw       m8, m8, q0000
    punpcklqdq    m8, m8
    punpcklqdq    m9, m9
    punpcklqdq   m10, m10
    punpcklqdq   m11, m11
    pmullw        m8, m14               ; the weights wt of the cells
    pmullw        m9, m15
    pmullw       m10, m14
    pmullw       m11, m15
    MIX_ROW        8
    movq      [dstq], m0
    add         dstq, dstrideq
    add         wyrq, 8
    add           oq, 16
    dec           hd
    jg .row
    RET

cglobal mcfps_mix4, 8, 11, 16, 8 * 16, dst, dstride, ends, avg, coef, wx, wyr, h, o, p, o2
    MIX_COEFS
    movq         m14, [wxq]             ; window weights of the left cells, both rows
    movq         m15, [wxq+16]          ; of the right cells
    punpcklqdq   m14, m14
    punpcklqdq   m15, m15
    xor           oq, oq
.row:
    lea          o2q, [oq+16]           ; the second row, or the first again at an odd end
    cmp            hd, 1
    cmove        o2q, oq
    mov           pq, o2q
    sub           pq, oq
    shr           pq, 1
    movq          m4, [wyrq]            ; wy r of the four cells, first row
    movq          m5, [wyrq+pq]         ; second row
%assign c 0
%rep 4
    pshuflw      m %+ %eval(8+c), m4, (c * 0x55)
    pshuflw       m6, m5, (c * 0x55)
    punpcklqdq   m %+ %eval(8+c), m6
%assign c c+1
%endrep
    pmullw        m8, m14               ; the weights wt of the cells
    pmullw        m9, m15
    pmullw       m10, m14
    pmullw       m11, m15
    MIX_ROW        4
    movd      [dstq], m0
    cmp            hd, 1
    je .end
    psrlq         m0, 32
    movd [dstq+dstrideq], m0
    lea          dstq, [dstq+dstrideq*2]
    add          wyrq, 16
    add            oq, 32
    sub            hd, 2
    jg .row
.end:
    RET

%endif ; ARCH_X86_64
