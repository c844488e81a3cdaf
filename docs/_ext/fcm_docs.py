"""The documentation's own Sphinx extension.

- ``.. fcm-measures::`` renders the catalogue
  (``fastcluster_metrics._measures.catalogue.MEASURES``): a summary table, then one section
  per measure with its names, properties, links to its function and method, and its formula
  from ``docs/formulas.py``. Nothing about a measure is
  written twice: a new row of the catalogue appears here with the formula its test demands.
- Every measure's function and :class:`Contingency` method gets its formula rendered at the
  end of its API page (the docstrings write formulas as plain text, for ``help()``).
- The Markdown pages' ``>>>`` code blocks become doctests, so ``-b doctest`` runs them as it
  runs the reStructuredText pages' and the docstrings' examples.
"""

from __future__ import annotations

import re
from typing import Any

from docutils import nodes
from docutils.statemachine import StringList
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

PACKAGE = "fastcluster_metrics"


def _yes(flag: bool) -> str:
    return "yes" if flag else ""


def _span(row: Any) -> str:
    return f"[{row.range[0]:g}, {row.range[1]:g}]" if row.range is not None else row.unit


def _where(row: Any) -> str:
    """Links to the measure's function (with its options) and its Contingency method."""
    method = row.kernel.__name__
    options = ", ".join(f"``{k}={v!r}``" for k, v in row.options.items())
    parts = []
    if row.function_name is not None:
        call = f":func:`~{PACKAGE}.{row.function_name}`"
        parts.append(f"{call} with {options}" if options else call)
    meth = f":meth:`Contingency.{method} <{PACKAGE}.Contingency.{method}>`"
    parts.append(f"{meth} with {options}" if options else meth)
    return " and ".join(parts)


def _anchor(name: str) -> str:
    return "measure-" + name.replace("_", "-")


def measures_rst() -> list[str]:
    """The catalogue as reStructuredText: a summary table, then a section per measure."""
    from formulas import FORMULAS, PER_SAMPLE

    from fastcluster_metrics._measures.catalogue import FAMILIES, MEASURES

    lines = [
        f'All {len(MEASURES)} measures, in the order ``evaluate(..., metrics="all")`` gives'
        " them. Every place that takes a measure takes its full name or any short name, in"
        " any case.",
        "",
        ".. list-table::",
        "   :header-rows: 1",
        "   :class: fcm-measures",
        "",
        "   * - measure",
        "     - short names",
        "     - family",
        "     - symmetric",
        "     - range or unit",
        "     - better",
        "     - adjusted for chance",
    ]
    for row in MEASURES.values():
        lines += [
            f"   * - :ref:`{row.name} <{_anchor(row.name)}>`",
            f"     - {', '.join(row.short)}",
            f"     - {row.family}",
            f"     - {_yes(row.symmetric)}",
            f"     - {_span(row)}",
            f"     - {'higher' if row.greater_is_better else 'lower'}",
            f"     - {_yes(row.adjusted)}",
        ]
    lines.append("")
    for family in FAMILIES:
        title = family[0].upper() + family[1:]
        lines += [title, "-" * len(title), ""]
        for row in MEASURES.values():
            if row.family != family:
                continue
            heading = f"``{row.name}``" + (f" ({row.short[0]})" if row.short else "")
            facts = [
                f"range {_span(row)}" if row.range is not None else f"unbounded ({row.unit})",
                "higher is better" if row.greater_is_better else "lower is better",
            ]
            if row.symmetric:
                facts.append("symmetric")
            if row.adjusted:
                facts.append("adjusted for chance")
            if row.counts:
                facts.append("counts only (whole-number weights)")
            if len(row.short) > 1:
                facts.append("also " + ", ".join(f"``{s}``" for s in row.short[1:]))
            lines += [
                f".. _{_anchor(row.name)}:",
                "",
                heading,
                "~" * len(heading),
                "",
                f"{_where(row)}: {'; '.join(facts)}.",
                "",
                ".. math::",
                "",
                *(f"   {line}" for line in FORMULAS[row.name].split("\n")),
                "",
            ]
            if row.per_sample is not None:
                lines += [
                    f"Each sample of class :math:`i` and cluster :math:`j` scores"
                    f" :math:`{PER_SAMPLE[row.name]}`"
                    f' (:func:`~{PACKAGE}.per_sample_score` with ``measure="{row.label}"``).',
                    "",
                ]
    return lines


def other_measures_rst() -> list[str]:
    """The catalogue's measures of other inputs than a table: a section per kind, each with
    its notation, a summary table and a section per measure with its formula."""
    from formulas import OTHER_FORMULAS, OTHER_NOTATION

    from fastcluster_metrics._measures.catalogue import KINDS, OTHERS

    lines: list[str] = []
    for kind, what in KINDS.items():
        rows = [row for row in OTHERS.values() if row.kind == kind]
        if not rows:
            continue
        title = f"Measures of {what.split(':')[0]}"
        lines += [title, "-" * len(title), "", OTHER_NOTATION[kind], ""]
        lines += [
            ".. list-table::",
            "   :header-rows: 1",
            "   :class: fcm-measures",
            "",
            "   * - measure",
            "     - short names",
            "     - family",
            "     - range or unit",
            "     - better",
            "     - adjusted for chance",
        ]
        for row in rows:
            lines += [
                f"   * - :ref:`{row.name} <{_anchor(row.name)}>`",
                f"     - {', '.join(row.short)}",
                f"     - {row.family}",
                f"     - {_span(row)}",
                f"     - {'higher' if row.greater_is_better else 'lower'}",
                f"     - {_yes(row.adjusted)}",
            ]
        lines.append("")
        for row in rows:
            heading = f"``{row.name}``" + (f" ({row.short[0]})" if row.short else "")
            options = ", ".join(f"``{k}={v!r}``" for k, v in row.options.items())
            call = f":func:`~{PACKAGE}.{row.function_name}`"
            where = f"{call} with {options}" if options else call
            lines += [
                f".. _{_anchor(row.name)}:",
                "",
                heading,
                "~" * len(heading),
                "",
                f"{where}.",
                "",
                ".. math::",
                "",
                *(f"   {line}" for line in OTHER_FORMULAS[row.name].split("\n")),
                "",
            ]
    return lines


class OtherMeasuresDirective(SphinxDirective):
    """``.. fcm-other-measures::``: the measures of memberships, covers, embeddings and
    graphs, with their formulas."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        self.env.note_dependency(str(self.env.srcdir / "formulas.py"))
        node = nodes.section()
        node.document = self.state.document
        content = StringList(other_measures_rst(), source="<fcm-other-measures>")
        nested_parse_with_titles(self.state, content, node)
        return node.children


class MeasuresDirective(SphinxDirective):
    """``.. fcm-measures::``: the catalogue with every measure's formula."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        self.env.note_dependency(str(self.env.srcdir / "formulas.py"))
        node = nodes.section()
        node.document = self.state.document
        content = StringList(measures_rst(), source="<fcm-measures>")
        nested_parse_with_titles(self.state, content, node)
        return node.children


_KINDS = {
    "adjusted": lambda row: row.adjusted,
    "unadjusted": lambda row: not row.adjusted,
    "symmetric": lambda row: row.symmetric,
    "asymmetric": lambda row: not row.symmetric,
    "unbounded": lambda row: row.range is None,
    "lower": lambda row: not row.greater_is_better,
    "counts": lambda row: row.counts,
    "default": lambda row: row.default,
}
"""What ``.. fcm-measure-list:: KIND`` lists: the rows with this property."""


class MeasureListDirective(SphinxDirective):
    """``.. fcm-measure-list:: KIND``: links to the measures of the catalogue with a property
    (:data:`_KINDS`), each under its short name: a list no page writes by hand."""

    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        from fastcluster_metrics._measures.catalogue import MEASURES

        kind = self.arguments[0]
        if kind not in _KINDS:
            raise self.error(f"fcm-measure-list: unknown kind {kind!r}; one of {sorted(_KINDS)}")
        rows = [row for row in MEASURES.values() if _KINDS[kind](row)]
        # nodes rather than markup: the directive serves Markdown and reStructuredText pages
        node = nodes.paragraph()
        for i, row in enumerate(rows):
            if i:
                node += nodes.Text(", ")
            ref = addnodes.pending_xref(
                "",
                refdomain="std",
                reftype="ref",
                reftarget=_anchor(row.name),
                refexplicit=True,
                refwarn=True,
            )
            ref += nodes.inline(row.label, row.label)
            node += ref
        node += nodes.Text(f" ({len(rows)} measures).")
        return [node]


class NotationDirective(SphinxDirective):
    """``.. fcm-notation::``: the notation of the formulas (``formulas.NOTATION``)."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        from formulas import NOTATION

        node = nodes.section()
        node.document = self.state.document
        content = StringList(NOTATION.strip("\n").split("\n"), source="<fcm-notation>")
        self.state.nested_parse(content, 0, node)
        return node.children


class MarkdownDoctests(SphinxTransform):
    """Marks the ``>>>`` code blocks of Markdown pages as doctests for ``-b doctest``."""

    default_priority = 500

    def apply(self, **kwargs: Any) -> None:
        if not self.env.doc2path(self.env.docname).suffix == ".md":
            return
        for node in self.document.findall(nodes.literal_block):
            if node.get("language") in ("python", "pycon") and node.astext().startswith(">>>"):
                node["testnodetype"] = "doctest"
                node["groups"] = ["default"]


_INITIAL = re.compile(r"^(\s*\.\. \[[\w-]+\] )([A-Z])\. ")
"""A citation whose text starts with an initial (``.. [HA85] L. Hubert``), which docutils
would read as an enumerated list item ``L.`` and drop."""


def _rows_documented_by(what: str, name: str) -> list[Any]:
    """The catalogue rows whose function (``what == "function"``) or Contingency method is
    the object ``name``."""
    from fastcluster_metrics._measures.catalogue import MEASURES

    short = name.rpartition(".")[2]
    if what == "function" and name in (f"{PACKAGE}.{short}",):
        return [row for row in MEASURES.values() if row.function_name == short]
    if what == "method" and name == f"{PACKAGE}.Contingency.{short}":
        return [row for row in MEASURES.values() if row.kernel.__name__ == short]
    return []


def add_formulas(
    app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]
) -> None:
    """``autodoc-process-docstring``: a measure's formulas, rendered, after its docstring;
    citations that start with an initial kept as text."""
    from formulas import FORMULAS

    for i, line in enumerate(lines):
        lines[i] = _INITIAL.sub(r"\1\2\\. ", line)
    rows = _rows_documented_by(what, name)
    if not rows:
        return
    lines += ["", ".. rubric:: Formula", ""]
    for row in rows:
        if row.options:
            given = ", ".join(f"``{k}={v!r}``" for k, v in row.options.items())
            lines += [f"With {given} (:ref:`{row.name} <{_anchor(row.name)}>`):", ""]
        else:
            link = f":ref:`{row.name} <{_anchor(row.name)}>`"
            lines += [f"({link}, notation on :doc:`/measures`)", ""]
        lines += [".. math::", "", *(f"   {x}" for x in FORMULAS[row.name].split("\n")), ""]


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("autodoc-process-docstring", add_formulas)
    app.add_directive("fcm-measures", MeasuresDirective)
    app.add_directive("fcm-other-measures", OtherMeasuresDirective)
    app.add_directive("fcm-notation", NotationDirective)
    app.add_directive("fcm-measure-list", MeasureListDirective)
    app.add_transform(MarkdownDoctests)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
