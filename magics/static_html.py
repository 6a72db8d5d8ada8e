"""The explorer where no widget renders (an untrusted notebook, GitHub, a static HTML export).

`explorer_html` is the explorer's text/html: its current step as a picture
(the firing node styled by a `<style>` inside the SVG), plus its state and explorer.js, which a page
that runs scripts (a static HTML export, a trusted notebook without the widget manager) turns into
the same stepping explorer, with no kernel.
"""
import html
import json

from cfnb.viz.figure import svg_img

FIRING_STYLE = ("{sel} polygon, {sel} ellipse, {sel} path {{fill:#ffe599;stroke:#000000;stroke-width:3}}"
                "{sel} text {{font-weight:bold}}")


def styled_svg(svg, element_id):
    """`svg` with the element `element_id` styled as the firing node, by a `<style>` inside the SVG
    (an `<img>` keeps it to itself)."""
    if not element_id or "<svg" not in svg:
        return svg
    style = "<style>" + FIRING_STYLE.format(sel=f'[id="{element_id}"]') + "</style>"  # ids hold dots
    head_end = svg.index(">", svg.index("<svg")) + 1
    return svg[:head_end] + style + svg[head_end:]


def _script_json(value):
    """JSON safe inside a <script> element."""
    return json.dumps(value, separators=(",", ":")).replace("</", "<\\/")


def explorer_html(explorer):
    """The explorer's text/html: its current step as a picture, its state, and the script that steps it."""
    data, view, key, step = explorer.data, explorer.view, explorer.key, explorer.step
    drawing = data["views"][key]
    element = None
    if data["steps"]:
        element = data["nodes"][data["steps"][step][0]][2][key][0]
    caption = html.escape(explorer.caption)
    if drawing["svg"].startswith("<svg"):
        picture = svg_img(styled_svg(drawing["svg"], element), alt=f"{view} view, step {step}",
                          size=(drawing["width"], drawing["height"]), css_class="cfnb-explorer-drawing")
    else:  # no Graphviz: the message and the DOT text
        picture = f'<div class="cfnb-explorer-drawing">{drawing["svg"]}</div>'
    state = {"data": data, "view": view, "detail": explorer.detail, "step": step, "zoom": explorer.zoom,
             "interval": explorer.interval}
    module = str(explorer._esm).replace("</script", "<\\/script")
    boot = ("(function(host){var url=URL.createObjectURL(new Blob([host.querySelector('script.cfnb-explorer-esm')"
            ".textContent],{type:'text/javascript'}));import(url).then(function(m){m.mount(host);});})"
            "(document.currentScript.parentElement);")
    return (f'<div class="cfnb-explorer-static"><style>{explorer._css}</style><div class="cfnb-explorer-host">'
            f'<div class="cfnb-explorer-caption">{caption}</div>{picture}'
            f'<script type="application/json" class="cfnb-explorer-state">{_script_json(state)}</script>'
            f'<script type="text/plain" class="cfnb-explorer-esm">{module}</script>'
            f'<script>{boot}</script></div></div>')
