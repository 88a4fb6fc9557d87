"""How a colour looks to a reader who prints in grey or sees with a colour-vision deficiency, and how far apart two look.

Four conditions (`CONDITIONS`):

- ``greyscale``: a greyscale print. Each colour becomes the grey of its CIE
  1931 relative luminance Y = 0.2126 R + 0.7152 G + 0.0722 B over linear
  sRGB (IEC 61966-2-1; the Rec. 709 primaries' Y row).
- ``deuteranopia``, ``protanopia``, ``tritanopia``: the model of Machado,
  Oliveira & Fernandes, "A Physiologically-based Model for Simulation of
  Color Vision Deficiency", IEEE TVCG 15(6), 2009, doi:10.1109/TVCG.2009.113,
  at severity 1.0 (the dichromat: the matrices of the paper's supplementary
  table, `MACHADO_2009`), applied to linear sRGB and clipped to the gamut,
  as colorspacious (`sRGB1+CVD`) and Machado's own code do.

The difference between two colours is CIEDE2000 (CIE 142-2001; Luo, Cui &
Rigg, Color Res. Appl. 26(5), 2001), computed as in Sharma, Wu & Dalal,
"The CIEDE2000 Color-Difference Formula: Implementation Notes, Supplementary
Test Data, and Mathematical Observations", Color Res. Appl. 30(1), 2005,
over CIELAB with the D65 white of sRGB.

`DISTINCT` is the smallest difference at which two categories count as
told apart (see its comment for the source). Pure Python, no numpy: a chart
has at most a few dozen categories.
"""

from __future__ import annotations

import math

from .colors import CSS_COLORS, resolve_color

CONDITIONS = ("greyscale", "deuteranopia", "protanopia", "tritanopia")

# Machado et al. 2009, severity 1.0, rows applied to linear (R, G, B).
MACHADO_2009 = {
    "protanopia": ((0.152286, 1.052583, -0.204868),
                   (0.114503, 0.786281, 0.099216),
                   (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968),
                     (0.280085, 0.672501, 0.047413),
                     (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779),
                   (-0.078411, 0.930809, 0.147602),
                   (0.004733, 0.691367, 0.303900)),
}
# Linear sRGB -> CIE XYZ (D65), IEC 61966-2-1; the white it maps (1, 1, 1) to.
SRGB_TO_XYZ = ((0.4124, 0.3576, 0.1805),
               (0.2126, 0.7152, 0.0722),
               (0.0193, 0.1192, 0.9505))
WHITE = tuple(sum(row) for row in SRGB_TO_XYZ)

# The smallest CIEDE2000 difference at which two categories drawn alike in all but colour count
# as distinguishable. 10 is where Nowosad's colorblindcheck (CRAN) and the countryatlas palette
# check put "hard to tell apart" for small marks; Stone, Szafir & Setlur, "An Engineering Model
# for Color Difference as a Function of Size" (Color and Imaging Conference 2014) measured that
# the just noticeable difference grows several-fold as a patch shrinks to a marker's size, so a
# legend swatch or a scatter point needs far more than the JND of large patches (ΔE00 ~1).
DISTINCT = 10.0


def appearance(color: str, opacity: float = 1.0) -> tuple[float, float, float]:
    """A colour as it is drawn over the white background, as linear sRGB (0..1 each).

    Args:
        color: any colour `colors.resolve_color` accepts.
        opacity: the mark's opacity, times the colour's own alpha.
    """
    text = resolve_color(color)
    text = CSS_COLORS.get(text.lower(), text)
    if text.lower() == "transparent":
        return (1.0, 1.0, 1.0)
    digits = text[1:]
    if len(digits) in (3, 4):
        digits = "".join(d * 2 for d in digits)
    channels = [int(digits[i:i + 2], 16) / 255 for i in range(0, len(digits), 2)]
    alpha = (channels[3] if len(channels) == 4 else 1.0) * opacity
    return tuple(_linear(c) * alpha + (1 - alpha) for c in channels[:3])


def _linear(channel: float) -> float:
    """sRGB's transfer function, inverted (IEC 61966-2-1)."""
    return channel / 12.92 if channel <= 0.04045 else ((channel + 0.055) / 1.055) ** 2.4


def simulate(rgb: tuple[float, float, float], condition: str) -> tuple[float, float, float]:
    """Linear RGB as a reader under `condition` (one of `CONDITIONS`) sees it, in the gamut."""
    if condition == "greyscale":
        luminance = sum(w * c for w, c in zip(SRGB_TO_XYZ[1], rgb))
        return (luminance, luminance, luminance)
    matrix = MACHADO_2009[condition]
    return tuple(min(1.0, max(0.0, sum(w * c for w, c in zip(row, rgb)))) for row in matrix)


def lab(rgb: tuple[float, float, float]) -> tuple[float, float, float]:
    """CIELAB (D65) of linear sRGB."""
    xyz = [sum(w * c for w, c in zip(row, rgb)) / white for row, white in zip(SRGB_TO_XYZ, WHITE)]
    fx, fy, fz = (t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29 for t in xyz)
    return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))


def ciede2000(first: tuple, second: tuple) -> float:
    """The CIEDE2000 difference of two CIELAB colours (kL = kC = kH = 1), as Sharma et al. 2005 compute it."""
    (l1, a1, b1), (l2, a2, b2) = first, second
    c_mean = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_mean ** 7 / (c_mean ** 7 + 25 ** 7)))
    a1, a2 = a1 * (1 + g), a2 * (1 + g)
    c1, c2 = math.hypot(a1, b1), math.hypot(a2, b2)
    h1 = math.degrees(math.atan2(b1, a1)) % 360 if c1 else 0.0
    h2 = math.degrees(math.atan2(b2, a2)) % 360 if c2 else 0.0
    dl, dc = l2 - l1, c2 - c1
    if c1 * c2 == 0:
        dh = 0.0
    elif abs(h2 - h1) <= 180:
        dh = h2 - h1
    else:
        dh = h2 - h1 - 360 if h2 > h1 else h2 - h1 + 360
    big_dh = 2 * math.sqrt(c1 * c2) * math.sin(math.radians(dh / 2))
    l_mean, c_mean = (l1 + l2) / 2, (c1 + c2) / 2
    if c1 * c2 == 0:
        h_mean = h1 + h2
    elif abs(h1 - h2) <= 180:
        h_mean = (h1 + h2) / 2
    else:
        h_mean = (h1 + h2 + 360) / 2 if h1 + h2 < 360 else (h1 + h2 - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(h_mean - 30)) + 0.24 * math.cos(math.radians(2 * h_mean))
         + 0.32 * math.cos(math.radians(3 * h_mean + 6)) - 0.20 * math.cos(math.radians(4 * h_mean - 63)))
    d_theta = 30 * math.exp(-(((h_mean - 275) / 25) ** 2))
    r_c = 2 * math.sqrt(c_mean ** 7 / (c_mean ** 7 + 25 ** 7))
    s_l = 1 + 0.015 * (l_mean - 50) ** 2 / math.sqrt(20 + (l_mean - 50) ** 2)
    s_c = 1 + 0.045 * c_mean
    s_h = 1 + 0.015 * c_mean * t
    r_t = -math.sin(math.radians(2 * d_theta)) * r_c
    return math.sqrt((dl / s_l) ** 2 + (dc / s_c) ** 2 + (big_dh / s_h) ** 2
                     + r_t * (dc / s_c) * (big_dh / s_h))


def difference(first: tuple, second: tuple, condition: str) -> float:
    """ΔE00 between two drawn colours as a reader under `condition` sees them.

    Args:
        first, second: linear sRGB (`appearance`).
        condition: one of `CONDITIONS`.

    Returns:
        The CIEDE2000 difference of the simulated colours.
    """
    return ciede2000(lab(simulate(first, condition)), lab(simulate(second, condition)))
