"""The explorer: the functional, lowered and gradient graphs of a cell, and its execution, step by step.

An `anywidget` widget: Python builds the data once (explorer_data.py: one drawing per view, the
trace as a table), and the page does the rest (explorer.js): the view buttons, Play with its speed,
the step slider and the zoom only restyle the drawing the page already holds. So stepping is
instant, keeps working after the kernel stops, and needs no front-end extension (anywidget runs in
JupyterLab, Notebook 7, VS Code and Colab).

Each view is drawn at two levels of detail (cfnb.viz.drawing): `lesson`, what the lesson is about
with the plumbing folded (a loop variable's primitives into a lane, a loop into a box where the page
needs it), and `all`, every node exactly as TensorFlow built it, with TensorFlow's names.

Python and the page share the widget's state — `view`, `detail`, `step`, `zoom` and `interval`
(Play's ms per step) — so code and tests drive the explorer by setting them (`explorer.step = 12`),
and read what the page shows from `caption` and `highlighted`.

Where no widget can render (an untrusted notebook, GitHub, a static HTML export without widget
state), the output's `text/html` takes over (static_html.py): the current step as a picture, and a
script that turns it into the same explorer wherever scripts may run.

Each display gets its own widget: the second and later displays of an explorer show a copy
(`Explorer.copy`) in the same state, so stepping one does not move the other.
"""
import pathlib

import anywidget
import traitlets

from . import explorer_data, static_html

HERE = pathlib.Path(__file__).parent
ESM = (HERE / "explorer.js").read_text()
CSS = (HERE / "explorer.css").read_text()
ZOOMS = ("auto", "0.5", "0.75", "1", "1.5", "2")


class Explorer(anywidget.AnyWidget):
    _esm = ESM
    _css = CSS
    data = traitlets.Dict().tag(sync=True)             # {"views": {view: drawing}, "nodes", "frames", "steps"}
    view = traitlets.Unicode("lowered").tag(sync=True)
    detail = traitlets.Unicode("lesson").tag(sync=True)  # "lesson": plumbing folded; "all": every node, TF's names
    step = traitlets.Int(0).tag(sync=True)
    zoom = traitlets.Unicode("auto").tag(sync=True)    # "auto": fit the width with text >= 9 px; or a scale
    interval = traitlets.Int(250).tag(sync=True)       # Play's speed: ms per step

    def __init__(self, result, drawings=None, **state):
        self.result = result
        self._views = ("functional", "lowered") + (("gradient",) if result.grads else ())
        self.drawings = drawings or {explorer_data.drawing_key(view, detail):
                                     explorer_data.drawing_for(result, view, detail)
                                     for view in self._views for detail in explorer_data.DETAILS}
        data = explorer_data.trace_data(result.trace, self.drawings)
        data["views"] = {key: {"svg": d.svg, "width": d.width, "height": d.height, "font_px": d.font_px or 0.0}
                         for key, d in self.drawings.items()}
        data["view_names"] = list(self._views)
        self._displayed = False
        super().__init__(data=data, **state)

    @traitlets.validate("view")
    def _valid_view(self, proposal):
        if proposal.value not in self._views:
            raise traitlets.TraitError(f"view must be one of {', '.join(self._views)}, not {proposal.value!r}")
        return proposal.value

    @traitlets.validate("detail")
    def _valid_detail(self, proposal):
        if proposal.value not in explorer_data.DETAILS:
            raise traitlets.TraitError(f"detail must be one of {', '.join(explorer_data.DETAILS)}, "
                                       f"not {proposal.value!r}")
        return proposal.value

    @traitlets.validate("step")
    def _valid_step(self, proposal):
        return max(0, min(proposal.value, self.last_step))

    @traitlets.validate("zoom")
    def _valid_zoom(self, proposal):
        if proposal.value not in ZOOMS:
            raise traitlets.TraitError(f"zoom must be one of {', '.join(ZOOMS)}, not {proposal.value!r}")
        return proposal.value

    @property
    def views(self):
        return self._views

    @property
    def key(self):
        """The drawing shown now: the view at the level of detail (`lowered`, `lowered/all`)."""
        return explorer_data.drawing_key(self.view, self.detail)

    @property
    def last_step(self):
        return max(0, len(self.data.get("steps", ())) - 1)

    @property
    def caption(self):
        """What the page writes under the controls now."""
        return explorer_data.caption(self.data, self.step, self.key)

    @property
    def highlighted(self):
        """The drawn op the page highlights now (the firing node, or the op that stands for it), or None."""
        if not self.data["steps"]:
            return None
        node = self.data["nodes"][self.data["steps"][self.step][0]]
        return node[2][self.key][2]

    @property
    def shown_svg(self):
        """The drawing shown now (unstyled: the page restyles it per step)."""
        return self.drawings[self.key].svg

    def __repr__(self):
        detail = "" if self.detail == "lesson" else f", {self.detail} nodes"
        return f"<cfnb explorer: {self.view} view{detail}, step {self.step} of {self.last_step}>"

    def copy(self):
        """A new explorer on the same result and drawings, in the same state, with its own widget."""
        return Explorer(self.result, self.drawings, view=self.view, detail=self.detail, step=self.step,
                        zoom=self.zoom, interval=self.interval)

    def _repr_mimebundle_(self, include=None, exclude=None):
        if self._displayed:  # a second view of this model would step with the first: show a copy
            return self.copy()._repr_mimebundle_(include=include, exclude=exclude)
        self._displayed = True
        bundle = super()._repr_mimebundle_(include=include, exclude=exclude)
        if isinstance(bundle, tuple):
            bundle = bundle[0]
        bundle = dict(bundle or {})
        bundle["text/plain"] = repr(self)
        bundle["text/html"] = static_html.explorer_html(self)
        return bundle
