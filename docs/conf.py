"""Sphinx configuration of the course as a website (`make book`).

    .venv/bin/python -m sphinx -W -n -b html -c docs . build/book

The source folder is the repository's root, so the site is built from the files as they are: the committed,
executed notebooks (`notebooks/NN_*.ipynb`, never run here: `nb_execution_mode = "off"`), this folder's front
page and the reading guide (`docs/reading-guide.md`), and links between them resolve as they do in the
repository. What the site adds around the notebooks (each chapter's goal, prerequisites and "Run this chapter"
note, the exercises' notes, readable figures, the widgets' scripts served from the build) is done by the
extensions in `docs/_ext/` as the notebooks are read; the files themselves are never changed.
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent / "_ext"))

project = "cfnb"
html_title = "cfnb: how TensorFlow runs control flow"
author = "the cfnb authors"
copyright = "the cfnb authors, Apache-2.0"

extensions = ["myst_nb", "book_course", "book_figures", "book_assets"]

root_doc = "docs/index"
# Every chapter, whatever its number: a new notebooks/NN_name.ipynb joins the site (and the front page's
# glob toctree) without an edit here.
include_patterns = ["docs/index.md", "docs/reading-guide.md", "notebooks/[0-9][0-9]_*.ipynb"]
exclude_patterns = [".venv", ".git", "build", "**/.ipynb_checkpoints", "**/node_modules"]

# Read the committed outputs, never execute: nbval checks that they are what the code gives today.
nb_execution_mode = "off"
# A figure output carries its SVG and an <img> of it as HTML: take the SVG, which book_figures sizes readably.
nb_mime_priority_overrides = [("html", "image/svg+xml", 5)]
# The notebooks' widgets (the explorers) are rendered from their stored state by ipywidgets' embedder, with
# scripts the site serves itself (book_assets.py), in this order: RequireJS, where the modules are, the embedder.
nb_ipywidgets_js = {"widgets/require.js": {}, "widgets/config.js": {}, "widgets/html-manager/embed-amd.js": {}}
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3
suppress_warnings = ["mystnb.unknown_mime_type"]

# Every reference must resolve, with -W every warning fails the build (`make book` passes both).
nitpicky = True

html_theme = "sphinx_book_theme"
html_static_path = ["_static"]
html_css_files = ["book.css"]
html_context = {"default_mode": "light"}   # without it the theme logs an error on a first visit
html_theme_options = {
    "home_page_in_toc": True,
    "show_toc_level": 2,
    "use_download_button": True,   # the chapter as .ipynb, to run it
    "use_fullscreen_button": False,
    "show_navbar_depth": 1,
}
html_last_updated_fmt = None
html_show_sourcelink = False
html_copy_source = True            # the download button serves the notebook from _sources/
# Search results without the page excerpt, which Sphinx's search fetches, and a browser refuses from file://
html_show_search_summary = False
