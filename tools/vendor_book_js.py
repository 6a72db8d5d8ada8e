"""Fetch the scripts with which the course site renders its widgets, so that the site serves them itself.

    .venv/bin/python tools/vendor_book_js.py      (`make book` and `make setup` run it)

The explorers on the site are the notebooks' own widgets, rendered from the widget state stored in each
notebook by the standard embedder, `@jupyter-widgets/html-manager` (an AMD bundle, loaded with RequireJS).
myst-nb would load both from CDNs at view time; the site must work offline and from `file://`, so they are
taken from the npm registry here, once, with npm's own client (`npm pack`: the package alone, none of its
dependencies, which its dist bundle already holds), checked against the integrity pinned below and unpacked
into build/book-js/, from where docs/_ext/book_assets.py copies them into the site. anywidget's front end
is not fetched: the installed Python package carries it (`anywidget/nbextension/index.js`), so it always
matches the Python side. Nothing is fetched when build/book-js/ already holds these versions.
"""
import base64
import hashlib
import json
import pathlib
import shutil
import subprocess
import sys
import tarfile
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
DEST = ROOT / "build" / "book-js"
FONTS = (".woff2", ".woff", ".ttf", ".eot", ".svg")

# package: (version, npm's integrity of its tarball, {file in the tarball: where it goes under build/book-js})
PACKAGES = {
    "requirejs": (
        "2.3.8",
        "sha512-7/cTSLOdYkNBNJcDMWf+luFvMriVm7eYxp4BcFCsAX0wF421Vyce5SXP17c+Jd5otXKGNehIonFlyQXSowL6Mw==",
        lambda name: {"package/require.js": "require.js"}.get(name),
    ),
    "@jupyter-widgets/html-manager": (
        "1.0.15",
        "sha512-5thBIV6ymNgmPVOHvzx+gGy8ZSKmSazhtGw4/c4xJDVzRhG9PTeQsRjF3FUTopvFi//SABeNz1yp47bCrJ3CQA==",
        # the bundle, and the Font Awesome files its CSS names (loaded only when a widget shows an icon)
        lambda name: ("html-manager/" + name.rsplit("/", 1)[1]
                      if name == "package/dist/embed-amd.js"
                      or (name.startswith("package/dist/") and name.endswith(FONTS)) else None),
    ),
}


def integrity(path):
    return "sha512-" + base64.b64encode(hashlib.sha512(path.read_bytes()).digest()).decode()


def fetch(package, version, expected, destination_of, workdir):
    """`npm pack` the package into `workdir`, check its integrity, unpack its files into DEST."""
    if shutil.which("npm") is None:
        sys.exit("tools/vendor_book_js.py: npm is needed once to fetch the site's widget scripts "
                 "(sudo apt-get install npm)")
    out = subprocess.run(["npm", "pack", "--json", "--pack-destination", str(workdir), f"{package}@{version}"],
                         check=True, capture_output=True, text=True).stdout
    tarball = workdir / json.loads(out)[0]["filename"]
    if integrity(tarball) != expected:
        sys.exit(f"tools/vendor_book_js.py: {package}@{version} does not have the pinned integrity {expected}")
    with tarfile.open(tarball) as archive:
        for member in archive.getmembers():
            target = destination_of(member.name)
            if target and member.isfile():
                (DEST / target).parent.mkdir(parents=True, exist_ok=True)
                (DEST / target).write_bytes(archive.extractfile(member).read())


def main():
    stamp = DEST / "versions.json"
    wanted = {package: version for package, (version, _, _) in PACKAGES.items()}
    if stamp.is_file() and json.loads(stamp.read_text()) == wanted:
        return
    shutil.rmtree(DEST, ignore_errors=True)
    DEST.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as workdir:
        for package, (version, expected, destination_of) in PACKAGES.items():
            fetch(package, version, expected, destination_of, pathlib.Path(workdir))
    stamp.write_text(json.dumps(wanted, indent=1) + "\n")
    print(f"fetched {', '.join(f'{p}@{v}' for p, v in wanted.items())} into {DEST.relative_to(ROOT)}/")


if __name__ == "__main__":
    main()
