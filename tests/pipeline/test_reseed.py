"""The robustness pass that costs little (issue 40, item 2): cells tagged seed-free, one kernel per notebook.

The collection's notebooks run here in one shared kernel (issue 40, item 5: one kernel start and
one set of imports for all), each piece after a ``%reset -f`` with its parameters and left-out rows.
"""

import copy
import json

import nbformat
import papermill
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from ldp_tools.pipeline import paths, reproduce
from ldp_tools.pipeline._reseeds import (
    SEED_FREE_TAG,
    check_seed_free,
    claims_only_cells,
    needed_cells,
    reseeds_notebook,
    seeded_reads,
)
from ldp_tools.pipeline.claim_rows import Claim, _read_claims_csv
from ldp_tools.pipeline.claim_texts import _load_claim_texts
from ldp_tools.pipeline.decisions import close
from ldp_tools.pipeline.notebook import CLAIMS_ONLY_ENV, LEFT_OUT_ENV
from ldp_tools.pipeline.profiles import parameters_source
from ldp_tools.pipeline.stability import _with_stability

TAGGED = [s for s in paths._notebook_stems() if s[:2] in ("00", "01", "03", "04", "07", "08")]


def _notebook(cells):
    nb = new_notebook(cells=copy.deepcopy(cells))
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    return nb


def _cell(source, *tags):
    return new_code_cell(source, metadata={"tags": list(tags)})


def _row(id_, our=1.0):
    decision = str(close(our, 1.0, 1.0))
    return Claim(id_, "c", "s", "1", str(our), "reproduced", tolerance="1", decision=decision)


# ---- the declaration is checked statically ------------------------------------------------------


@pytest.mark.parametrize("stem", paths._notebook_stems())
def test_every_seed_free_tag_of_the_collection_is_checked(stem):
    """No cell tagged seed-free reads a name the seed reaches; the notebooks that have such cells leave
    some out of their reseeded runs, and never the cell that writes the claims."""
    nb = nbformat.read(paths.NOTEBOOKS_DIR / f"{stem}.ipynb", as_version=4)
    check_seed_free(nb.cells, stem)
    kept, left_out = claims_only_cells(nb.cells)
    assert any("claims.write_csv(" in c.source for c in kept) or stem.startswith("99_")
    tagged = [c for c in nb.cells if SEED_FREE_TAG in c.metadata.get("tags", [])]
    assert bool(tagged) == (stem in TAGGED)
    assert left_out <= set(_load_claim_texts(stem) or {})


def test_a_wrong_seed_free_tag_is_refused_with_the_cell_and_the_name():
    cells = [
        _cell("seed = 1", "parameters"),
        _cell("import numpy as np\nrng = np.random.default_rng(seed)\nd = 4"),
        _cell("x = rng.random()"),
        _cell("xs = [0]\nxs[0] = x"),  # a seeded value stored into xs: xs is reached too
        _cell("y = xs[0] + d", SEED_FREE_TAG),
    ]
    with pytest.raises(ValueError, match=r"nb: cell 4 is tagged 'seed-free' but reads xs"):
        check_seed_free(cells, "nb")
    cells[3] = _cell("xs = [0]")
    check_seed_free(cells, "nb")
    cells.insert(2, _cell("d = seed + 1"))  # d reached by the seed ...
    with pytest.raises(ValueError, match="reads d"):
        check_seed_free(cells)
    cells.insert(3, _cell("d = 4"))  # ... and rebound without it
    check_seed_free(cells)
    assert seeded_reads(cells)[4] == {"rng"}


def test_claims_only_cells_leave_out_what_no_claim_reads_and_what_the_seed_cannot_move():
    cells = [
        _cell("seed = 1", "parameters"),
        _cell("import numpy as np\nrng = np.random.default_rng(seed)"),
        _cell("grid = [1, 2]\nclaims.statement('exact_a', 1)", SEED_FREE_TAG),  # read below: kept
        _cell("table = 3\nclaims.check('exact_b', 2)", SEED_FREE_TAG),  # read by no one: left out
        _cell("for k in 'cd':\n    claims.check(f'exact_{k}', 2)", SEED_FREE_TAG),  # names unknown
        _cell("fig = grid", "no-claims"),
        _cell("z = rng.random(len(grid))\nclaims.statement('moves', z)"),
        _cell("claims_csv = claims.write_csv(write=True)", SEED_FREE_TAG),
        _cell("print(table)"),  # after the claims are written: left out
    ]
    kept, left_out = claims_only_cells(cells)
    assert [cells.index(c) for c in kept] == [0, 1, 2, 4, 6, 7] and left_out == {"exact_b"}


# ---- the rows of the cells left out -------------------------------------------------------------


def test_rows_left_out_are_deterministic_and_a_moving_tagged_row_fails_the_pass():
    rows = [_row("01-01"), _row("01-02"), _row("01-03", 0.5)]
    runs = {7: [_row("01-01"), _row("01-03", 0.7)], 8: [_row("01-01"), _row("01-03", 0.4)]}
    out = _with_stability(rows, runs, seed_free={"01-02"})
    assert [r.stability for r in out] == ["deterministic", "deterministic", "stable over 3 seeds"]
    with pytest.raises(ValueError, match=r"reseeded\[7\] must list the same claims.*01-02"):
        _with_stability(rows, runs)  # a missing row that no seed-free cell states
    with pytest.raises(ValueError, match="row 01-03 is stated in a cell tagged seed-free"):
        _with_stability(rows, runs, seed_free={"01-02", "01-03"})


# ---- one kernel for the seeds of a notebook -----------------------------------------------------


def _execute_pieces(pieces, tmp_path, no_reset=False):
    """Run pieces one after the other in ONE kernel; per piece, {seed: claims rows}.

    A piece is ``(name, nb, seeds, parameters, left_out)``: ``nb``'s claims-only cells under each
    seed (:func:`reseeds_notebook`), after a harness cell that sets the rows it may leave out (read
    when the notebook starts) and freezes what the kernel holds (``gc.freeze``: the collections of
    the ``%reset -f`` cells then skip the modules imported so far, 0.5 s each in this kernel).  A
    failing cell is reported with the name of its piece."""
    staging = tmp_path / "staging"
    staging.mkdir(parents=True)
    cells, targets = [], []
    for index, (_, nb, seeds, parameters, left_out) in enumerate(pieces):
        targets.append({s: tmp_path / f"piece{index}-seed{s}" for s in seeds})
        combined, _ = reseeds_notebook(
            nb,
            seeds,
            lambda s: parameters_source({**(parameters or {}), "seed": s}),
            staging,
            targets[-1],
        )
        rows = json.dumps(sorted(left_out))
        env = new_code_cell(
            f"__import__('os').environ[{LEFT_OUT_ENV!r}] = {rows!r}\n"
            "__import__('gc').freeze()  # kept out of the collections of the %reset cells"
        )
        for cell in (env, *combined.cells):
            cell.metadata["piece"] = index
            cell["id"] = f"piece{index}-{cell.get('id') or 'env'}"
            cells.append(cell)
    if no_reset:
        cells = [c for c in cells if c.source != "%reset -f"]
    source, out = tmp_path / "in.ipynb", tmp_path / "out.ipynb"
    nbformat.write(_notebook(cells), source)
    env = {"LDP_FIGURES_DIR": str(staging), CLAIMS_ONLY_ENV: "1"}
    with pytest.MonkeyPatch.context() as mp:
        for name, value in env.items():
            mp.setenv(name, value)
        try:
            papermill.execute_notebook(
                str(source),
                str(out),
                cwd=str(paths.NOTEBOOKS_DIR),
                progress_bar=False,
                request_save_on_cell_execute=False,  # one write at the end (3 MB, 441 cells)
                config=reproduce._kernel_config(),
            )
        except papermill.PapermillExecutionError as error:
            failed = [
                pieces[c.metadata["piece"]][0]
                for c in nbformat.read(out, as_version=4).cells
                if c.metadata.get("papermill", {}).get("exception")
            ]
            raise AssertionError(f"{failed}: a cell failed (in the shared kernel)") from error
    return [{s: _read_claims_csv(next(t[s].glob("*/claims.csv"))) for s in t} for t in targets]


def _execute(nb, seeds, tmp_path, parameters=None, left_out=(), no_reset=False):
    """Run ``nb``'s claims-only cells under ``seeds`` in a kernel of their own; {seed: rows}."""
    return _execute_pieces([("nb", nb, seeds, parameters, left_out)], tmp_path, no_reset)[0]


LEAKY = [
    _cell("seed = 1\nsave_figures = True", "parameters"),
    _cell(
        "import numpy as np\nfrom ldp_tools.pipeline.claims import ClaimsTable, close\n"
        "claims = ClaimsTable('00_tutorial', texts=None)\nrng = np.random.default_rng(seed)"
    ),
    # state a reseed could inherit from the one before it in the same kernel
    _cell(
        "runs = globals().get('runs', 0) + 1\nseen = globals().get('seen', [])\nseen.append(seed)"
    ),
    _cell(
        "claims.check('first run of the kernel', '§1', 1, runs)\n"
        "claims.check('draw', '§2', 0.5, float(rng.random()), atol=1)\n"
        "claims.check('seeds seen', '§3', 1, len(seen))"
    ),
    _cell(
        "import os, pathlib\nout = pathlib.Path(os.environ['LDP_FIGURES_DIR']) / '00_tutorial'\n"
        "out.mkdir(parents=True, exist_ok=True)\n(out / 'claims.csv').write_text(claims.to_csv())\n"
        "claims.write_csv"
    ),
]


def test_seeds_in_one_kernel_equal_separate_runs(tmp_path):
    """Each seed starts from its parameters in an empty namespace: the rows of the second and third seed
    in one kernel are those of a kernel of their own, and a notebook that counts its runs sees one."""
    nb = _notebook(LEAKY)
    together = _execute(nb, [3, 4, 5], tmp_path / "one")
    alone = _execute(nb, [5], tmp_path / "alone")
    assert together[5] == alone[5]
    assert len({r[1].our_value for r in together.values()}) == 3  # the draws did change
    assert all(r[0].verdict == r[2].verdict == "reproduced" for r in together.values())


def test_a_leak_between_seeds_would_be_seen(tmp_path):
    """The comparison above fails when the namespace is not emptied between seeds (no %reset cell)."""
    nb = _notebook(LEAKY)
    rows = _execute(nb, [3, 4], tmp_path, no_reset=True)
    assert rows[3][0].verdict == "reproduced" and rows[4][0].verdict == "differs"


# ---- the collection's notebooks at their defaults -----------------------------------------------


def _seed_free_part(nb):
    """The cells tagged seed-free, with what they read (the parameters, the imports) and the claims writer."""
    nb = copy.deepcopy(nb)

    def required(cell):
        tags = cell.metadata.get("tags", [])
        return SEED_FREE_TAG in tags or "parameters" in tags or "claims.write_csv(" in cell.source

    kept, _ = claims_only_cells(nb.cells)  # up to the claims writer, no-claims cells out
    nb.cells = needed_cells(
        [
            c
            for c in nb.cells
            if any(c is k for k in kept) or SEED_FREE_TAG in c.metadata.get("tags", [])
        ],
        required,
    )
    for cell in nb.cells:
        tags = cell.metadata.get("tags", [])
        if SEED_FREE_TAG in tags:
            tags.remove(SEED_FREE_TAG)  # all of them run
    return nb


#: smaller sizes where the defaults' exact computations take long (the test is about the seed, not the sizes)
SMALLER = {"08_shuffle_model": {"n_curve": [300, 1000], "n_numerical": 300, "n_mse": 200}}
#: the notebook whose claims-only cells also run at its defaults (seed-free cells left out)
ONE_KERNEL = "08_shuffle_model"


def _read(stem):
    return nbformat.read(paths.NOTEBOOKS_DIR / f"{stem}.ipynb", as_version=4)


@pytest.fixture(scope="module")
def collection_runs(tmp_path_factory):
    """{"<stem> <part>": {seed: claims rows}} from ONE kernel (one kernel start, the imports once):
    each tagged notebook's seed-free part (:func:`_seed_free_part`) under seeds 1 and 2, then
    ONE_KERNEL's claims-only cells under seeds 1 and 2 at its defaults."""
    pieces = [
        (
            f"{stem} seed-free",
            _seed_free_part(_read(stem)),
            [1, 2],
            {"save_figures": True, **SMALLER.get(stem, {})},
            _load_claim_texts(stem),
        )
        for stem in TAGGED
    ]
    nb = _read(ONE_KERNEL)
    left_out = claims_only_cells(nb.cells)[1]
    pieces.append((f"{ONE_KERNEL} claims-only", nb, [1, 2], {"save_figures": True}, left_out))
    runs = _execute_pieces(pieces, tmp_path_factory.mktemp("collection"))
    return {piece[0]: run for piece, run in zip(pieces, runs)}


@pytest.mark.parametrize("stem", TAGGED)
def test_rows_of_seed_free_cells_do_not_move_under_a_reseed(stem, collection_runs):
    """Every row a reseeded run leaves out (cells tagged seed-free) is the same under two seeds when
    those cells do run (the notebook's defaults, seeds 1 and 2 one after the other in a kernel); a
    tagged cell that moved with the seed would fail here."""
    nb = _read(stem)
    texts = _load_claim_texts(stem)
    ids = {texts[name].id for name in claims_only_cells(nb.cells)[1]}
    rows = collection_runs[f"{stem} seed-free"]
    first, second = ({r.id: r for r in run if r.id in ids} for run in rows.values())
    assert first == second and set(first) == ids


def test_a_notebook_of_the_collection_in_one_kernel_equals_separate_runs(tmp_path, collection_runs):
    """08 at its defaults: seeds 1 and 2 in one kernel (cells tagged seed-free left out; the kernel
    ran the other notebooks' seed-free parts before them) give the rows of one kernel per seed, and
    the rows left out are absent."""
    nb = _read(ONE_KERNEL)
    left_out = claims_only_cells(nb.cells)[1]
    together = collection_runs[f"{ONE_KERNEL} claims-only"]
    alone = _execute(nb, [2], tmp_path, {"save_figures": True}, left_out)  # a kernel of its own
    assert together[2] == alone[2] and together[1] != together[2]
    assert len(together[2]) == len(_load_claim_texts(ONE_KERNEL)) - len(left_out)


def test_the_longest_jobs_start_first():
    """Each notebook is two jobs (its run, its reseeded runs), ordered by the last run's times, the
    never-timed ones first."""
    timings = {
        "wall_seconds": 9.0,
        "jobs": 2,
        "notebooks": {
            stem: {
                "seconds": run,
                "reseeds": {"101": a, "202": b},
                "peer_seconds": 0.0,
                "cpu_seconds": run,
                "reseeds_cpu_seconds": a + b,
            }
            for stem, run, a, b in [
                ("00_tutorial", 5.0, 1.0, 1.0),
                ("06_privacy_audit", 60.0, 50.0, 40.0),
            ]
        },
    }
    jobs = reproduce._jobs(
        ["00_tutorial", "06_privacy_audit", "08_shuffle_model", "99_reproduction_report"],
        {
            "00_tutorial": [101],
            "06_privacy_audit": [101],
            "08_shuffle_model": [101],
            "99_reproduction_report": [],
        },
        reproduce._estimates(timings),
    )
    assert jobs == [
        ("08_shuffle_model", "run"),
        ("08_shuffle_model", "reseeds"),
        ("99_reproduction_report", "run"),
        ("06_privacy_audit", "reseeds"),
        ("06_privacy_audit", "run"),
        ("00_tutorial", "run"),
        ("00_tutorial", "reseeds"),
    ]
