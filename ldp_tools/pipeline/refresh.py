"""Re-execute the committed notebooks at their defaults, in place, with volatile metadata stripped.

Usage::

    python -m ldp_tools.pipeline.refresh [--only NAME ...]

Each notebook is authored as a jupytext percent script ``notebooks/<stem>.py`` paired with
``notebooks/<stem>.ipynb``.  Refreshing rebuilds the ``.ipynb`` from the script, executes it
with its default (smoke) parameters, and strips timings, ids and kernel versions, so the stored
outputs are exactly what nbval will compare against.  A live panel's widget view is dropped too:
its model lives only in the kernel that ran it (a stored view would show "model not found" and
change its id on every refresh), so a stored notebook shows the panel's static figure and text
until it is run.  Execution counts are kept: nbval treats
a cell with outputs but no count as "unrun", and a fresh top-to-bottom run numbers the code
cells 1, 2, 3, ... deterministically (a test checks exactly that).
"""

from __future__ import annotations

import argparse
import sys

import jupytext
import nbformat
from nbclient import NotebookClient

from ldp_helpers._validation import check_int
from ldp_tools.pipeline import paths
from ldp_tools.pipeline.reproduce import _kernel_config

KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
_VOLATILE_CELL_METADATA = ("execution", "ExecuteTime", "collapsed", "scrolled", "papermill")
#: the explorer panels' widget view (``ldp_tools.explore._widgets.WIDGET_MIME``; a test checks they agree)
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


def _coalesce_streams(outputs: list) -> list:
    """Merge consecutive outputs of one stream: the kernel's chunking of stdout depends on timing."""
    merged = []
    for output in outputs:
        previous = merged[-1] if merged else {}
        if (
            output.get("output_type") == "stream"
            and previous.get("output_type") == "stream"
            and previous.get("name") == output.get("name")
        ):
            previous["text"] = "".join(previous["text"]) + "".join(output["text"])
        else:
            merged.append(output)
    return merged


def _strip_volatile(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Drop timings, ids, version strings and widget views, merge split stream chunks; keep outputs and execution counts."""
    nb.metadata = nbformat.from_dict(
        {"kernelspec": KERNELSPEC, "language_info": {"name": "python"}}
    )
    for cell in nb.cells:
        cell.pop("id", None)
        for key in _VOLATILE_CELL_METADATA:
            cell.metadata.pop(key, None)
        if cell.cell_type == "code":
            for output in cell.outputs:
                if output.get("output_type") != "stream":
                    output.get("metadata", {}).clear()
                    output.get("data", {}).pop(WIDGET_MIME, None)
            cell.outputs = _coalesce_streams(cell.outputs)
    nb.nbformat, nb.nbformat_minor = 4, 4
    return nb


def _build_from_script(stem: str) -> nbformat.NotebookNode:
    """The notebook as written in ``notebooks/<stem>.py`` (no outputs; :func:`_strip_volatile` sets its metadata)."""
    paths.check_notebook_stem(stem, "stem")
    return jupytext.read(paths.NOTEBOOKS_DIR / f"{stem}.py", fmt="py:percent")


def refresh(stem: str, *, timeout: int = 600) -> None:
    check_int("timeout", timeout, low=1, high=24 * 3600)
    nb = _build_from_script(stem)
    NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(paths.NOTEBOOKS_DIR)}},
        config=_kernel_config(),
    ).execute()
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                raise RuntimeError(f"{stem}: a cell raised {output.ename}: {output.evalue}")
    nbformat.write(_strip_volatile(nb), paths.NOTEBOOKS_DIR / f"{stem}.ipynb")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ldp_tools.pipeline.refresh", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--only", nargs="+", metavar="NAME")
    args = parser.parse_args(argv)
    scripts = sorted(p.stem for p in paths.NOTEBOOKS_DIR.glob("[0-9][0-9]_*.py"))
    try:
        stems = paths._select_notebooks(scripts, args.only)
    except ValueError as err:
        parser.error(str(err))
    for i, stem in enumerate(stems, start=1):
        print(f"[{i}/{len(stems)}] refreshing {stem}", flush=True)
        refresh(stem)
    return 0


if __name__ == "__main__":
    sys.exit(main())
