"""A device timeline: the firings of a traced run as bars on one row per device.

`Timeline(trace)` lays the firings out, time running right: where two rows have bars at the same moment, the
devices were working at once. `overlap()` is the fraction of the run during which at least two devices were
inside a firing. The partition graphs themselves are drawn by partitions.py (re-exported here).
"""
import html

from .figure import figure_bundle
from .partitions import DEVICE_COLORS, partitions_to_dot, short_name, show_partitions

__all__ = ["Timeline", "partitions_to_dot", "short_name", "show_partitions"]


class Timeline:
    """The firings of a traced run as bars on one row per device (`.svg`, or shown in Jupyter)."""

    def __init__(self, trace, width=760, row_height=26):
        self.firings = [f for f in trace if f.device]
        self.devices = sorted({f.device for f in self.firings}, key=lambda d: (len(d), d))
        self.width = width
        self.row_height = row_height

    @property
    def duration(self):
        """The time the last firing ended, in seconds from the start of the run."""
        return max((f.end for f in self.firings), default=0.0)

    def busy(self, device):
        """Merged [start, end] intervals during which `device` was inside a firing."""
        spans = sorted((f.start, f.end) for f in self.firings if f.device == device)
        out = []
        for s, e in spans:
            if out and s <= out[-1][1]:
                out[-1][1] = max(out[-1][1], e)
            else:
                out.append([s, e])
        return out

    def overlap(self):
        """Fraction of the run's time during which at least two devices were inside a firing."""
        events = []
        for d in self.devices:
            for s, e in self.busy(d):
                events += [(s, 1), (e, -1)]
        events.sort()
        active, last, both = 0, 0.0, 0.0
        for t, delta in events:
            if active >= 2:
                both += t - last
            active += delta
            last = t
        return both / self.duration if self.duration else 0.0

    @property
    def svg(self):
        """The timeline as SVG: one row per device, one bar per firing (grey when dead), the run's duration on the
        axis: what TensorBoard's trace viewer shows of a multi-device step."""
        left, top, rh = 70, 20, self.row_height
        scale = (self.width - left - 10) / (self.duration or 1.0)
        height = top + rh * len(self.devices) + 24
        parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{height}" '
                 f'font-family="Helvetica" font-size="11">']
        for row, device in enumerate(self.devices):
            y = top + row * rh
            color = DEVICE_COLORS[row % len(DEVICE_COLORS)]
            parts.append(f'<text x="4" y="{y + rh * 0.65:.1f}">{html.escape(short_name(device))}</text>')
            for f in self.firings:
                if f.device != device:
                    continue
                x, w = left + f.start * scale, max((f.end - f.start) * scale, 0.5)
                fill = color if f.live else "#cccccc"
                tip = html.escape(f"{f.node} iteration {f.iteration} {'live' if f.live else 'dead'}")
                parts.append(f'<rect x="{x:.1f}" y="{y + 3}" width="{w:.1f}" height="{rh - 6}" fill="{fill}" '
                             f'fill-opacity="0.8"><title>{tip}</title></rect>')
        axis_y = top + rh * len(self.devices) + 14
        parts.append(f'<text x="{left}" y="{axis_y}">0</text>')
        parts.append(f'<text x="{self.width - 10}" y="{axis_y}" text-anchor="end">'
                     f'{self.duration * 1e3:.1f} ms</text></svg>')
        return "".join(parts)

    def _repr_mimebundle_(self, include=None, exclude=None):
        return figure_bundle(self.svg, repr(self))

    def __repr__(self):
        return f"<cfnb Timeline: {len(self.devices)} devices, {len(self.firings)} firings>"
