# The fdlibm functions below (exp, log, pow, tan, atan, atan2, asin, acos and
# their kernels) are ported from V8's src/base/ieee754.cc, which is adapted
# from fdlibm (http://www.netlib.org/fdlibm), and `hypot` from V8's
# src/builtins/math.tq. Their notices follow: fdlibm's, then V8's copyright
# lines with the licence of V8's LICENSE file.
#
# ====================================================
# Copyright (C) 1993 by Sun Microsystems, Inc. All rights reserved.
#
# Developed at SunSoft, a Sun Microsystems, Inc. business.
# Permission to use, copy, modify, and distribute this
# software is freely granted, provided that this notice
# is preserved.
# ====================================================
#
# The original source code covered by the above license above has been
# modified significantly by Google Inc.
# Copyright 2016 the V8 project authors. All rights reserved.
# Copyright 2019 the V8 project authors. All rights reserved.
#
# Redistribution and use in source and binary forms, with or without
# modification, are permitted provided that the following conditions are
# met:
#
#     * Redistributions of source code must retain the above copyright
#       notice, this list of conditions and the following disclaimer.
#     * Redistributions in binary form must reproduce the above
#       copyright notice, this list of conditions and the following
#       disclaimer in the documentation and/or other materials provided
#       with the distribution.
#     * Neither the name of Google Inc. nor the names of its
#       contributors may be used to endorse or promote products derived
#       from this software without specific prior written permission.
#
# THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS
# "AS IS" AND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT
# LIMITED TO, THE IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR
# A PARTICULAR PURPOSE ARE DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT
# OWNER OR CONTRIBUTORS BE LIABLE FOR ANY DIRECT, INDIRECT, INCIDENTAL,
# SPECIAL, EXEMPLARY, OR CONSEQUENTIAL DAMAGES (INCLUDING, BUT NOT
# LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS OR SERVICES; LOSS OF USE,
# DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER CAUSED AND ON ANY
# THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY, OR TORT
# (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE
# OF THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
#
# See THIRD_PARTY_NOTICES.md.

"""JavaScript's Math on doubles, as V8 computes it, bit for bit: a port of V8's fdlibm, and the rest.

V8 computes Math.exp, log, pow, tan, atan, atan2, asin and acos with its
port of fdlibm (src/base/ieee754.cc), which rounds a few percent of results
differently in the last bit from the system libm behind Python's `math`,
and the last bit shows as soon as a number is printed. The functions here
are that code, operation for operation: Python floats are IEEE doubles with
the same rounding, and the C code's word manipulations become the helpers.
Measured against Vega: identical on every input tried (see the tests).
`hypot` follows V8's Math.hypot; `floor`, `ceil`, `round_half_up` (Math.round)
and `sqrt` are ECMAScript's definitions; `divide` is IEEE division, which C
and JavaScript do and Python refuses for a zero divisor.

Math.sin and Math.cos are the exception: V8 12.9 runs glibc's IBM Accurate
Mathematical Library for them (LGPL, so not ported here). Python's `math`
is glibc too, but its FMA build rounds differently in the last bit for about
0.2% of inputs (measured), so `sin` and `cos` are listed in
`INEXACT_FUNCTIONS`: within one unit in the last place of Vega's.

The functions take and return floats (JavaScript numbers already read with
ToNumber), and import nothing but the standard library.
"""
from __future__ import annotations

import math
import struct

# The Vega functions computed here within one unit in the last place of Vega's, not bit for bit.
INEXACT_FUNCTIONS = frozenset({"sin", "cos"})


def divide(left: float, right: float) -> float:
    """IEEE division, as C and JavaScript divide doubles: a zero divisor gives an infinity or NaN."""
    try:
        return left / right
    except ZeroDivisionError:
        if left != left or left == 0:
            return math.nan
        return math.copysign(math.inf, left) * math.copysign(1.0, right)


def floor(x: float) -> float:
    """Math.floor: NaN, infinities and zeros (-0 too) unchanged."""
    if x != x or math.isinf(x) or x == 0:
        return x
    return float(math.floor(x))


def ceil(x: float) -> float:
    """Math.ceil: NaN, infinities and zeros unchanged; -1 < x < 0 gives -0."""
    if x != x or math.isinf(x) or x == 0:
        return x
    result = float(math.ceil(x))
    return -0.0 if result == 0 and x < 0 else result


def round_half_up(x: float) -> float:
    """Math.round: the nearest integer, halves toward +Infinity; -0.5 <= x < 0 gives -0."""
    if x != x or math.isinf(x) or x == 0:
        return x
    if -0.5 <= x < 0:
        return -0.0
    floor = math.floor(x)
    return float(floor + 1 if x - floor >= 0.5 else floor)


def sqrt(x: float) -> float:
    """Math.sqrt: NaN below zero (-0 gives -0)."""
    return math.sqrt(x) if x >= 0 or x != x else math.nan


def hypot(numbers: list[float]) -> float:
    """V8's Math.hypot of numbers: scaled by the largest magnitude, summed with Kahan compensation."""
    values = [abs(number) for number in numbers]
    largest, nan = 0.0, False
    for value in values:
        if value != value:
            nan = True
        elif value > largest:
            largest = value
    if largest == math.inf:
        return math.inf
    if nan:
        return math.nan
    if largest == 0:
        return 0.0
    total = compensation = 0.0
    for value in values:
        scaled = value / largest
        summand = scaled * scaled - compensation
        preliminary = total + summand
        compensation = (preliminary - total) - summand
        total = preliminary
    return math.sqrt(total) * largest


def sin(x: float) -> float:
    """Math.sin within one unit in the last place (Python's libm; see INEXACT_FUNCTIONS): NaN for infinities."""
    return math.sin(x) if math.isfinite(x) else math.nan


def cos(x: float) -> float:
    """Math.cos within one unit in the last place (Python's libm; see INEXACT_FUNCTIONS): NaN for infinities."""
    return math.cos(x) if math.isfinite(x) else math.nan


# ------------------------------------------------------------------ fdlibm, as V8 runs it
# The C code's 32-bit word access (GET_HIGH_WORD, INSERT_WORDS, ...) becomes these helpers.

def _high(x: float) -> int:
    """The signed upper 32 bits of a double."""
    word = struct.unpack("<Q", struct.pack("<d", x))[0] >> 32
    return word - 0x100000000 if word >= 0x80000000 else word


def _low(x: float) -> int:
    """The unsigned lower 32 bits of a double."""
    return struct.unpack("<Q", struct.pack("<d", x))[0] & 0xFFFFFFFF


def _from_words(high: int, low: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", ((high & 0xFFFFFFFF) << 32) | (low & 0xFFFFFFFF)))[0]


def _int32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - 0x100000000 if value >= 0x80000000 else value


_TWO_OVER_PI = (
    0xA2F983, 0x6E4E44, 0x1529FC, 0x2757D1, 0xF534DD, 0xC0DB62, 0x95993C, 0x439041, 0xFE5163, 0xABDEBB,
    0xC561B7, 0x246E3A, 0x424DD2, 0xE00649, 0x2EEA09, 0xD1921C, 0xFE1DEB, 0x1CB129, 0xA73EE8, 0x8235F5,
    0x2EBB44, 0x84E99C, 0x7026B4, 0x5F7E41, 0x3991D6, 0x398353, 0x39F49C, 0x845F8B, 0xBDF928, 0x3B1FF8,
    0x97FFDE, 0x05980F, 0xEF2F11, 0x8B5A0A, 0x6D1F6D, 0x367ECF, 0x27CB09, 0xB74F46, 0x3F669E, 0x5FEA2D,
    0x7527BA, 0xC7EBE5, 0xF17B3D, 0x0739F7, 0x8A5292, 0xEA6BFB, 0x5FB11F, 0x8D5D08, 0x560330, 0x46FC7B,
    0x6BABF0, 0xCFBC20, 0x9AF436, 0x1DA9E3, 0x91615E, 0xE61B08, 0x659985, 0x5F14A0, 0x68408D, 0xFFD880,
    0x4D7327, 0x310606, 0x1556CA, 0x73A8C9, 0x60E27B, 0xC08C6B,
)
_NPIO2_HW = (
    0x3FF921FB, 0x400921FB, 0x4012D97C, 0x401921FB, 0x401F6A7A, 0x4022D97C, 0x4025FDBB, 0x402921FB,
    0x402C463A, 0x402F6A7A, 0x4031475C, 0x4032D97C, 0x40346B9C, 0x4035FDBB, 0x40378FDB, 0x403921FB,
    0x403AB41B, 0x403C463A, 0x403DD85A, 0x403F6A7A, 0x40407E4C, 0x4041475C, 0x4042106C, 0x4042D97C,
    0x4043A28C, 0x40446B9C, 0x404534AC, 0x4045FDBB, 0x4046C6CB, 0x40478FDB, 0x404858EB, 0x404921FB,
)
_PIO2 = (1.57079625129699707031e+00, 7.54978941586159635335e-08, 5.39030252995776476554e-15,
         3.28200341580791294123e-22, 1.27065575308067607349e-29, 1.22933308981111328932e-36,
         2.73370053816464559624e-44, 2.16741683877804819444e-51)
_TWO24 = 1.67772160000000000000e+07
_TWON24 = 5.96046447753906250000e-08


def _kernel_rem_pio2(x: list[float], e0: int, nx: int) -> tuple[int, float, float]:
    """fdlibm's __kernel_rem_pio2 for 53-bit results (prec 2): (n mod 8, y0, y1)."""
    jk = jp = 4
    jx = nx - 1
    jv = max((e0 - 3) // 24 if e0 - 3 >= 0 else -((3 - e0) // 24), 0)  # C division truncates
    q0 = e0 - 24 * (jv + 1)
    f = [0.0] * 20
    q = [0.0] * 20
    fq = [0.0] * 20
    iq = [0] * 20
    j, m = jv - jx, jx + jk
    for i in range(m + 1):
        f[i] = 0.0 if j < 0 else float(_TWO_OVER_PI[j])
        j += 1
    for i in range(jk + 1):
        fw = 0.0
        for j in range(jx + 1):
            fw += x[j] * f[jx + i - j]
        q[i] = fw
    jz = jk
    while True:
        z = q[jz]
        i, j = 0, jz
        while j > 0:
            fw = float(int(_TWON24 * z))
            iq[i] = int(z - _TWO24 * fw)
            z = q[j - 1] + fw
            i += 1
            j -= 1
        z = math.ldexp(z, q0)
        z -= 8.0 * math.floor(z * 0.125)
        n = int(z)
        z -= float(n)
        ih = 0
        if q0 > 0:
            i = iq[jz - 1] >> (24 - q0)
            n += i
            iq[jz - 1] -= i << (24 - q0)
            ih = iq[jz - 1] >> (23 - q0)
        elif q0 == 0:
            ih = iq[jz - 1] >> 23
        elif z >= 0.5:
            ih = 2
        if ih > 0:
            n += 1
            carry = 0
            for i in range(jz):
                j = iq[i]
                if carry == 0:
                    if j != 0:
                        carry = 1
                        iq[i] = 0x1000000 - j
                else:
                    iq[i] = 0xFFFFFF - j
            if q0 == 1:
                iq[jz - 1] &= 0x7FFFFF
            elif q0 == 2:
                iq[jz - 1] &= 0x3FFFFF
            if ih == 2:
                z = 1.0 - z
                if carry != 0:
                    z -= math.ldexp(1.0, q0)
        if z == 0.0:
            j = 0
            for i in range(jz - 1, jk - 1, -1):
                j |= iq[i]
            if j == 0:  # recompute with more terms of 2/pi
                k = 1
                while jk >= k and iq[jk - k] == 0:
                    k += 1
                for i in range(jz + 1, jz + k + 1):
                    f[jx + i] = float(_TWO_OVER_PI[jv + i])
                    fw = 0.0
                    for j in range(jx + 1):
                        fw += x[j] * f[jx + i - j]
                    q[i] = fw
                jz += k
                continue
        break
    if z == 0.0:
        jz -= 1
        q0 -= 24
        while iq[jz] == 0:
            jz -= 1
            q0 -= 24
    else:
        z = math.ldexp(z, -q0)
        if z >= _TWO24:
            fw = float(int(_TWON24 * z))
            iq[jz] = int(z - _TWO24 * fw)
            jz += 1
            q0 += 24
            iq[jz] = int(fw)
        else:
            iq[jz] = int(z)
    fw = math.ldexp(1.0, q0)
    for i in range(jz, -1, -1):
        q[i] = fw * iq[i]
        fw *= _TWON24
    for i in range(jz, -1, -1):
        fw = 0.0
        k = 0
        while k <= jp and k <= jz - i:
            fw += _PIO2[k] * q[i + k]
            k += 1
        fq[jz - i] = fw
    fw = 0.0
    for i in range(jz, -1, -1):
        fw += fq[i]
    y0 = fw if ih == 0 else -fw
    fw = fq[0] - fw
    for i in range(1, jz + 1):
        fw += fq[i]
    y1 = fw if ih == 0 else -fw
    return n & 7, y0, y1


def _rem_pio2(x: float) -> tuple[int, float, float]:
    """fdlibm's __ieee754_rem_pio2: n and y0 + y1 = x - n*pi/2."""
    pio2_1, pio2_1t = 1.57079632673412561417e+00, 6.07710050650619224932e-11
    pio2_2, pio2_2t = 6.07710050630396597660e-11, 2.02226624879595063154e-21
    pio2_3, pio2_3t = 2.02226624871116645580e-21, 8.47842766036889956997e-32
    invpio2 = 6.36619772367581382433e-01
    hx = _high(x)
    ix = hx & 0x7FFFFFFF
    if ix <= 0x3FE921FB:
        return 0, x, 0.0
    if ix < 0x4002D97C:
        if hx > 0:
            z = x - pio2_1
            if ix != 0x3FF921FB:
                y0 = z - pio2_1t
                return 1, y0, (z - y0) - pio2_1t
            z -= pio2_2
            y0 = z - pio2_2t
            return 1, y0, (z - y0) - pio2_2t
        z = x + pio2_1
        if ix != 0x3FF921FB:
            y0 = z + pio2_1t
            return -1, y0, (z - y0) + pio2_1t
        z += pio2_2
        y0 = z + pio2_2t
        return -1, y0, (z - y0) + pio2_2t
    if ix <= 0x413921FB:
        t = abs(x)
        n = int(t * invpio2 + 0.5)
        fn = float(n)
        r = t - fn * pio2_1
        w = fn * pio2_1t
        if n < 32 and ix != _NPIO2_HW[n - 1]:
            y0 = r - w
        else:
            j = ix >> 20
            y0 = r - w
            i = j - ((_high(y0) >> 20) & 0x7FF)
            if i > 16:
                t = r
                w = fn * pio2_2
                r = t - w
                w = fn * pio2_2t - ((t - r) - w)
                y0 = r - w
                i = j - ((_high(y0) >> 20) & 0x7FF)
                if i > 49:
                    t = r
                    w = fn * pio2_3
                    r = t - w
                    w = fn * pio2_3t - ((t - r) - w)
                    y0 = r - w
        y1 = (r - y0) - w
        return (-n, -y0, -y1) if hx < 0 else (n, y0, y1)
    if ix >= 0x7FF00000:
        return 0, x - x, x - x
    e0 = (ix >> 20) - 1046
    z = _from_words(ix - (e0 << 20), _low(x))
    tx = [0.0, 0.0, 0.0]
    for i in range(2):
        tx[i] = float(int(z))
        z = (z - tx[i]) * _TWO24
    tx[2] = z
    nx = 3
    while tx[nx - 1] == 0.0:
        nx -= 1
    n, y0, y1 = _kernel_rem_pio2(tx, e0, nx)
    return (-n, -y0, -y1) if hx < 0 else (n, y0, y1)


_TAN = (3.33333333333334091986e-01, 1.33333333333201242699e-01, 5.39682539762260521377e-02,
        2.18694882948595424599e-02, 8.86323982359930005737e-03, 3.59207910759131235356e-03,
        1.45620945432529025516e-03, 5.88041240820264096874e-04, 2.46463134818469906812e-04,
        7.81794442939557092300e-05, 7.14072491382608190305e-05, -1.85586374855275456654e-05,
        2.59073051863633712884e-05)


def _kernel_tan(x: float, y: float, iy: int) -> float:
    pio4, pio4lo = 7.85398163397448278999e-01, 3.06161699786838301793e-17
    t_ = _TAN
    hx = _high(x)
    ix = hx & 0x7FFFFFFF
    if ix < 0x3E300000 and int(x) == 0:
        if ((ix | _low(x)) | (iy + 1)) == 0:
            return divide(1.0, abs(x))
        if iy == 1:
            return x
        w = x + y
        z = _from_words(_high(w), 0)
        v = y - (z - x)
        a = -1.0 / w
        t = _from_words(_high(a), 0)
        s = 1.0 + t * z
        return t + a * (s + t * v)
    if ix >= 0x3FE59428:
        if hx < 0:
            x, y = -x, -y
        z = pio4 - x
        w = pio4lo - y
        x = z + w
        y = 0.0
    z = x * x
    w = z * z
    r = t_[1] + w * (t_[3] + w * (t_[5] + w * (t_[7] + w * (t_[9] + w * t_[11]))))
    v = z * (t_[2] + w * (t_[4] + w * (t_[6] + w * (t_[8] + w * (t_[10] + w * t_[12])))))
    s = z * x
    r = y + z * (s * (r + v) + y)
    r += t_[0] * s
    w = x + r
    if ix >= 0x3FE59428:
        v = float(iy)
        return (1 - ((hx >> 30) & 2)) * (v - 2.0 * (x - (w * w / (w + v) - r)))
    if iy == 1:
        return w
    z = _from_words(_high(w), 0)
    v = r - (z - x)
    a = -1.0 / w
    t = _from_words(_high(a), 0)
    s = 1.0 + t * z
    return t + a * (s + t * v)


def tan(x: float) -> float:
    """Math.tan: fdlibm's tan, reduced by pi/2 with __ieee754_rem_pio2."""
    ix = _high(x) & 0x7FFFFFFF
    if ix <= 0x3FE921FB:
        return _kernel_tan(x, 0.0, 1)
    if ix >= 0x7FF00000:
        return math.nan
    n, y0, y1 = _rem_pio2(x)
    return _kernel_tan(y0, y1, 1 - ((n & 1) << 1))


_PS = (1.66666666666666657415e-01, -3.25565818622400915405e-01, 2.01212532134862925881e-01,
       -4.00555345006794114027e-02, 7.91534994289814532176e-04, 3.47933107596021167570e-05)
_QS = (-2.40339491173441421878e+00, 2.02094576023350569471e+00, -6.88283971605453293030e-01,
       7.70381505559019352791e-02)
_PIO2_HI, _PIO2_LO = 1.57079632679489655800e+00, 6.12323399573676603587e-17


def _asin_rational(z: float) -> tuple[float, float]:
    p = z * (_PS[0] + z * (_PS[1] + z * (_PS[2] + z * (_PS[3] + z * (_PS[4] + z * _PS[5])))))
    q = 1.0 + z * (_QS[0] + z * (_QS[1] + z * (_QS[2] + z * _QS[3])))
    return p, q


def acos(x: float) -> float:
    """Math.acos: fdlibm's __ieee754_acos."""
    pi = 3.14159265358979311600e+00
    hx = _high(x)
    ix = hx & 0x7FFFFFFF
    if ix >= 0x3FF00000:
        if ((ix - 0x3FF00000) | _low(x)) == 0:
            return 0.0 if hx > 0 else pi + 2.0 * _PIO2_LO
        return math.nan
    if ix < 0x3FE00000:
        if ix <= 0x3C600000:
            return _PIO2_HI + _PIO2_LO
        z = x * x
        p, q = _asin_rational(z)
        r = p / q
        return _PIO2_HI - (x - (_PIO2_LO - x * r))
    if hx < 0:
        z = (1.0 + x) * 0.5
        p, q = _asin_rational(z)
        s = math.sqrt(z)
        r = p / q
        w = r * s - _PIO2_LO
        return pi - 2.0 * (s + w)
    z = (1.0 - x) * 0.5
    s = math.sqrt(z)
    df = _from_words(_high(s), 0)
    c = (z - df * df) / (s + df)
    p, q = _asin_rational(z)
    r = p / q
    w = r * s + c
    return 2.0 * (df + w)


def asin(x: float) -> float:
    """Math.asin: fdlibm's __ieee754_asin."""
    pio4_hi = 7.85398163397448278999e-01
    hx = _high(x)
    ix = hx & 0x7FFFFFFF
    t = 0.0
    if ix >= 0x3FF00000:
        if ((ix - 0x3FF00000) | _low(x)) == 0:
            return x * _PIO2_HI + x * _PIO2_LO
        return math.nan
    if ix < 0x3FE00000:
        if ix < 0x3E400000:
            return x
        t = x * x
        p, q = _asin_rational(t)
        w = p / q
        return x + x * w
    w = 1.0 - abs(x)
    t = w * 0.5
    p, q = _asin_rational(t)
    s = math.sqrt(t)
    if ix >= 0x3FEF3333:
        w = p / q
        t = _PIO2_HI - (2.0 * (s + s * w) - _PIO2_LO)
    else:
        w = _from_words(_high(s), 0)
        c = (t - w * w) / (s + w)
        r = p / q
        p = 2.0 * s * r - (_PIO2_LO - 2.0 * c)
        q = pio4_hi - 2.0 * w
        t = pio4_hi - (p - q)
    return t if hx > 0 else -t


_ATAN_HI = (4.63647609000806093515e-01, 7.85398163397448278999e-01, 9.82793723247329054082e-01,
            1.57079632679489655800e+00)
_ATAN_LO = (2.26987774529616870924e-17, 3.06161699786838301793e-17, 1.39033110312309984516e-17,
            6.12323399573676603587e-17)
_AT = (3.33333333333329318027e-01, -1.99999999998764832476e-01, 1.42857142725034663711e-01,
       -1.11111104054623557880e-01, 9.09088713343650656196e-02, -7.69187620504482999495e-02,
       6.66107313738753120669e-02, -5.83357013379057348645e-02, 4.97687799461593236017e-02,
       -3.65315727442169155270e-02, 1.62858201153657823623e-02)


def atan(x: float) -> float:
    """Math.atan: fdlibm's atan."""
    hx = _high(x)
    ix = hx & 0x7FFFFFFF
    if ix >= 0x44100000:
        if x != x:
            return x
        return _ATAN_HI[3] + _ATAN_LO[3] if hx > 0 else -_ATAN_HI[3] - _ATAN_LO[3]
    if ix < 0x3FDC0000:
        if ix < 0x3E400000:
            return x
        index = -1
    else:
        x = abs(x)
        if ix < 0x3FF30000:
            if ix < 0x3FE60000:
                index, x = 0, (2.0 * x - 1.0) / (2.0 + x)
            else:
                index, x = 1, (x - 1.0) / (x + 1.0)
        elif ix < 0x40038000:
            index, x = 2, (x - 1.5) / (1.0 + 1.5 * x)
        else:
            index, x = 3, -1.0 / x
    z = x * x
    w = z * z
    s1 = z * (_AT[0] + w * (_AT[2] + w * (_AT[4] + w * (_AT[6] + w * (_AT[8] + w * _AT[10])))))
    s2 = w * (_AT[1] + w * (_AT[3] + w * (_AT[5] + w * (_AT[7] + w * _AT[9]))))
    if index < 0:
        return x - x * (s1 + s2)
    z = _ATAN_HI[index] - ((x * (s1 + s2) - _ATAN_LO[index]) - x)
    return -z if hx < 0 else z


def atan2(y: float, x: float) -> float:
    """Math.atan2: fdlibm's __ieee754_atan2."""
    tiny = 1.0e-300
    pi_o_4, pi_o_2, pi = 7.8539816339744827900e-01, 1.5707963267948965580e+00, 3.1415926535897931160e+00
    pi_lo = 1.2246467991473531772e-16
    if x != x or y != y:
        return x + y
    hx, lx, hy, ly = _high(x), _low(x), _high(y), _low(y)
    ix, iy = hx & 0x7FFFFFFF, hy & 0x7FFFFFFF
    if ((hx - 0x3FF00000) | lx) == 0:
        return atan(y)
    m = ((hy >> 31) & 1) | ((hx >> 30) & 2)
    if (iy | ly) == 0:
        return (y, y, pi + tiny, -pi - tiny)[m]
    if (ix | lx) == 0:
        return -pi_o_2 - tiny if hy < 0 else pi_o_2 + tiny
    if ix == 0x7FF00000:
        if iy == 0x7FF00000:
            return (pi_o_4 + tiny, -pi_o_4 - tiny, 3.0 * pi_o_4 + tiny, -3.0 * pi_o_4 - tiny)[m]
        return (0.0, -0.0, pi + tiny, -pi - tiny)[m]
    if iy == 0x7FF00000:
        return -pi_o_2 - tiny if hy < 0 else pi_o_2 + tiny
    k = (iy - ix) >> 20
    if k > 60:
        z = pi_o_2 + 0.5 * pi_lo
        m &= 1
    elif hx < 0 and k < -60:
        z = 0.0
    else:
        z = atan(abs(y / x))
    if m == 0:
        return z
    if m == 1:
        return -z
    if m == 2:
        return pi - (z - pi_lo)
    return (z - pi_lo) - pi


def exp(x: float) -> float:
    """Math.exp: fdlibm's __ieee754_exp."""
    o_threshold, u_threshold = 7.09782712893383973096e+02, -7.45133219101941108420e+02
    ln2_hi, ln2_lo = (6.93147180369123816490e-01, -6.93147180369123816490e-01), (
        1.90821492927058770002e-10, -1.90821492927058770002e-10)
    invln2 = 1.44269504088896338700e+00
    p1, p2, p3 = 1.66666666666666019037e-01, -2.77777777770155933842e-03, 6.61375632143793436117e-05
    p4, p5 = -1.65339022054652515390e-06, 4.13813679705723846039e-08
    twom1000, two1023 = 9.33263618503218878990e-302, 8.988465674311579539e307
    high = _high(x) & 0xFFFFFFFF
    sign = (high >> 31) & 1
    hx = high & 0x7FFFFFFF
    lo = hi = 0.0
    if hx >= 0x40862E42:
        if hx >= 0x7FF00000:
            if ((hx & 0xFFFFF) | _low(x)) != 0:
                return x + x
            return x if sign == 0 else 0.0
        if x > o_threshold:
            return math.inf
        if x < u_threshold:
            return 0.0
    if hx > 0x3FD62E42:
        if hx < 0x3FF0A2B2:
            if x == 1.0:
                return 2.718281828459045
            hi = x - ln2_hi[sign]
            lo = ln2_lo[sign]
            k = 1 - sign - sign
        else:
            k = int(invln2 * x + (0.5, -0.5)[sign])
            t = float(k)
            hi = x - t * ln2_hi[0]
            lo = t * ln2_lo[0]
        x = hi - lo
    elif hx < 0x3E300000:
        return 1.0 + x
    else:
        k = 0
    t = x * x
    twopk = _from_words(0x3FF00000 + (k << 20), 0) if k >= -1021 else _from_words(
        0x3FF00000 + ((k + 1000) << 20), 0)
    c = x - t * (p1 + t * (p2 + t * (p3 + t * (p4 + t * p5))))
    if k == 0:
        return 1.0 - ((x * c) / (c - 2.0) - x)
    y = 1.0 - ((lo - (x * c) / (2.0 - c)) - hi)
    if k >= -1021:
        if k == 1024:
            return y * 2.0 * two1023
        return y * twopk
    return y * twopk * twom1000


def log(x: float) -> float:
    """Math.log: fdlibm's __ieee754_log."""
    ln2_hi, ln2_lo, two54 = 6.93147180369123816490e-01, 1.90821492927058770002e-10, 1.80143985094819840000e+16
    lg1, lg2, lg3 = 6.666666666666735130e-01, 3.999999999940941908e-01, 2.857142874366239149e-01
    lg4, lg5, lg6, lg7 = (2.222219843214978396e-01, 1.818357216161805012e-01, 1.531383769920937332e-01,
                          1.479819860511658591e-01)
    hx, lx = _high(x), _low(x)
    k = 0
    if hx < 0x00100000:
        if ((hx & 0x7FFFFFFF) | lx) == 0:
            return -math.inf
        if hx < 0:
            return math.nan
        k -= 54
        x *= two54
        hx = _high(x)
    if hx >= 0x7FF00000:
        return x + x
    k += (hx >> 20) - 1023
    hx &= 0x000FFFFF
    i = (hx + 0x95F64) & 0x100000
    x = _from_words(hx | (i ^ 0x3FF00000), _low(x))
    k += i >> 20
    f = x - 1.0
    if (0x000FFFFF & (2 + hx)) < 3:
        if f == 0.0:
            if k == 0:
                return 0.0
            dk = float(k)
            return dk * ln2_hi + dk * ln2_lo
        r = f * f * (0.5 - 0.33333333333333333 * f)
        if k == 0:
            return f - r
        dk = float(k)
        return dk * ln2_hi - ((r - dk * ln2_lo) - f)
    s = f / (2.0 + f)
    dk = float(k)
    z = s * s
    i = hx - 0x6147A
    w = z * z
    j = 0x6B851 - hx
    t1 = w * (lg2 + w * (lg4 + w * lg6))
    t2 = z * (lg1 + w * (lg3 + w * (lg5 + w * lg7)))
    i |= j
    r = t2 + t1
    if i > 0:
        hfsq = 0.5 * f * f
        if k == 0:
            return f - (hfsq - s * (hfsq + r))
        return dk * ln2_hi - ((hfsq - (s * (hfsq + r) + dk * ln2_lo)) - f)
    if k == 0:
        return f - s * (f - r)
    return dk * ln2_hi - ((s * (f - r) - dk * ln2_lo) - f)


def power(x: float, y: float) -> float:
    """Math.pow: NaN exponents and (+-1) ** (+-Infinity) are NaN, the rest is fdlibm's pow."""
    bp, dp_h, dp_l = (1.0, 1.5), (0.0, 5.84962487220764160156e-01), (0.0, 1.35003920212974897128e-08)
    two53 = 9007199254740992.0
    l1, l2, l3 = 5.99999999999994648725e-01, 4.28571428578550184252e-01, 3.33333329818377432918e-01
    l4, l5, l6 = 2.72728123808534006489e-01, 2.30660745775561754067e-01, 2.06975017800338417784e-01
    p1, p2, p3 = 1.66666666666666019037e-01, -2.77777777770155933842e-03, 6.61375632143793436117e-05
    p4, p5 = -1.65339022054652515390e-06, 4.13813679705723846039e-08
    lg2, lg2_h, lg2_l = 6.93147180559945286227e-01, 6.93147182464599609375e-01, -1.90465429995776804525e-09
    ovt = 8.0085662595372944372e-0017
    cp, cp_h, cp_l = 9.61796693925975554329e-01, 9.61796700954437255859e-01, -7.02846165095275826516e-09
    ivln2, ivln2_h, ivln2_l = 1.44269504088896338700e+00, 1.44269502162933349609e+00, 1.92596299112661746887e-08

    def with_high(value: float, high: int) -> float:
        return _from_words(high, _low(value))

    def with_low(value: float, low: int) -> float:
        return _from_words(_high(value), low)

    hx, lx, hy, ly = _high(x), _low(x), _high(y), _low(y)
    ix, iy = hx & 0x7FFFFFFF, hy & 0x7FFFFFFF
    if (iy | ly) == 0:
        return 1.0
    if x != x or y != y:
        return x + y
    yisint = 0
    if hx < 0:
        if iy >= 0x43400000:
            yisint = 2
        elif iy >= 0x3FF00000:
            k = (iy >> 20) - 0x3FF
            if k > 20:
                j = ly >> (52 - k)
                if ((j << (52 - k)) & 0xFFFFFFFF) == ly:
                    yisint = 2 - (j & 1)
            elif ly == 0:
                j = iy >> (20 - k)
                if (j << (20 - k)) == iy:
                    yisint = 2 - (j & 1)
    if ly == 0:
        if iy == 0x7FF00000:
            if ((ix - 0x3FF00000) | lx) == 0:
                return y - y
            if ix >= 0x3FF00000:
                return y if hy >= 0 else 0.0
            return -y if hy < 0 else 0.0
        if iy == 0x3FF00000:
            return divide(1.0, x) if hy < 0 else x
        if hy == 0x40000000:
            return x * x
        if hy == 0x3FE00000 and hx >= 0:
            return math.sqrt(x)
    ax = abs(x)
    if lx == 0 and (ix == 0x7FF00000 or ix == 0 or ix == 0x3FF00000):
        z = ax
        if hy < 0:
            z = divide(1.0, z)
        if hx < 0:
            if ((ix - 0x3FF00000) | yisint) == 0:
                z = math.nan
            elif yisint == 1:
                z = -z
        return z
    n = (hx >> 31) + 1
    if (n | yisint) == 0:
        return math.nan
    s = 1.0
    if (n | (yisint - 1)) == 0:
        s = -1.0
    if iy > 0x41E00000:
        if iy > 0x43F00000:
            if ix <= 0x3FEFFFFF:
                return math.inf if hy < 0 else 0.0
            if ix >= 0x3FF00000:
                return math.inf if hy > 0 else 0.0
        if ix < 0x3FEFFFFF:
            return s * math.inf if hy < 0 else s * 0.0
        if ix > 0x3FF00000:
            return s * math.inf if hy > 0 else s * 0.0
        t = ax - 1.0
        w = (t * t) * (0.5 - t * (0.3333333333333333333333 - t * 0.25))
        u = ivln2_h * t
        v = t * ivln2_l - w * ivln2
        t1 = with_low(u + v, 0)
        t2 = v - (t1 - u)
    else:
        n = 0
        if ix < 0x00100000:
            ax *= two53
            n -= 53
            ix = _high(ax)
        n += (ix >> 20) - 0x3FF
        j = ix & 0x000FFFFF
        ix = j | 0x3FF00000
        if j <= 0x3988E:
            k = 0
        elif j < 0xBB67A:
            k = 1
        else:
            k = 0
            n += 1
            ix -= 0x00100000
        ax = with_high(ax, ix)
        u = ax - bp[k]
        v = 1.0 / (ax + bp[k])
        ss = u * v
        s_h = with_low(ss, 0)
        t_h = _from_words(((ix >> 1) | 0x20000000) + 0x00080000 + (k << 18), 0)
        t_l = ax - (t_h - bp[k])
        s_l = v * ((u - s_h * t_h) - s_h * t_l)
        s2 = ss * ss
        r = s2 * s2 * (l1 + s2 * (l2 + s2 * (l3 + s2 * (l4 + s2 * (l5 + s2 * l6)))))
        r += s_l * (s_h + ss)
        s2 = s_h * s_h
        t_h = with_low(3.0 + s2 + r, 0)
        t_l = r - ((t_h - 3.0) - s2)
        u = s_h * t_h
        v = s_l * t_h + t_l * ss
        p_h = with_low(u + v, 0)
        p_l = v - (p_h - u)
        z_h = cp_h * p_h
        z_l = cp_l * p_h + p_l * cp + dp_l[k]
        t = float(n)
        t1 = with_low(((z_h + z_l) + dp_h[k]) + t, 0)
        t2 = z_l - (((t1 - t) - dp_h[k]) - z_h)
    y1 = with_low(y, 0)
    p_l = (y - y1) * t1 + y * t2
    p_h = y1 * t1
    z = p_l + p_h
    j, i = _high(z), _low(z)
    if j >= 0x40900000:
        if ((j - 0x40900000) | i) != 0:
            return s * math.inf
        if p_l + ovt > z - p_h:
            return s * math.inf
    elif (j & 0x7FFFFFFF) >= 0x4090CC00:
        if ((j - _int32(0xC090CC00)) | i) != 0:
            return s * 0.0
        if p_l <= z - p_h:
            return s * 0.0
    i = j & 0x7FFFFFFF
    k = (i >> 20) - 0x3FF
    n = 0
    if i > 0x3FE00000:
        n = _int32(j + (0x00100000 >> (k + 1)))
        k = ((n & 0x7FFFFFFF) >> 20) - 0x3FF
        t = _from_words(n & ~(0x000FFFFF >> k), 0)
        n = ((n & 0x000FFFFF) | 0x00100000) >> (20 - k)
        if j < 0:
            n = -n
        p_h -= t
    t = with_low(p_l + p_h, 0)
    u = t * lg2_h
    v = (p_l - (t - p_h)) * lg2 + t * lg2_l
    z = u + v
    w = v - (z - u)
    t = z * z
    t1 = z - t * (p1 + t * (p2 + t * (p3 + t * (p4 + t * p5))))
    # V8's pow divides by the whole difference, unlike fdlibm's (z*t1)/(t1-two)-(w+z*w); measured to match V8
    r = divide(z * t1, (t1 - 2.0) - (w + z * w))
    z = 1.0 - (r - z)
    j = _int32(_high(z) + (n << 20))
    if (j >> 20) <= 0:
        z = math.ldexp(z, n)
    else:
        z = with_high(z, _high(z) + (n << 20))
    return s * z
