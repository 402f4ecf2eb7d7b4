"""docs/patch-scaling.svg from the fusion-bench results: whole state and patch cost by
number of networks, log-log."""
from __future__ import annotations

import math
from typing import Any

from figures import median

FILE = "docs/patch-scaling.svg"


def _n(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def render(raw: dict[str, Any]) -> str:
    rows = raw["patch"]
    width, height, left, right, top, bottom = 640.0, 400.0, 80.0, 40.0, 40.0, 60.0
    points = [(math.log10(r["networks"]), math.log10(median(r["wholeNanos"])), math.log10(median(r["patchNanos"])))
              for r in rows]
    xs = [p[0] for p in points]
    ys = [v for p in points for v in p[1:]]
    x_min, x_max, y_min, y_max = min(xs), max(xs), math.floor(min(ys)), math.ceil(max(ys))

    def x(v: float) -> float:
        return left + (v - x_min) / (x_max - x_min) * (width - left - right)

    def y(v: float) -> float:
        return top + (y_max - v) / max(y_max - y_min, 1) * (height - top - bottom)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{int(width)}" height="{int(height)}" '
           'font-family="sans-serif" font-size="12">',
           '<rect width="100%" height="100%" fill="white"/>',
           f'<text x="{int(width / 2)}" y="22" text-anchor="middle" font-size="14">One changed network: whole state '
           'vs JSON Patch (log-log)</text>']
    for decade in range(y_min, y_max + 1):
        label = (f"{10 ** (decade - 6)} ms" if decade >= 6 else f"{10 ** (decade - 3)} µs" if decade >= 3
                 else f"{10 ** decade} ns")
        out.append(f'<line x1="{_n(left)}" y1="{_n(y(decade))}" x2="{_n(width - right)}" y2="{_n(y(decade))}" stroke="#ddd"/>')
        out.append(f'<text x="{_n(left - 8)}" y="{_n(y(decade) + 4)}" text-anchor="end">{label}</text>')
    for row, (px, _, _) in zip(rows, points, strict=True):
        out.append(f'<text x="{_n(x(px))}" y="{_n(height - bottom + 20)}" text-anchor="middle">{row["networks"]}</text>')
    out.append(f'<text x="{int(width / 2)}" y="{int(height - 15)}" text-anchor="middle">networks in the list</text>')
    for series, colour, index, legend_y in (("whole state", "#c0392b", 1, top + 18), ("patch", "#2471a3", 2, top + 36)):
        line = " ".join(f"{_n(x(p[0]))},{_n(y(p[index]))}" for p in points)
        out.append(f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="2"/>')
        out += [f'<circle cx="{_n(x(p[0]))}" cy="{_n(y(p[index]))}" r="3" fill="{colour}"/>' for p in points]
        out.append(f'<line x1="{_n(left + 16)}" y1="{_n(legend_y - 4)}" x2="{_n(left + 40)}" y2="{_n(legend_y - 4)}" '
                   f'stroke="{colour}" stroke-width="2"/>')
        out.append(f'<text x="{_n(left + 46)}" y="{_n(legend_y)}">{series}</text>')
    return "\n".join(out) + "\n</svg>\n"
