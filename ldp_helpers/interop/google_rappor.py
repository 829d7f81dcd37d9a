"""google/rappor's files, read and written: parameters, per-cohort counts, the candidate map, per-report output.

google/rappor (the reference implementation of [erlingsson2014], Apache-2.0) numbers a report's bits from the
least significant: bit i of a report is 2**i of its integer, and **our bit i is google's bit i**.  Its files:

* **params** (``k,h,m,p,q,f``, one row): :func:`read_params` / :func:`write_params`.  The letters are
  RAPPOR's (q > p), as :class:`~ldp_helpers.mechanisms.rappor.RapporParams` keeps them.
* **counts** (``sum_bits.py``; m rows ``N_j, c_j0, …, c_j,k−1``): the cohort sizes and the reported bit counts,
  column 1 + i holding bit i: :func:`read_counts` / :func:`write_counts`.
* **map** (``hash_candidates.py``; one row per candidate: the string, then h 1-based positions ``j·k + i + 1`` per
  cohort j): the hash design, as Bloom filters (m, M, k): :func:`read_map` / :func:`write_map`.  Its MD5 hash is
  :func:`~ldp_helpers.mechanisms.rappor_client.md5_bloom_filters`; a map of other candidates is
  ``write_map(candidates, md5_bloom_filters(candidates, m, h, k), path)``.
* **reports** (``rappor_sim.py``: ``client,cohort,bloom,prr,irr``, each bit string written most significant bit
  first, so character c is bit k − 1 − c): :func:`read_reports` / :func:`write_reports`.

Only the map's design decodes google's reports (``Rappor.create`` draws another hash).  A cohort without reports
is dropped by :func:`~ldp_helpers.estimation.rappor_decoding.decode_aggregate`, as google's decoder drops it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ldp_helpers._validation import (
    check_allocation,
    check_binary_array,
    check_instance,
    check_int_array,
    check_total,
    fail_type,
)
from ldp_helpers.interop._files import (
    check_path,
    csv_rows,
    parse_int,
    reading,
    write_csv_atomically,
)
from ldp_helpers.mechanisms.rappor import Rappor, RapporParams, RapporReports

PARAM_NAMES = ("k", "h", "m", "p", "q", "f")
#: the largest per-report file :func:`read_reports` reads (about a million reports of google's rappor_sim.py)
MAX_REPORTS_BYTES = 64 * 1024**2


def read_params(path) -> RapporParams:
    """google/rappor's params file: the header ``k,h,m,p,q,f`` (quotes and spaces allowed), then one row."""
    return _read("path", path, _parse_params)


def _read(name: str, path, parse, *args):
    """``parse(name, path, *args)`` of a file given as the parameter ``name``: its content errors name it."""
    with reading(name):
        return parse(name, path, *args)


def _parse_params(name: str, path) -> RapporParams:
    rows = list(csv_rows(name, path))
    header = tuple(field.strip().strip('"') for field in rows[0][1]) if rows else ()
    if header != PARAM_NAMES or len(rows) != 2 or len(rows[1][1]) != 6:
        raise ValueError(
            f"{path}: a params file is the header k,h,m,p,q,f and one row of 6 values; got "
            f"{[row for _, row in rows][:3]}"
        )
    number, values = rows[1]
    try:
        k, h, m = (
            parse_int(path, number, text, name) for text, name in zip(values[:3], PARAM_NAMES)
        )
        p, q, f = (float(text) for text in values[3:])
        return RapporParams(k=k, h=h, m=m, f=f, p=p, q=q)
    except ValueError as exc:
        raise ValueError(f"{path}:{number}: {exc}") from exc


def write_params(params: RapporParams, path) -> None:
    """Write ``params`` as google/rappor's params file (``k,h,m,p,q,f``)."""
    par = check_instance("params", params, RapporParams)
    write_csv_atomically(
        "path", path, [PARAM_NAMES, (par.k, par.h, par.m, repr(par.p), repr(par.q), repr(par.f))]
    )


def read_counts(path, params: RapporParams) -> tuple[np.ndarray, np.ndarray]:
    """google/rappor's counts file: ``(bit_counts (m, k), cohort_sizes (m,))``, int64; column 1 + i is bit i."""
    return _read("path", path, _parse_counts, check_instance("params", params, RapporParams))


def _parse_counts(name: str, path, par: RapporParams) -> tuple[np.ndarray, np.ndarray]:
    rows = [
        (number, [parse_int(path, number, text, "a count") for text in fields])
        for number, fields in list(csv_rows(name, path))
    ]
    if len(rows) != par.m or any(len(row) != par.k + 1 for _, row in rows):
        raise ValueError(
            f"{path}: a counts file has params.m = {par.m} rows of params.k + 1 = {par.k + 1} integers "
            f"(N_j, then one count per bit); got {len(rows)} rows of {sorted({len(row) for _, row in rows})} "
            "fields (another file, or other params?)"
        )
    counts = np.array([row for _, row in rows], dtype=np.int64)
    try:
        check_total("the cohort sizes", np.maximum(counts[:, 0], 0))  # N = Σ N_j must not wrap
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
    for (number, _), (size, *bits) in zip(rows, counts.tolist()):
        if size < 0 or min(bits) < 0 or max(bits) > size:
            raise ValueError(
                f"{path}:{number}: counts must lie in [0, N_j = {size}] (N_j ≥ 0); got {bits}"
            )
    return counts[:, 1:].copy(), counts[:, 0].copy()


def write_counts(bit_counts, cohort_sizes, path) -> None:
    """Write bit counts (m, k) and cohort sizes (m,) as google/rappor's counts file (``N_j`` first)."""
    sizes = check_int_array("cohort_sizes", cohort_sizes, low=0, ndim=1)
    check_total("cohort_sizes", sizes)  # N = Σ N_j must not wrap
    counts = check_int_array("bit_counts", bit_counts, low=0, ndim=2)
    if counts.shape[0] != sizes.size or (counts > sizes[:, None]).any():
        fail_type(
            "bit_counts", counts, f"an (m={sizes.size}, k) array with counts ≤ their cohort's size"
        )
    write_csv_atomically("path", path, np.column_stack([sizes, counts]).tolist())


def read_map(path, params: RapporParams) -> tuple[list[str], np.ndarray]:
    """google/rappor's map file: the candidates and their Bloom filters (m, M, k).

    Each row is a string and h·m 1-based positions ``j·k + i + 1`` (bit i of cohort j).  A repeated string keeps
    its first row, as google's decoder does; every cohort of a row must set 1 to h bits.
    """
    return _read("path", path, _parse_map, check_instance("params", params, RapporParams))


def _parse_map(parameter: str, path, par: RapporParams) -> tuple[list[str], np.ndarray]:
    names, positions, seen = [], [], set()
    for number, (name, *cells) in csv_rows(parameter, path):
        if len(cells) != par.h * par.m:
            raise ValueError(
                f"{path}:{number}: a map row is the string and params.h · params.m = {par.h * par.m} "
                f"positions; got {len(cells)} (another file, or other params?)"
            )
        row = np.array(
            [parse_int(path, number, cell, "a map position") for cell in cells], dtype=np.int64
        )
        if row.min() < 1 or row.max() > par.m * par.k:
            raise ValueError(
                f"{path}:{number}: map positions must lie in [1, params.m · params.k = {par.m * par.k}] "
                f"(1-based cohort·k + bit + 1); got {row.min()}..{row.max()}"
            )
        if name not in seen:
            seen.add(name)
            names.append(name)
            positions.append(row - 1)
        check_allocation(
            parameter,
            len(names),
            len(names) * par.m * par.k,
            itemsize=9,
            what="Bloom filters of the map",
        )
    if not names:
        raise ValueError(f"{path}: the map file lists no candidate")
    blooms = np.zeros((par.m, len(names), par.k), dtype=np.int8)
    for w, row in enumerate(positions):
        blooms[row // par.k, w, row % par.k] = 1
    ones = blooms.sum(axis=2)
    if ones.min() < 1 or ones.max() > par.h:
        cohort, w = np.argwhere((ones < 1) | (ones > par.h))[0]
        raise ValueError(
            f"{path}: candidate {names[w]!r} sets {ones[cohort, w]} bits in cohort {cohort}; each cohort "
            f"must set 1 to h = {par.h} (its positions belong to other cohorts?)"
        )
    return names, blooms


def write_map(candidates, blooms, path) -> None:
    """Write the design as google/rappor's map file: per cohort, the h positions of the set bits (1-based
    ``j·k + i + 1``); a filter with fewer than h ones repeats its last bit, as a colliding hash does in google's."""
    blooms = check_binary_array("blooms", blooms, ndim=3, what="(m × M × k)")
    if (
        not isinstance(candidates, (list, tuple))
        or len(candidates) != blooms.shape[1]
        or not all(isinstance(c, str) for c in candidates)
    ):
        fail_type(
            "candidates",
            candidates,
            f"a list of {blooms.shape[1]} strings, one per column of blooms",
        )
    ones = blooms.sum(axis=2)
    if ones.min() < 1:
        fail_type("blooms", blooms, "Bloom filters with at least one bit set in every cohort")
    m, _, k = blooms.shape
    h = int(ones.max())
    rows = []
    for w, name in enumerate(candidates):
        cells = []
        for j in range(m):
            bits = np.flatnonzero(blooms[j, w]).tolist()
            cells += [j * k + b + 1 for b in bits + bits[-1:] * (h - len(bits))]
        rows.append([name, *cells])
    write_csv_atomically("path", path, rows)


def read_reports(path, params: RapporParams) -> tuple[RapporReports, list[str]]:
    """google/rappor's per-report output: the reports (cohort, IRR bits with bit i in column i) and client ids.

    The header must name ``cohort`` and ``irr`` (``client``, ``bloom``, ``prr`` optional); each bit string has k
    characters, most significant bit first.
    """
    return _read("path", path, _parse_reports, check_instance("params", params, RapporParams))


def _parse_reports(name: str, path, par: RapporParams) -> tuple[RapporReports, list[str]]:
    rows = csv_rows(name, path, max_bytes=MAX_REPORTS_BYTES)
    header = [field.strip() for field in next(rows, (0, []))[1]]
    if "cohort" not in header or "irr" not in header:
        raise ValueError(
            f"{path}: the header must name the columns 'cohort' and 'irr' (google's rappor_sim.py "
            f"writes client,cohort,bloom,prr,irr); got {header}"
        )
    columns = [
        header.index(name) if name in header else None for name in ("client", "cohort", "irr")
    ]
    clients, cohorts, bits = [], [], []
    for number, fields in rows:
        if len(fields) != len(header):
            raise ValueError(f"{path}:{number}: expected {len(header)} fields; got {len(fields)}")
        irr = fields[columns[2]].strip()
        if len(irr) != par.k or set(irr) - {"0", "1"}:
            raise ValueError(
                f"{path}:{number}: irr must be params.k = {par.k} characters 0/1; got {irr!r}"
            )
        cohort = parse_int(path, number, fields[columns[1]], "cohort")
        if not 0 <= cohort < par.m:
            raise ValueError(
                f"{path}:{number}: cohort must lie in [0, params.m = {par.m}); got {cohort}"
            )
        clients.append(fields[columns[0]] if columns[0] is not None else str(len(clients)))
        cohorts.append(cohort)
        bits.append(irr)
    text = np.frombuffer("".join(bits).encode("ascii"), dtype=np.uint8).reshape(len(bits), par.k)
    array = (text[:, ::-1] - ord("0")).astype(np.int8)  # character c is bit k − 1 − c
    return RapporReports(np.array(cohorts, dtype=np.int64), array), clients


def write_reports(reports: RapporReports, path, *, clients=None) -> None:
    """Write reports as google/rappor's per-report CSV (``client,cohort,bloom,prr,irr``; bloom and prr, which a
    server never sees, left empty; bit strings most significant bit first).  ``clients`` default to c0, c1, …"""
    cohorts, bits = check_instance("reports", reports, RapporReports)
    cohorts = check_int_array("reports.cohorts", cohorts, low=0, ndim=1)
    bits = check_binary_array("reports.bits", bits, ndim=2)
    if bits.shape[0] != cohorts.size:
        fail_type("reports", reports, "reports whose cohorts and bits have one row per user")
    clients = [f"c{i}" for i in range(cohorts.size)] if clients is None else clients
    if not isinstance(clients, (list, tuple)) or len(clients) != cohorts.size:
        fail_type("clients", clients, f"None or a list of {cohorts.size} client ids")
    text = ["".join(map(str, row[::-1])) for row in bits.tolist()]
    write_csv_atomically(
        "path",
        path,
        [
            ("client", "cohort", "bloom", "prr", "irr"),
            *zip(
                map(str, clients), cohorts.tolist(), [""] * cohorts.size, [""] * cohorts.size, text
            ),
        ],
    )


@dataclass(frozen=True, eq=False)
class RapporFiles:
    """What google/rappor's counts, map and params files hold, as arrays (:func:`read_rappor_files`)."""

    params: RapporParams
    candidates: tuple  # the map's strings, column w of blooms
    blooms: np.ndarray  # (m, M, k): the map's design
    bit_counts: np.ndarray  # (m, k): c_ji, reports of cohort j with bit i set
    cohort_sizes: np.ndarray  # (m,): N_j (0 for a cohort without reports)

    @cached_property
    def mechanism(self) -> Rappor:
        """The :class:`Rappor` on the map's design (``Rappor.from_design``): its ``estimate`` and the decoders."""
        return Rappor.from_design(self.params, self.blooms)


def read_rappor_files(counts_file, map_file, params) -> RapporFiles:
    """Read google/rappor's counts and map files with its params (a params file, or a :class:`RapporParams`).

    References
    ----------
    [erlingsson2014] §4 (google/rappor's ``bin/decode_dist.R`` reads these three files).
    """
    if not isinstance(params, RapporParams):
        params = _read("params", check_path("params", params), _parse_params)
    bit_counts, sizes = _read("counts_file", counts_file, _parse_counts, params)
    names, blooms = _read("map_file", map_file, _parse_map, params)
    return RapporFiles(params, tuple(names), blooms, bit_counts, sizes)
