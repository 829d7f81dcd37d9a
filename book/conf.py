"""Sphinx + MyST-NB configuration of the ldp-notebooks book (issue 13).

Built by ``make book`` (see tools in book/build.py): notebooks are staged into
``build/book-src`` from ``build/paper`` (paper profile, ``make figures``) or, when
``BOOK_NOTEBOOKS=committed``, from ``notebooks/`` (smoke outputs, used by the test).
Nothing is executed (``nb_execution_mode = "off"``); maths uses a local MathJax 3.
"""
import os
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
autosummary_generate = True
numpydoc_show_class_members = False
html_theme = "sphinx_book_theme"
html_title = "Local differential privacy notebooks"
exclude_patterns = ["_build", "**.ipynb_checkpoints", "build.py"]
suppress_warnings = ["mystnb.unknown_mime_type"]
# The explorer panels' outputs carry a live widget (no saved widget state: nothing to render offline),
# a PNG of the panel and a text summary: the book shows the PNG.
nb_mime_priority_overrides = [("html", "application/vnd.jupyter.widget-view+json", None)]
# Offline maths: a MathJax 3 copy installed by `make book` under build/mathjax, copied into _static.
_mj = Path(os.environ.get("BOOK_MATHJAX", ROOT / "build" / "mathjax" / "node_modules" / "mathjax" / "es5"))
html_static_path = [str(_mj.parent)] if _mj.exists() else []
mathjax_path = "es5/tex-chtml-full.js"
html_theme_options = {"use_download_button": False}
html_context = {"default_mode": "light"}
