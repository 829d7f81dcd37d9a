"""What a reseeded run of the robustness pass executes, and how its seeds share one kernel.

A reseeded run (:mod:`~ldp_tools.pipeline.reproduce`) only has to recompute the rows that can move
with the seed.  Which cells those are is declared, never guessed, and checked:

* a cell tagged :data:`~ldp_tools.pipeline.notebook.NO_CLAIMS_TAG` (a figure, a panel, a printed
  check) is left out, as is every cell after the one that writes the claims (``claims.write_csv``);
* a cell tagged :data:`SEED_FREE_TAG` computes the same values under every seed: it reads no name
  that the seed reaches (:func:`seeded_names`, refused otherwise by :func:`check_seed_free`), so its rows
  are ``deterministic`` by construction.  A reseeded run leaves it out unless a kept cell reads a
  name it binds; the ids of the rows it states (:func:`claims_only_cells`) may then be missing from the
  reseeded run's ``claims.csv``, and a row of a kept seed-free cell that moves fails the pass
  (:func:`~ldp_tools.pipeline.stability._with_stability`).

The seeds of one notebook then run in **one kernel**, one after the other (:func:`reseeds_notebook`):
before each seed the user namespace is emptied (``%reset -f``) and the parameters cell is run again with
that seed, so every seed starts from the same parameters; only the imported modules (pure code) are
shared, which saves a kernel start and the imports per seed.

References
----------
Issue 40, item 2 (a robustness pass that costs little).
"""

from __future__ import annotations

import ast
import copy
import re

from ldp_tools.pipeline.notebook import NO_CLAIMS_TAG

#: the tag of a cell whose values do not depend on the seed (checked by :func:`check_seed_free`)
SEED_FREE_TAG = "seed-free"
#: the parameter the robustness pass changes
SEED = "seed"
#: the ClaimsTable methods that state a row, whose first argument names the row's entry in the claims yaml
_ROW_METHODS = ("statement", "check", "erratum", "erratum_if", "ambiguous_if")
_WRITES_CLAIMS = re.compile(r"\bclaims\.write_csv\(")


def _tags(cell) -> list:
    return cell.get("metadata", {}).get("tags", [])


def _statements(source: str) -> list:
    """The top-level statements of a code cell (IPython magics and shell lines left out)."""
    lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]
    return ast.parse("\n".join(lines)).body


def _names(node) -> tuple[set, set]:
    """(names read, names bound) by a statement; ``x[i] = …``, ``x.a = …`` and ``x += …`` bind ``x`` too."""
    loads, stores = set(), set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            (loads if isinstance(n.ctx, ast.Load) else stores).add(n.id)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            stores.update((a.asname or a.name).split(".")[0] for a in n.names)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            stores.add(n.name)
        elif isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            for target in n.targets if isinstance(n, ast.Assign) else [n.target]:
                while isinstance(target, (ast.Subscript, ast.Attribute)):
                    target = target.value
                if isinstance(target, ast.Name):
                    stores.add(target.id)
    return loads, stores


def seeded_reads(cells) -> list[set]:
    """For each cell, the names it reads that the seed reaches at that point of a run in cell order.

    ``seed`` is reached; a statement that reads a reached name reaches every name it binds (``x[i] = …``
    binds ``x``), one that reads none un-reaches the plain names it rebinds (``d = 4`` after a seeded
    ``d``); a compound statement (``for``, ``if``, ``with``) counts as one.  The parameters cells bind
    the parameters, none of them reached but ``seed``.  A method call that changes its object in place
    (``xs.append(v)``) binds nothing here: a cell tagged ``seed-free`` must not rely on one.
    """
    seeded, reads = {SEED}, []
    for cell in cells:
        found = set()
        if cell.get("cell_type") == "code" and not {"parameters", "injected-parameters"} & set(
            _tags(cell)
        ):
            for statement in _statements(cell["source"]):
                loads, stores = _names(statement)
                found |= loads & seeded
                if loads & seeded:
                    seeded |= stores
                else:
                    seeded -= _plain_targets(statement)
        reads.append(found)
    return reads


def _plain_targets(statement) -> set:
    """The names a simple assignment rebinds as a whole (``a, b = …``), for :func:`seeded_reads`."""
    if not isinstance(statement, (ast.Assign, ast.AnnAssign)):
        return set()
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    return {
        n.id
        for t in targets
        for n in ([t] if isinstance(t, ast.Name) else getattr(t, "elts", []))
        if isinstance(n, ast.Name)
    }


def check_seed_free(cells, where: str = "notebook") -> None:
    """ValueError naming the first cell tagged ``seed-free`` that reads a name the seed reaches."""
    for index, (cell, reads) in enumerate(zip(cells, seeded_reads(cells))):
        if cell.get("cell_type") == "code" and SEED_FREE_TAG in _tags(cell) and reads:
            raise ValueError(
                f"{where}: cell {index} is tagged {SEED_FREE_TAG!r} but reads "
                f"{', '.join(sorted(reads))}, which the seed reaches; "
                f"untag it or compute those names without the seed"
            )


def row_names(source: str) -> set | None:
    """The claims-yaml names of the rows a cell states (``claims.statement("name", …)`` …); None when one
    of them is not a plain string (an f-string: only a run knows it)."""
    names = set()
    for node in ast.walk(ast.Module(body=_statements(source), type_ignores=[])):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _ROW_METHODS
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "claims"
        ):
            first = node.args[0] if node.args else None
            if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
                return None
            names.add(first.value)
    return names


def claims_only_cells(cells) -> tuple[list, set]:
    """The cells a reseeded run executes, and the claims-yaml names of the rows it leaves out.

    Kept: every cell up to the one that writes the claims (kept), except those tagged ``no-claims``, and
    except those tagged ``seed-free`` whose bound names no kept cell reads (:func:`needed_cells`) and whose
    row names are plain strings.  Checks the ``seed-free`` tags first (:func:`check_seed_free`).
    """
    check_seed_free(cells)
    cells = list(cells)
    last = max(
        (
            i
            for i, c in enumerate(cells)
            if c.get("cell_type") == "code" and _WRITES_CLAIMS.search(c["source"])
        ),
        default=len(cells),
    )
    cells = [c for c in cells[: last + 1] if NO_CLAIMS_TAG not in _tags(c)]

    def required(cell) -> bool:
        return (
            SEED_FREE_TAG not in _tags(cell)
            or bool(_WRITES_CLAIMS.search(cell["source"]))
            or row_names(cell["source"]) is None
        )

    kept = needed_cells(cells, required)
    dropped = [c for c in cells if not any(c is k for k in kept)]
    return kept, set().union(set(), *(row_names(c["source"]) for c in dropped))


def needed_cells(cells, required) -> list:
    """``cells`` without the code cells that are not ``required(cell)`` and bind no name that a later
    kept cell reads (a backward pass; markdown cells stay)."""
    needed, kept = set(), []
    for cell in reversed(cells):
        if cell.get("cell_type") == "code":
            loads, stores = _names(ast.Module(body=_statements(cell["source"]), type_ignores=[]))
            if not required(cell) and not stores & needed:
                continue
            needed |= loads
        kept.append(cell)
    return kept[::-1]


#: the metadata key of a cell of a combined reseeded notebook: the seed whose segment it belongs to
SEGMENT_KEY = "ldp_reseed"
#: the tag of the cells :func:`reseeds_notebook` adds (reset the namespace, hand the claims over)
HARNESS_TAG = "reseed-harness"


def reseeds_notebook(nb, seeds, parameters_source, staging, targets):
    """One notebook that runs the claims-only cells of ``nb`` once per seed, in one kernel.

    Each seed's segment: ``%reset -f``; the notebook's parameters cell and then ``parameters_source(seed)``
    (the profile's values with that seed); the claims-only cells (:func:`claims_only_cells`); a cell that
    moves what the segment wrote to ``staging`` (the kernel's ``LDP_FIGURES_DIR``) to ``targets[seed]``.
    Every cell carries its seed in ``metadata[SEGMENT_KEY]``.  Returns (notebook, left-out row names).
    """
    import nbformat

    cells, left_out = claims_only_cells(nb.cells)
    where = next(i for i, c in enumerate(cells) if "parameters" in _tags(c))
    combined = []
    for seed in seeds:
        injected = nbformat.v4.new_code_cell(
            parameters_source(seed), metadata={"tags": ["injected-parameters"]}
        )
        move = (
            "import os as _os, shutil as _shutil\n"
            f"_shutil.rmtree({str(targets[seed])!r}, ignore_errors=True)\n"
            f"_os.rename({str(staging)!r}, {str(targets[seed])!r})\n"
            f"_os.mkdir({str(staging)!r})"
        )
        segment = [
            nbformat.v4.new_code_cell("%reset -f", metadata={"tags": [HARNESS_TAG]}),
            *map(copy.deepcopy, cells[: where + 1]),
            injected,
            *map(copy.deepcopy, cells[where + 1 :]),
            nbformat.v4.new_code_cell(move, metadata={"tags": [HARNESS_TAG]}),
        ]
        for index, cell in enumerate(segment):
            cell.setdefault("metadata", {})[SEGMENT_KEY] = seed
            cell["id"] = f"seed{seed}-{index}"  # unique in the notebook
        combined += segment
    out = copy.copy(nb)
    out.cells = combined
    return out, left_out


def segment(nb, seed):
    """The cells of one seed's segment of an executed :func:`reseeds_notebook`, as a notebook."""
    out = copy.copy(nb)
    out.cells = [c for c in nb.cells if c.get("metadata", {}).get(SEGMENT_KEY) == seed]
    return out
