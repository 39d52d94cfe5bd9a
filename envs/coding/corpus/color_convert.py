"""Colour conversions between hex strings, RGB and HSL, plus contrast checks.

RGB components are integers 0-255; HSL uses hue in degrees [0, 360) and
saturation and lightness as fractions in [0, 1].
"""


def hex_to_rgb(code):
    """Parse '#rrggbb' or the short form '#rgb' (the '#' is optional)."""
    digits = code.lstrip("#")
    if len(digits) == 3:
        digits = "".join(char * 2 for char in digits)
    if len(digits) != 6:
        raise ValueError(f"invalid colour code {code!r}")
    try:
        return tuple(int(digits[i:i + 2], 16) for i in (0, 2, 4))
    except ValueError:
        raise ValueError(f"invalid colour code {code!r}") from None


def rgb_to_hex(red, green, blue):
    """Format RGB components as a lowercase '#rrggbb' string."""
    for component in (red, green, blue):
        if not 0 <= component <= 255:
            raise ValueError(f"component out of range: {component}")
    return f"#{red:02x}{green:02x}{blue:02x}"


def rgb_to_hsl(red, green, blue):
    """Convert RGB to (hue, saturation, lightness), rounded to 3 decimals (hue to 1)."""
    r, g, b = red / 255, green / 255, blue / 255
    high, low = max(r, g, b), min(r, g, b)
    lightness = (high + low) / 2
    delta = high - low
    if delta == 0:
        return 0.0, 0.0, round(lightness, 3)
    saturation = delta / (1 - abs(2 * lightness - 1))
    if high == r:
        hue = 60 * (((g - b) / delta) % 6)
    elif high == g:
        hue = 60 * ((b - r) / delta + 2)
    else:
        hue = 60 * ((r - g) / delta + 4)
    return round(hue, 1), round(saturation, 3), round(lightness, 3)


def hsl_to_rgb(hue, saturation, lightness):
    """Convert HSL back to integer RGB components."""
    chroma = (1 - abs(2 * lightness - 1)) * saturation
    sector = (hue % 360) / 60
    x = chroma * (1 - abs(sector % 2 - 1))
    table = [(chroma, x, 0), (x, chroma, 0), (0, chroma, x), (0, x, chroma), (x, 0, chroma), (chroma, 0, x)]
    r, g, b = table[int(sector)]
    m = lightness - chroma / 2
    return tuple(round((value + m) * 255) for value in (r, g, b))


def relative_luminance(red, green, blue):
    """Return the WCAG relative luminance of an sRGB colour."""
    def channel(value):
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    return 0.2126 * channel(red) + 0.7152 * channel(green) + 0.0722 * channel(blue)


def contrast_ratio(first, second):
    """Return the WCAG contrast ratio (1 to 21) between two hex colours, to 2 decimals."""
    a = relative_luminance(*hex_to_rgb(first))
    b = relative_luminance(*hex_to_rgb(second))
    lighter, darker = max(a, b), min(a, b)
    return round((lighter + 0.05) / (darker + 0.05), 2)


def mix(first, second, weight=0.5):
    """Blend two hex colours; weight is the share of the second colour."""
    a, b = hex_to_rgb(first), hex_to_rgb(second)
    return rgb_to_hex(*(round(x + (y - x) * weight) for x, y in zip(a, b)))
