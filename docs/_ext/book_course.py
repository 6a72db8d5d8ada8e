"""The course as a book: what the site says around the committed notebooks, whose prose stays as it is.

* The front page's course table is README.md's (`course-table` directive), each chapter linked to its page.
* Each chapter opens with its goal and prerequisites, from notebooks/README.md's table (one source of truth),
  and a "Run this chapter" note: the README's two commands and which notebook to open.
* An exercise's `check(...)` cell was executed with `answer = None`, so its committed output is a "Not yet"
  that asks to edit the cell and run it again: on the site it says how to run the notebook to check an answer.
* `notebooks/NN_name.ipynb` written as code (the reading guide names chapters so) links to the chapter's page.

The notebooks are changed only as myst-nb reads them (Sphinx's `source-read` event gives the file's text),
never on disk. A chapter missing from either README table fails the build (a warning, and `make book` builds
with -W), so a new chapter cannot reach the site without its goal and prerequisites.
"""
import json
import os
import pathlib
import re

from docutils import nodes
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)

CHAPTER_DOC = re.compile(r"^notebooks/(\d\d)_\w+$")
CHAPTER_KEY = re.compile(r"`(\d\d_\w+)`")
CHAPTER_PATH = re.compile(r"^notebooks/(\d\d_\w+)\.ipynb$")
CHECK_CALL = re.compile(r"^check\(\s*[\"']\d\d\.\w+[\"']", re.M)
TWO_DIGITS = re.compile(r"\b\d\d\b")


def table_rows(text, after=None):
    """The rows of the first Markdown table in `text` (after the line `after`, if given), as lists of cells.

    Rows are read line by line, so a table broken by a blank line still gives all its rows."""
    if after is not None:
        text = text.split(after, 1)[1]
    rows = []
    for line in text.splitlines():
        if not line.startswith("|"):
            if rows and line.startswith("#"):
                break
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not all(set(c) <= set("-: ") for c in cells):
            rows.append(cells)
    return rows[1:]   # the first row is the header


def chapters(srcdir):
    """{"03_cond": "notebooks/03_cond", ...}: every chapter of the course, in order."""
    notebooks = sorted((pathlib.Path(srcdir) / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    return {p.stem: f"notebooks/{p.stem}" for p in notebooks}


def chapter_table(srcdir, path, after=None):
    """{chapter key: (goal, prerequisites)} from a README's table, by the chapter named in its first column."""
    table = {}
    for cells in table_rows((pathlib.Path(srcdir) / path).read_text(encoding="utf-8"), after):
        key = CHAPTER_KEY.search(cells[0])
        if key and len(cells) >= 3:
            table[key.group(1)] = (cells[1], cells[2])
    return table


def link_chapters(text, srcdir, fromdir):
    """`text` with every two-digit chapter number ("02, 04", "01–03") linked to that chapter's notebook."""
    by_number = {key[:2]: key for key in chapters(srcdir)}

    def link(match):
        key = by_number.get(match.group(0))
        if key is None:
            return match.group(0)
        target = os.path.relpath(pathlib.Path(srcdir) / "notebooks" / f"{key}.ipynb", fromdir)
        return f"[{match.group(0)}]({target})"
    return TWO_DIGITS.sub(link, text)


class CourseTable(SphinxDirective):
    """The README's course table, chapter names linked to their pages (the front page shows it)."""

    def run(self):
        srcdir = pathlib.Path(self.env.srcdir)
        self.env.note_dependency(str(srcdir / "README.md"))
        fromdir = (srcdir / self.env.docname).parent
        table = chapter_table(srcdir, "README.md", after="\n## The course\n")
        known = chapters(srcdir)
        where = self.get_location()
        for key in known.keys() - table.keys():
            logger.warning(f"notebooks/{key}.ipynb has no row in README.md's course table", location=where)
        lines = ["| chapter | goal | prerequisites |", "|---|---|---|"]
        for key, (goal, prerequisites) in table.items():
            if key not in known:
                logger.warning(f"README.md's course table names {key}, which is no notebook", location=where)
                continue
            target = os.path.relpath(srcdir / "notebooks" / f"{key}.ipynb", fromdir)
            lines.append(f"| [`{key}`]({target}) | {goal} | {link_chapters(prerequisites, srcdir, fromdir)} |")
        return self.parse_text_to_nodes("\n".join(lines))


def chapter_card(key, goal, prerequisites):
    """The note at the top of a chapter's page: goal, prerequisites, and how to run it."""
    number = key[:2]
    return (f"::::{{container}} cfnb-chapter-card\n"
            f"**Goal.** {goal}\n\n"
            f"**Prerequisites.** {prerequisites}\n\n"
            f"(run-chapter-{number})=\n"
            f"**Run this chapter.** In a clone of the repository, `make lab` sets everything up and opens "
            f"JupyterLab; open `notebooks/{key}.ipynb` and run its cells from the top, answering the exercises "
            f"as you go. `make test` runs every chapter and checks its outputs.\n"
            f"::::\n")


def check_note(key):
    """What an exercise's check cell says on the site, in place of its unanswered "Not yet"."""
    number = key[:2]
    return (f"```{{container}} cfnb-check-note\n"
            f"**Run this notebook to check your answer:** with `make lab`, open `notebooks/{key}.ipynb`, write "
            f"your answer in place of `None` and run the cell; `check` works the right answer out from the graph "
            f"and says whether yours is right, with a hint if not ({{ref}}`how to run this chapter "
            f"<run-chapter-{number}>`).\n"
            f"```")


def _markdown_cell(cell_id, source):
    return {"cell_type": "markdown", "id": cell_id, "metadata": {}, "source": source}


def _as_text(source):
    return "".join(source) if isinstance(source, list) else source


def present_chapter(notebook, key, goal, prerequisites, srcdir):
    """The notebook as the site shows it: the chapter card under its title, a note under each check cell."""
    card = chapter_card(key, goal, link_chapters(prerequisites, srcdir, pathlib.Path(srcdir) / "notebooks"))
    cells = []
    for index, cell in enumerate(notebook["cells"]):
        source = _as_text(cell["source"])
        if index == 0 and cell["cell_type"] == "markdown" and source.startswith("# "):
            title, _, rest = source.partition("\n")
            cell = {**cell, "source": f"{title}\n\n{card}\n{rest}"}
        elif index == 0:
            cells.append(_markdown_cell("cfnb-book-card", card))
        if cell["cell_type"] == "code" and CHECK_CALL.search(source):
            cells += [{**cell, "outputs": []}, _markdown_cell(f"cfnb-book-check-{index}", check_note(key))]
        else:
            cells.append(cell)
    return {**notebook, "cells": cells}


def on_source_read(app, docname, source):
    """Present a chapter's notebook as the site shows it (see `present_chapter`)."""
    if not CHAPTER_DOC.match(docname):
        return
    key = docname.split("/", 1)[1]
    srcdir = pathlib.Path(app.srcdir)
    app.env.note_dependency(str(srcdir / "notebooks" / "README.md"))
    row = chapter_table(srcdir, "notebooks/README.md").get(key)
    if row is None:
        logger.warning(f"{docname}.ipynb has no row (goal, prerequisites) in notebooks/README.md's table",
                       location=docname)
        return
    source[0] = json.dumps(present_chapter(json.loads(source[0]), key, *row, srcdir))


def link_chapter_paths(app, doctree, docname):
    """`notebooks/NN_name.ipynb` written as code becomes a link to that chapter's page (on the resolved doctree of
    an HTML page, where the builder that writes it makes the relative URI)."""
    if app.builder.format != "html":
        return
    for literal in list(doctree.findall(nodes.literal)):
        match = CHAPTER_PATH.match(literal.astext())
        if not match or isinstance(literal.parent, nodes.reference):
            continue
        chapter = f"notebooks/{match.group(1)}"
        if chapter not in app.env.all_docs or chapter == docname:
            continue
        uri = app.builder.get_relative_uri(docname, chapter)
        literal.replace_self(nodes.reference("", "", literal.deepcopy(), internal=True, refuri=uri))


def setup(app):
    app.add_directive("course-table", CourseTable)
    app.connect("source-read", on_source_read)
    app.connect("doctree-resolved", link_chapter_paths)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
