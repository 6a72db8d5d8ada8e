"""The site serves every script it runs: the widget embedder and its modules are copied into `_static/widgets/`.

myst-nb renders a notebook's stored widget state with ipywidgets' embedder, `@jupyter-widgets/html-manager`,
loaded with RequireJS, and by default takes both from CDNs. docs/conf.py points `nb_ipywidgets_js` at
`_static/widgets/` instead; this extension fills that folder from build/book-js/ (fetched once by
tools/vendor_book_js.py) and from the installed anywidget package (its AMD front end, which html-manager loads
for an anywidget's model, as `_static/widgets/config.js` tells RequireJS). It also writes the site's root
`index.html`, which opens the front page (`docs/index`).
"""
import importlib.util
import pathlib
import shutil

from sphinx.errors import ExtensionError

VENDORED = pathlib.Path(__file__).resolve().parents[2] / "build" / "book-js"
REDIRECT = ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            '<meta http-equiv="refresh" content="0; url={url}"><title>{title}</title></head>'
            '<body><p><a href="{url}">{title}</a></p></body></html>\n')


def anywidget_front_end():
    """anywidget's AMD module as its Python package ships it, or None without anywidget."""
    spec = importlib.util.find_spec("anywidget")
    if spec is None or spec.origin is None:
        return None
    path = pathlib.Path(spec.origin).parent / "nbextension" / "index.js"
    return path if path.is_file() else None


def check_vendored(app):
    if app.builder.format == "html" and not (VENDORED / "require.js").is_file():
        raise ExtensionError(f"{VENDORED} holds no widget scripts: run `make book` "
                             "(or .venv/bin/python tools/vendor_book_js.py) first")


def copy_widget_scripts(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    widgets = pathlib.Path(app.outdir) / "_static" / "widgets"
    shutil.copytree(VENDORED, widgets, dirs_exist_ok=True, ignore=shutil.ignore_patterns("versions.json"))
    front_end = anywidget_front_end()
    if front_end is not None:
        (widgets / "anywidget").mkdir(exist_ok=True)
        shutil.copyfile(front_end, widgets / "anywidget" / "index.js")
    root = app.builder.get_target_uri(app.config.root_doc)
    (pathlib.Path(app.outdir) / "index.html").write_text(REDIRECT.format(url=root, title=app.config.html_title))


def setup(app):
    app.connect("builder-inited", check_vendored)
    app.connect("build-finished", copy_widget_scripts)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
