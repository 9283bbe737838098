"""pi's colour values as sRGB, computed as pi-tui computes them (its `colors.ts` and
`oklab.ts`, a port of Björn Ottosson's reference OKHSL code), and WCAG contrast.

A value is `#rgb`/`#rrggbb`, `oklch(L C H)`, `okhsl(H S L)`, a 256-colour index, or ""
(the terminal's default colour). `parse_color` gives `#rrggbb`, the index, or "".
"""

from __future__ import annotations

import math
import re

from protocol.numbers import parse_float

RGB = tuple[int, int, int]
Color = str | int
"""`#rrggbb`, a 256-colour index, or "" for the terminal's default colour."""

_LINEAR_SRGB_TO_LMS = (
    (0.4122214694707629, 0.5363325372617349, 0.0514459932675022),
    (0.2119034958178251, 0.6806995506452344, 0.1073969535369405),
    (0.0883024591900564, 0.2817188391361215, 0.6299787016738222),
)
_LMS_TO_LAB = (
    (0.210454268309314, 0.793617774702305, -0.0040720430116193),
    (1.9779985324311684, -2.42859224204858, 0.450593709617411),
    (0.0259040424655478, 0.7827717124575296, -0.8086757549230774),
)
_LAB_TO_LMS = (
    (1, 0.3963377773761749, 0.2158037573099136),
    (1, -0.1055613458156586, -0.0638541728258133),
    (1, -0.0894841775298119, -1.2914855480194092),
)
_LMS_TO_LINEAR_SRGB = (
    (4.0767416360759583, -3.3077115392580629, 0.2309699031821043),
    (-1.2684379732850315, 2.6097573492876882, -0.341319376002657),
    (-0.0041960761386756, -0.7034186179359362, 1.7076146940746117),
)
# Per channel: the (a, b) half-plane where it clips first, and the max-saturation polynomial.
_SATURATION_FIT = (
    ((-1.8817031, -0.80936501), (1.19086277, 1.76576728, 0.59662641, 0.75515197, 0.56771245)),
    ((1.8144408, -1.19445267), (0.73956515, -0.45954404, 0.08285427, 0.12541073, -0.14503204)),
    ((0.13110758, 1.81333971), (1.35733652, -0.00915799, -1.1513021, -0.50559606, 0.00692167)),
)
_K1, _K2 = 0.206, 0.03
_K3 = (1 + _K1) / (1 + _K2)

_BASIC = (
    (0, 0, 0), (128, 0, 0), (0, 128, 0), (128, 128, 0), (0, 0, 128), (128, 0, 128), (0, 128, 128), (192, 192, 192),
    (128, 128, 128), (255, 0, 0), (0, 255, 0), (255, 255, 0), (0, 0, 255), (255, 0, 255), (0, 255, 255), (255, 255, 255),
)  # fmt: skip
_CUBE = (0, 95, 135, 175, 215, 255)

_NUMBER = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:e[+-]?[0-9]+)?"
_OKLCH = re.compile(rf"^oklch\(\s*({_NUMBER})(%)?\s+({_NUMBER})\s+({_NUMBER})(?:deg)?\s*\)$", re.I)
_OKHSL = re.compile(rf"^okhsl\(\s*({_NUMBER})(?:deg)?\s+({_NUMBER})(%)?\s+({_NUMBER})(%)?\s*\)$", re.I)
_HEX = re.compile(r"^#([\da-f]{3}|[\da-f]{6})$", re.I)


def _multiply(matrix: tuple[tuple[float, ...], ...], vector: list[float]) -> list[float]:
    return [row[0] * vector[0] + row[1] * vector[1] + row[2] * vector[2] for row in matrix]


def _to_srgb(value: float) -> float:
    return 1.055 * value ** (1 / 2.4) - 0.055 if value > 0.0031308 else 12.92 * value


def _to_linear(value: float) -> float:
    return value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4


def _lab_to_linear(lab: list[float]) -> list[float]:
    return _multiply(_LMS_TO_LINEAR_SRGB, [value**3 for value in _multiply(_LAB_TO_LMS, lab)])


def _linear_to_rgb(linear: list[float]) -> RGB:
    r, g, b = (_round(min(1.0, max(0.0, _to_srgb(value))) * 255) for value in linear)
    return r, g, b


def _round(value: float) -> int:
    """JavaScript's Math.round (halves go up)."""
    return math.floor(value + 0.5)


def oklab(rgb: RGB) -> list[float]:
    """sRGB (0-255) to Oklab [L, a, b]."""
    lms = _multiply(_LINEAR_SRGB_TO_LMS, [_to_linear(channel / 255) for channel in rgb])
    return _multiply(_LMS_TO_LAB, [math.copysign(abs(value) ** (1 / 3), value) for value in lms])


def _slopes(a: float, b: float) -> list[float]:
    return [row[1] * a + row[2] * b for row in _LAB_TO_LMS]


def _max_saturation(a: float, b: float) -> float:
    channel = next(index for index, ((x, y), _) in enumerate(_SATURATION_FIT) if index == 2 or x * a + y * b > 1)
    k0, k1, k2, k3, k4 = _SATURATION_FIT[channel][1]
    weights = _LMS_TO_LINEAR_SRGB[channel]
    saturation = k0 + k1 * a + k2 * b + k3 * a * a + k4 * a * b
    slopes = _slopes(a, b)
    base = [1 + saturation * k for k in slopes]

    def dot(values: list[float]) -> float:
        return sum(weight * value for weight, value in zip(weights, values, strict=True))

    f = dot([value**3 for value in base])
    f1 = dot([3 * slopes[i] * value**2 for i, value in enumerate(base)])
    f2 = dot([6 * slopes[i] ** 2 * value for i, value in enumerate(base)])
    return saturation - (f * f1) / (f1 * f1 - 0.5 * f * f2)


def _cusp(a: float, b: float) -> tuple[float, float]:
    saturation = _max_saturation(a, b)
    lightness = (1 / max(_lab_to_linear([1, saturation * a, saturation * b]))) ** (1 / 3)
    return lightness, lightness * saturation


def _max_chroma(a: float, b: float, lightness: float, cusp: tuple[float, float]) -> float:
    cusp_l, cusp_c = cusp
    if lightness <= cusp_l:
        return cusp_c * lightness / cusp_l
    t = cusp_c * (lightness - 1) / (cusp_l - 1)
    slopes = _slopes(a, b)
    lms = [lightness + t * k for k in slopes]
    cubes = [value**3 for value in lms]
    first = [3 * slopes[i] * value**2 for i, value in enumerate(lms)]
    second = [6 * slopes[i] ** 2 * value for i, value in enumerate(lms)]
    steps = []
    for row in _LMS_TO_LINEAR_SRGB:
        f = sum(r * v for r, v in zip(row, cubes, strict=True)) - 1
        f1 = sum(r * v for r, v in zip(row, first, strict=True))
        f2 = sum(r * v for r, v in zip(row, second, strict=True))
        u = f1 / (f1 * f1 - 0.5 * f * f2)
        steps.append(-f * u if u >= 0 else math.inf)
    return t + min(steps)


def _chroma_stops(lightness: float, a: float, b: float) -> tuple[float, float, float]:
    peak = _cusp(a, b)
    c_max = _max_chroma(a, b, lightness, peak)
    k = c_max / min(lightness * (peak[1] / peak[0]), (1 - lightness) * (peak[1] / (1 - peak[0])))
    mid_s = 0.11516993 + 1 / (
        7.4477897 + 4.1590124 * b
        + a * (-2.19557347 + 1.75198401 * b + a * (-2.13704948 - 10.02301043 * b + a * (-4.24894561 + 5.38770819 * b + 4.69891013 * a)))
    )  # fmt: skip
    mid_t = 0.11239642 + 1 / (
        1.6132032 - 0.68124379 * b
        + a * (0.40370612 + 0.90148123 * b + a * (-0.27087943 + 0.6122399 * b + a * (0.00299215 - 0.45399568 * b - 0.14661872 * a)))
    )  # fmt: skip
    c_mid = 0.9 * k * math.sqrt(math.sqrt(1 / (1 / (lightness * mid_s) ** 4 + 1 / ((1 - lightness) * mid_t) ** 4)))
    c_0 = math.sqrt(1 / (1 / (lightness * 0.4) ** 2 + 1 / ((1 - lightness) * 0.8) ** 2))
    return c_0, c_mid, c_max


def okhsl_to_rgb(hue: float, saturation: float, lightness: float) -> RGB:
    """OKHSL (hue in degrees, saturation and lightness 0-1) to sRGB, clipped."""
    big_l = (lightness * lightness + _K1 * lightness) / (_K3 * (lightness + _K2))
    lab = [big_l, 0.0, 0.0]
    if 0 < big_l < 1 and saturation > 0:
        angle = 2 * math.pi * (hue % 360) / 360
        a, b = math.cos(angle), math.sin(angle)
        c_0, c_mid, c_max = _chroma_stops(big_l, a, b)
        if saturation < 0.8:
            t = 1.25 * saturation
            k1 = 0.8 * c_0
            chroma = t * k1 / (1 - (1 - k1 / c_mid) * t)
        else:
            t = 5 * (saturation - 0.8)
            k1 = 0.2 * c_mid**2 * 1.25**2 / c_0
            chroma = c_mid + t * k1 / (1 - (1 - k1 / (c_max - c_mid)) * t)
        lab = [big_l, chroma * a, chroma * b]
    return _linear_to_rgb(_lab_to_linear(lab))


def oklch_to_rgb(lightness: float, chroma: float, hue: float) -> RGB:
    """OKLCH to sRGB, lowering chroma until it fits the gamut (as pi maps it)."""
    radians = math.radians(hue % 360)
    cos, sin = math.cos(radians), math.sin(radians)

    def at(value: float) -> list[float]:
        try:
            return _lab_to_linear([lightness, value * cos, value * sin])
        except OverflowError:  # a chroma of 1e200: out of gamut (JavaScript's Infinity in pi)
            return [math.inf] * 3

    def fits(linear: list[float]) -> bool:
        return all(-1e-7 <= channel <= 1 + 1e-7 for channel in linear)

    direct = at(chroma)
    if fits(direct):
        return _linear_to_rgb(direct)
    linear, low, high = at(0), 0.0, chroma
    for _ in range(20):
        middle = (low + high) / 2
        candidate = at(middle)
        if fits(candidate):
            low, linear = middle, candidate
        else:
            high = middle
    return _linear_to_rgb(linear)


def index_rgb(index: int) -> RGB:
    """The sRGB pi assumes for a 256-colour index (0-15: xterm's basic colours)."""
    if index < 16:
        return _BASIC[index]
    if index < 232:
        cube = index - 16
        return _CUBE[cube // 36], _CUBE[cube % 36 // 6], _CUBE[cube % 6]
    gray = 8 + (index - 232) * 10
    return gray, gray, gray


def hex_of(rgb: RGB) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def parse_color(value: object) -> Color:
    """A resolved colour value as `#rrggbb`, an index, or ""; ValueError if it is none,
    or one whose numbers the conversion cannot take (`okhsl(0 50% 1e-290)`)."""
    try:
        return _parse_color(value)
    except (OverflowError, ZeroDivisionError) as exc:
        raise ValueError(f"colour out of range: {str(value)[:80]} ({exc})") from None


def _parse_color(value: object) -> Color:
    if isinstance(value, int) and not isinstance(value, bool):
        if 0 <= value <= 255:
            return value
        raise ValueError(f"colour index out of 0-255: {value}")
    if not isinstance(value, str):
        raise ValueError(f"not a colour: {repr(value)[:80]}")
    if value == "":
        return ""
    if match := _HEX.match(value):
        digits = match[1] if len(match[1]) == 6 else "".join(digit * 2 for digit in match[1])
        return "#" + digits.lower()
    if match := _OKLCH.match(value):
        lightness, chroma, hue = _number(match[1], value) / (100 if match[2] else 1), _number(match[3], value), _number(match[4], value)
        if not 0 <= lightness <= 1 or chroma < 0:
            raise ValueError(f"colour out of range: {value[:80]}")
        return hex_of(oklch_to_rgb(lightness, chroma, hue))
    if match := _OKHSL.match(value):
        hue, saturation = _number(match[1], value), _number(match[2], value) / (100 if match[3] else 1)
        lightness = _number(match[4], value) / (100 if match[5] else 1)
        if not (0 <= saturation <= 1 and 0 <= lightness <= 1):
            raise ValueError(f"colour out of range: {value[:80]}")
        return hex_of(okhsl_to_rgb(hue, saturation, lightness))
    raise ValueError(f"invalid colour value: {value[:80]}")


def _number(text: str, value: str) -> float:
    """A number of a colour value (finite: `1e999` is out of range)."""
    number = parse_float(text, exponent=True, max_chars=400)
    if number is None:
        raise ValueError(f"colour out of range: {value[:80]}")
    return number


def rgb_of(color: Color, default: RGB) -> RGB:
    """The sRGB of a parsed colour; `default` for the terminal's default colour."""
    if color == "":
        return default
    if isinstance(color, int):
        return index_rgb(color)
    return int(color[1:3], 16), int(color[3:5], 16), int(color[5:7], 16)


def luminance(rgb: RGB) -> float:
    """WCAG 2 relative luminance."""
    r, g, b = (_to_linear(channel / 255) for channel in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(first: RGB, second: RGB) -> float:
    """WCAG 2 contrast ratio, 1-21."""
    a, b = luminance(first), luminance(second)
    return (max(a, b) + 0.05) / (min(a, b) + 0.05)


def appearance_of_background(background: RGB, foreground: RGB | None = None) -> str:
    """"dark" or "light" for a terminal's background (and foreground), as pi decides it."""
    white, black = contrast((255, 255, 255), background), contrast((0, 0, 0), background)
    if foreground is not None:
        fg_l, bg_l = oklab(foreground)[0], oklab(background)[0]
        if abs(fg_l - bg_l) > 0.05:
            appearance = "dark" if fg_l > bg_l else "light"
            if (white if appearance == "dark" else black) >= 4.5:
                return appearance
    return "dark" if white >= black else "light"
