"""A run's memory, drawn: bytes in use on each device and on the host against time (`plot_memory`).

Reads `RunMetadata.memory_timeline` (runtime/memory_timeline.py). One line per allocator (GPU devices,
then the host), the device's limit dashed, and the start of backprop marked (the first pop of a history
value): the forward loop fills memory, the gradient loop drains it. With swap_memory the device line stays
flat while the host line climbs in its place. Plain SVG, so it needs nothing but a browser.
"""
import html

from .figure import figure_bundle

COLORS = ["#4C78A8", "#F58518", "#54A24B", "#B279A2"]
HOST_COLOR = "#9D755D"


def _mib(nbytes):
    return f"{nbytes / (1 << 20):.2f} MiB"


class MemoryPlot:
    def __init__(self, timeline, width=760, height=240, title=None):
        self.records = [r for r in timeline.devices.values() if r.events or r.peak_bytes]
        self.width, self.height, self.title = width, height, title

    def series(self, record):
        """[(time, bytes in use)] of one allocator, starting at 0 s."""
        start = record.events[0].bytes - record.events[0].delta if record.events else 0
        return [(0.0, start)] + [(e.time, e.bytes) for e in record.events]

    @property
    def svg(self):
        """The memory plot as SVG: bytes in use over the run, one line per device, with its memory limit (chapter
        09's picture of what swapping saves)."""
        left, right, top, bottom = 70, 150, 24, 30
        w, h = self.width - left - right, self.height - top - bottom
        duration = max((r.events[-1].time for r in self.records if r.events), default=0.0) or 1.0
        top_bytes = max([r.peak_bytes for r in self.records] + [r.limit or 0 for r in self.records] + [1])
        sx, sy = w / duration, h / (top_bytes * 1.05)
        parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{self.height}" '
                 f'font-family="Helvetica" font-size="11">']
        if self.title:
            parts.append(f'<text x="{left}" y="14" font-weight="bold">{html.escape(self.title)}</text>')
        parts.append(f'<line x1="{left}" y1="{top + h}" x2="{left + w}" y2="{top + h}" stroke="#444"/>'
                     f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + h}" stroke="#444"/>'
                     f'<text x="{left - 4}" y="{top + h}" text-anchor="end">0</text>'
                     f'<text x="{left - 4}" y="{top + 10}" text-anchor="end">{_mib(top_bytes * 1.05)}</text>'
                     f'<text x="{left + w}" y="{top + h + 16}" text-anchor="end">{duration * 1e3:.1f} ms</text>')
        gpu_row = 0
        for row, r in enumerate(self.records):
            is_host = r.allocator_name == "cpu"
            color = HOST_COLOR if is_host else COLORS[gpu_row % len(COLORS)]
            gpu_row += not is_host
            points, last = [], None
            for t, b in self.series(r):
                x, y = left + t * sx, top + h - b * sy
                if last is not None:
                    points.append(f"{x:.1f},{last:.1f}")  # a step: bytes stay until the next event
                points.append(f"{x:.1f},{y:.1f}")
                last = y
            parts.append(f'<polyline fill="none" stroke="{color}" stroke-width="1.5" points="{" ".join(points)}"/>')
            if r.limit:
                y = top + h - r.limit * sy
                parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + w}" y2="{y:.1f}" stroke="{color}" '
                             f'stroke-dasharray="5,4"/><text x="{left + w + 4}" y="{y + 4:.1f}" fill="{color}">'
                             f'limit {_mib(r.limit)}</text>')
            label = "host" if is_host else r.device.rsplit("/", 1)[-1].replace("device:", "")
            ly = top + 14 + 28 * row
            parts.append(f'<text x="{left + w + 4}" y="{ly + 20}" fill="{color}">{html.escape(label)}: peak '
                         f'{_mib(r.peak_bytes)}</text>')
            if r.swapped_out_bytes:
                parts.append(f'<text x="{left + w + 4}" y="{ly + 32}" fill="{color}">swapped '
                             f'{_mib(r.swapped_out_bytes)}</text>')
            start = r.backprop_start()
            if start is not None and not is_host:
                x = left + start * sx
                parts.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + h}" stroke="#888" '
                             f'stroke-dasharray="2,3"/><text x="{x - 4:.1f}" y="{top + 10}" text-anchor="end" '
                             f'fill="#666">forward</text><text x="{x + 4:.1f}" y="{top + 10}" fill="#666">'
                             f'backprop</text>')
        parts.append("</svg>")
        return "".join(parts)

    def _repr_mimebundle_(self, include=None, exclude=None):
        return figure_bundle(self.svg, repr(self))

    def __repr__(self):
        return f"<cfnb MemoryPlot: {', '.join(f'{r.allocator_name} peak {r.peak_bytes} B' for r in self.records)}>"


def plot_memory(timeline, title=None, width=760, height=240):
    """The memory of one run (`RunMetadata.memory_timeline`) as an SVG plot; Jupyter shows it."""
    if timeline is None:
        raise ValueError("No memory timeline: the Session has no GPU device (ConfigProto(device_count={'GPU': 1}) "
                         "or GPUOptions virtual devices), or the run was not given a RunMetadata.")
    return MemoryPlot(timeline, width, height, title)
