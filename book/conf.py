"""Sphinx + MyST-NB configuration of the ldp-notebooks book (issue 13).

Built by ``make book`` (see book/build.py): executed notebooks are staged into
``build/book-src`` from ``build/paper`` (paper profile, ``make figures``); tests/pipeline/test_book.py stages
a smoke-profile execution the same way.  Nothing is executed (``nb_execution_mode = "off"``); maths
uses a local MathJax 3, and no page loads anything from outside (tests/pipeline/test_book.py).
"""

import importlib
import inspect
import os
import pkgutil
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = Path(os.environ.get("BOOK_ROOT", HERE.parent))
sys.path.insert(0, str(ROOT))

project = "ldp-notebooks"
author = "ldp-notebooks contributors"
extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "sphinxcontrib.bibtex",
]
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_dmath_allow_digits = True  # "$\\mu_t = 1$:" is maths, as Jupyter renders it
nb_execution_mode = "off"
bibtex_bibfiles = ["references.bib"]
bibtex_reference_style = "author_year"
bibtex_default_style = "ldp"  # alpha labels, but the Japanese papers labelled by their keys (below)
autosummary_generate = True
# the API reference: one page per subpackage (_templates/autosummary)
templates_path = ["_templates"]
numpydoc_show_class_members = False
html_theme = "sphinx_book_theme"
html_title = "Local differential privacy notebooks"
exclude_patterns = ["_build", "**.ipynb_checkpoints", "build.py", "figures/**"]
suppress_warnings = ["mystnb.unknown_mime_type"]
# Markdown *outputs* (the claims tables, the report's tables) are parsed as MyST, which has tables and
# dollar maths; CommonMark (the default) would print a pipe table as text.
nb_render_markdown_format = "myst"
# No widget manager or require.js from a CDN: saved widget state is dropped when staging (build.py).
nb_ipywidgets_js = {}
# The explorer panels' outputs carry a live widget (no saved widget state: nothing to render offline),
# a PNG of the panel and a text summary: the book shows the PNG.
nb_mime_priority_overrides = [("html", "application/vnd.jupyter.widget-view+json", None)]
# Offline maths: a MathJax 3 copy installed by `make book` under build/mathjax, copied into _static.
_mj = Path(
    os.environ.get("BOOK_MATHJAX", ROOT / "build" / "mathjax" / "node_modules" / "mathjax" / "es5")
)
html_static_path = [str(_mj.parent)] if _mj.exists() else []
mathjax_path = "es5/tex-chtml-full.js"
html_static_path = [*html_static_path, "_static"]
html_css_files = ["book.css"]
# The download button offers each chapter's .ipynb (the executed notebook shown on the page).
# A chapter's wide outputs (the nine-column claims tables) get the width of the right-hand column too;
# the other pages keep it for their table of contents (book.css widens a chapter's article).
html_theme_options = {
    "use_download_button": True,
    "use_fullscreen_button": False,
    "secondary_sidebar_items": {"notebooks/*": []},
}
html_context = {"default_mode": "light"}


_ABS = re.compile(r"(?<![\\|`])\|(?=[^\s|])([^|`\n]*?[^\s|\\])\|(?![|_`])")


def _escape_bars(app, what, name, obj, options, lines):
    """``|x|`` in a docstring is an absolute value or a set size, not a reST substitution.

    Outside inline literals and roles (where ``\\|`` would change the maths), escape the bars so
    that docutils prints them instead of failing with "Undefined substitution referenced".
    """
    for i, line in enumerate(lines):
        if re.match(r"\s*(\| |\+[-=])", line):
            continue  # a reST line block or a grid table
        parts = re.split(r"(`[^`]*`)", line)
        lines[i] = "".join(p if p.startswith("`") else _ABS.sub(r"\\|\1\\|", p) for p in parts)


from pybtex.plugin import register_plugin  # noqa: E402
from pybtex.style.formatting.alpha import Style as _AlphaStyle  # noqa: E402
from pybtex.style.labels.alpha import LabelStyle as _AlphaLabels  # noqa: E402
from sphinx.pycode import ModuleAnalyzer  # noqa: E402


class _KeyLabels(_AlphaLabels):
    """Alpha labels ("[EPK14]"), except for a work without authors in Latin letters (the five Japanese
    papers): alpha would drop their names and print "[a]", "[24]"; they get their key ("[grr_vs_oue]")."""

    def format_label(self, entry):
        names = " ".join(str(p) for p in entry.persons.get("author", []))
        if not any(c.isascii() and c.isalpha() for c in names):
            return entry.key
        return super().format_label(entry)


class _Style(_AlphaStyle):
    default_label_style = "ldp_keys"


register_plugin("pybtex.style.labels", "ldp_keys", _KeyLabels)
register_plugin("pybtex.style.formatting", "ldp", _Style)


def api_modules(package: str) -> list[str]:
    """The public modules under ``package`` (subpackages' modules after their package), by name."""
    found, path = [], getattr(importlib.import_module(package), "__path__", [])
    for info in pkgutil.iter_modules(path, package + "."):
        if not info.name.rsplit(".", 1)[1].startswith("_"):
            found += [info.name, *(api_modules(info.name) if info.ispkg else [])]
    return found


def api_tables(module: str) -> list[tuple[str, list[str]]]:
    """``(title, names)`` of a module's summary tables, by autosummary's default rules: the public
    attributes with a doc comment, then the functions, classes and exceptions defined in it."""
    mod = importlib.import_module(module)
    members = {n: v for n, v in vars(mod).items() if not n.startswith("_")}
    own = {n: v for n, v in members.items() if getattr(v, "__module__", None) == module}
    docs = ModuleAnalyzer.for_module(module).find_attr_docs()
    tables = {
        "Module Attributes": sorted(n for ns, n in docs if not ns and n in members),
        "Functions": sorted(n for n, v in own.items() if inspect.isfunction(inspect.unwrap(v))),
        "Classes": sorted(
            n for n, v in own.items() if inspect.isclass(v) and not issubclass(v, BaseException)
        ),
        "Exceptions": sorted(
            n for n, v in own.items() if inspect.isclass(v) and issubclass(v, BaseException)
        ),
    }
    return [(title, names) for title, names in tables.items() if names]


_MODULES = [
    "ldp_helpers",
    *api_modules("ldp_helpers"),
    "ldp_tools",
    *api_modules("ldp_tools"),
]
# plain data (Sphinx pickles its configuration): each module's modules and tables, by name
autosummary_context = {
    "api_modules": {name: api_modules(name) for name in _MODULES},
    "api_tables": {name: api_tables(name) for name in _MODULES},
}


def setup(app):
    app.connect("autodoc-process-docstring", _escape_bars)
