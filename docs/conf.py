"""Sphinx configuration of the documentation site (``python -m sphinx -W -b html docs OUT``).

The package is imported as installed (``pip install '.[docs]'``); its extension module must be
built. ``docs/_ext/fcm_docs.py`` renders the catalogue of measures with their formulas
(``docs/formulas.py``) and runs the pages' ``>>>`` examples under ``-b doctest``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))
sys.path.insert(0, str(HERE))

os.environ.setdefault("MPLBACKEND", "Agg")

import fastcluster_metrics  # noqa: E402  (after the paths above)

project = "fastcluster_metrics"
author = "the fastcluster_metrics authors"
copyright = "the fastcluster_metrics authors"
release = fastcluster_metrics.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.doctest",
    "sphinx.ext.mathjax",
    # MathJax itself, shipped with the site (mathjax_path = _static/mathjax/tex-chtml.js):
    # the formulas render for a reader offline, not only with a CDN in reach.
    "sphinx-mathjax-offline",
    "sphinx.ext.napoleon",
    "myst_parser",
    "matplotlib.sphinxext.plot_directive",
    "fcm_docs",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["_templates"]
exclude_patterns = ["_build", "_ext", "_templates"]
nitpicky = False

# --- MyST (Markdown pages: the guide, architecture.md, benches/README.md) -------------------
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3

# --- API reference ------------------------------------------------------------------------
autosummary_generate = True
autodoc_typehints = "none"  # the parameter lists say the types
autodoc_member_order = "bysource"
# The docstrings are numpydoc-style (scikit-learn's). napoleon rather than numpydoc reads
# them: the measures cite one list of references, the ``References`` of the ``_measures``
# module (rendered on the measures page), and numpydoc renames each docstring's citations.
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False


# --- doctest: the pages' and docstrings' examples run under ``-b doctest`` -------------------
doctest_global_setup = """
import numpy as np
import fastcluster_metrics as fcm
"""
doctest_default_flags = (
    __import__("doctest").ELLIPSIS
    | __import__("doctest").NORMALIZE_WHITESPACE
    | __import__("doctest").DONT_ACCEPT_TRUE_FOR_1
)

# --- the gallery: figures drawn by running the code at build time ---------------------------
plot_include_source = True
plot_html_show_source_link = False
plot_html_show_formats = False
plot_formats = [("png", 100)]
plot_pre_code = "import numpy as np\nimport matplotlib.pyplot as plt\n"
plot_rcparams = {"figure.dpi": 100}

# --- HTML -----------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = "fastcluster_metrics"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
    # The left sidebar lists the pages below a page's section, and most sections have none:
    # shown all the same (the default), it stands empty and takes a quarter of a laptop's
    # width from the text. The API reference keeps it (its functions' pages).
    "sidebar_includehidden": False,
}
# fcm.css: wide tables, code and formulas scroll in their own box, long names wrap, and the
# measures table fits a laptop's width.
html_static_path = ["_static"]
html_css_files = ["fcm.css"]
