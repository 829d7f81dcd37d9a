"""google/rappor interoperability on a fixture made by google's own Python client (tests/fixtures/google_rappor/,
PROVENANCE.md): its files read and written with bit order and indexing handled, its map equal to our MD5 design,
its reports following our model's law, decoded by ours against the truth and against google's R decoder
(stored output, same files), and a cohort without reports dropped as google's decoder drops it.

Tolerances against google's R decoder (stated in PROVENANCE.md): bit-count estimates and ε equal to 1e-12; the
detected sets' precision within 0.1 and recall within 0.05 of R's, Jaccard index ≥ 0.6; every candidate both
detect estimated within 3 combined standard errors of R's estimate.
"""

import csv
import os
from pathlib import Path

import numpy as np
import pytest

from ldp_helpers.estimation.rappor_decoding import decode_aggregate
from ldp_helpers.interop import google_rappor as gr
from ldp_helpers.mechanisms.rappor import Rappor, RapporParams, RapporReports
from ldp_helpers.mechanisms.rappor_client import md5_bloom_bits, md5_bloom_filters

FIX = Path(__file__).parents[1] / "fixtures" / "google_rappor"
EMPTY_COHORTS = [5, 40]  # counts_empty_cohorts.csv: counts.csv with these cohorts' rows zeroed


@pytest.fixture(scope="module")
def files():
    return gr.read_rappor_files(FIX / "counts.csv", FIX / "map.csv", FIX / "params.csv")


@pytest.fixture(scope="module")
def truth():
    return np.loadtxt(FIX / "truth_by_cohort.csv", delimiter=",", dtype=np.int64)


def _r_results(folder: str) -> dict:
    with open(FIX / folder / "results.csv", newline="") as fh:
        return {
            row["string"]: (float(row["estimate"]), float(row["std_error"]))
            for row in csv.DictReader(fh)
        }


def _detected(files, decoding, cohorts: int) -> dict:
    """Our detected candidates → (estimated reporting users, SE): β per cohort times the cohorts that reported."""
    return {
        files.candidates[w]: (b * cohorts, se * cohorts)
        for w, b, se, hit in zip(
            decoding.candidates, decoding.estimates, decoding.std_errors, decoding.detected
        )
        if hit
    }


def test_files_are_read_into_arrays(files, truth):
    """params, counts (m × (k + 1)) and map (M rows of h·m 1-based positions) become RapporParams and arrays."""
    assert files.params == RapporParams(k=16, h=2, m=64, f=0.5, p=0.5, q=0.75)
    assert files.bit_counts.shape == (64, 16) and files.cohort_sizes.shape == (64,)
    assert (
        files.cohort_sizes.tolist() == truth.sum(axis=1).tolist()
        and files.cohort_sizes.sum() == 10**6
    )
    assert (
        files.candidates[:2] == ("v1", "v2")
        and len(files.candidates) == 200
        and files.blooms.shape == (64, 200, 16)
    )
    assert isinstance(files.mechanism, Rappor) and files.mechanism.n_candidates == 200


def test_map_is_googles_md5_design(files):
    """Our MD5 hash (google's get_bloom_bits) of the candidate list gives google's map, bit for bit."""
    candidates = (FIX / "candidates.txt").read_text().split()
    assert np.array_equal(md5_bloom_filters(candidates, 64, 2, 16), files.blooms)
    with open(FIX / "map.csv", newline="") as fh:
        first = next(csv.reader(fh))
    assert [j * 16 + b + 1 for j in range(64) for b in md5_bloom_bits("v1", j, 2, 16)] == [
        int(x) for x in first[1:]
    ]


def test_reports_bit_order_and_googles_sum_bits(files):
    """A report's bit strings are most-significant-bit first: the bloom column is the map's filter of the true value,
    and our aggregate of the IRRs equals google's sum_bits output (sample_counts.csv)."""
    reports, clients = gr.read_reports(FIX / "sample_reports.csv", files.params)
    assert clients[:2] == ["c0", "c1"] and reports.bits.shape == (1000, 16)
    with open(FIX / "sample_input.csv", newline="") as fh:
        inputs = list(csv.DictReader(fh))
    with open(FIX / "sample_reports.csv", newline="") as fh:
        blooms = [row["bloom"] for row in csv.DictReader(fh)]
    index = {name: w for w, name in enumerate(files.candidates)}
    for row, bloom, cohort in zip(inputs, blooms, reports.cohorts):
        assert int(row["cohort"]) == cohort
        assert [int(c) for c in bloom[::-1]] == files.blooms[cohort, index[row["value"]]].tolist()
    bits, sizes = gr.read_counts(FIX / "sample_counts.csv", files.params)
    assert np.array_equal(files.mechanism.aggregate(reports), bits)
    assert np.array_equal(np.bincount(reports.cohorts, minlength=64), sizes)


def test_writers_round_trip(files, tmp_path):
    """What we write, google's tools and our readers read back; counts are written byte for byte as sum_bits does."""
    gr.write_counts(files.bit_counts, files.cohort_sizes, tmp_path / "counts.csv")
    assert (tmp_path / "counts.csv").read_bytes() == (FIX / "counts.csv").read_bytes()
    gr.write_params(files.params, tmp_path / "params.csv")
    assert gr.read_params(tmp_path / "params.csv") == files.params
    gr.write_map(list(files.candidates), files.blooms, tmp_path / "map.csv")
    again = gr.read_rappor_files(
        tmp_path / "counts.csv", tmp_path / "map.csv", tmp_path / "params.csv"
    )
    assert again.candidates == files.candidates and np.array_equal(again.blooms, files.blooms)
    reports, clients = gr.read_reports(FIX / "sample_reports.csv", files.params)
    gr.write_reports(reports, tmp_path / "reports.csv", clients=clients)
    back, back_clients = gr.read_reports(tmp_path / "reports.csv", files.params)
    assert back_clients == clients and np.array_equal(back.bits, reports.bits)
    assert np.array_equal(back.cohorts, reports.cohorts)


@pytest.mark.statistical
def test_googles_reports_follow_our_law(files, truth):
    """google's client and our model agree: (t̂ − t)/sd over the 1024 cells has mean 0 ± 5/√1024, every |z| < 5 and
    Σz² within 5 standard deviations (√2048) of 1024 (t from the true cohort × candidate counts and the map)."""
    mechanism = files.mechanism
    z = (
        mechanism.estimate(files.bit_counts, files.cohort_sizes) - mechanism.estimand(truth)
    ) / np.sqrt(mechanism.variance(truth))
    assert (
        abs(z.mean()) < 5 / 32
        and np.abs(z).max() < 5
        and abs((z**2).sum() - 1024) < 5 * np.sqrt(2048)
    )


def test_bit_estimates_and_epsilon_equal_googles_r(files):
    """Our t̂/N_j equal google's EstimateBloomCounts and our ε₁, ε∞ its e_1, e_inf (R output), to 1e-12."""
    ours = (
        files.mechanism.estimate(files.bit_counts, files.cohort_sizes) / files.cohort_sizes[:, None]
    )
    theirs = np.loadtxt(FIX / "r_decoder" / "bloom_estimates.csv", delimiter=",")
    assert np.max(np.abs(ours - theirs)) < 1e-12
    with open(FIX / "r_decoder" / "privacy.csv", newline="") as fh:
        privacy = {row["parameters"]: float(row["values"]) for row in csv.DictReader(fh)}
    assert abs(files.params.epsilon_one_report - privacy["e_1"]) < 1e-12
    assert abs(files.params.epsilon_permanent - privacy["e_inf"]) < 1e-12
    assert (
        abs(files.params.q_star - privacy["Effective q"]) < 1e-15
        and abs(files.params.p_star - privacy["Effective p"]) < 1e-15
    )


def _compare_with_r(files, truth, counts_file: str, r_folder: str, dropped=()):
    bits, sizes = gr.read_counts(FIX / counts_file, files.params)
    held = set(np.array(files.candidates)[truth.sum(axis=0) > 0])
    ours = _detected(files, decode_aggregate(files.mechanism, bits, sizes), 64 - len(dropped))
    r = _r_results(r_folder)
    precision = {
        who: len(set(found) & held) / len(found) for who, found in (("ours", ours), ("R", r))
    }
    recall = {who: len(set(found) & held) / len(held) for who, found in (("ours", ours), ("R", r))}
    assert (
        abs(precision["ours"] - precision["R"]) <= 0.1 and abs(recall["ours"] - recall["R"]) <= 0.05
    ), (precision, recall)
    both = set(ours) & set(r)
    assert len(both) / len(set(ours) | set(r)) >= 0.6
    for name in both:
        (a, se_a), (b, se_b) = ours[name], r[name]
        assert abs(a - b) <= 3 * np.hypot(se_a, se_b), (name, ours[name], r[name])
    return ours, precision, recall


def test_decoded_against_truth_and_googles_r(files, truth):
    """The fixture decodes: precision ≥ 0.8 and recall ≥ 0.3 (R: 0.88 and 0.38), the ten most frequent candidates
    found, every estimate within 4 SE of the true count; and within the stated tolerance of google's R decoder."""
    ours, precision, recall = _compare_with_r(files, truth, "counts.csv", "r_decoder")
    assert precision["ours"] >= 0.8 and recall["ours"] >= 0.3
    assert {f"v{i}" for i in range(1, 11)} <= set(ours)
    totals = dict(zip(files.candidates, truth.sum(axis=0)))
    assert all(abs(estimate - totals[name]) <= 4 * se for name, (estimate, se) in ours.items())


def test_empty_cohorts_are_dropped_like_googles_decoder(files, truth):
    """A cohort without reports: Rappor.estimate gives 0 there (exact), decode_aggregate leaves its rows out, as
    google's Decode does; the result matches R's on the same file (stated tolerance) and the truth of the cohorts
    that reported."""
    bits, sizes = gr.read_counts(FIX / "counts_empty_cohorts.csv", files.params)
    assert sizes[EMPTY_COHORTS].tolist() == [0, 0]
    estimates = files.mechanism.estimate(bits, sizes)
    assert not estimates[EMPTY_COHORTS].any()
    reporting = truth.copy()
    reporting[EMPTY_COHORTS] = 0
    ours, _, _ = _compare_with_r(
        files, reporting, "counts_empty_cohorts.csv", "r_decoder_empty_cohorts", EMPTY_COHORTS
    )
    totals = dict(zip(files.candidates, reporting.sum(axis=0)))
    assert all(abs(estimate - totals[name]) <= 4 * se for name, (estimate, se) in ours.items())
    with pytest.raises(ValueError, match="n \\(cohort sizes\\)"):
        decode_aggregate(files.mechanism, np.zeros_like(bits), np.zeros_like(sizes))


def test_our_own_hash_cannot_decode_googles_reports(files, truth):
    """Rappor.create draws another design ([rappor] Fig. 3's SHA-256): google's counts decode to noise with it."""
    ours = Rappor.create(files.params, 200, rng=np.random.default_rng(1))
    found = decode_aggregate(ours, files.bit_counts, files.cohort_sizes).detected_candidates
    held = np.flatnonzero(truth.sum(axis=0) > 0)
    assert (
        np.isin(found, held[:10]).sum() <= 2
    )  # the ten most frequent candidates are (almost) never found


def test_bad_files_are_refused(files, tmp_path):
    """Malformed files fail naming the parameter, the file and the line; a FIFO is refused; a byte-order mark is read."""
    bad = tmp_path / "params.csv"
    bad.write_text("k,h,m,p,q\n16,2,64,0.5,0.75\n")
    with pytest.raises(
        ValueError, match="path: .*params.csv: a params file is the header k,h,m,p,q,f"
    ):
        gr.read_params(bad)
    bad.write_text('\ufeff"k", "h", "m", "p", "q", "f"\n16, 2, 64, 0.5, 0.25, 0.5\n')
    with pytest.raises(ValueError, match=r"params.csv:2: .*q"):
        gr.read_params(bad)  # q must exceed p
    bad.write_text('\ufeff"k", "h", "m", "p", "q", "f"\n16, 2, 64, 0.5, 0.75, 0.5\n')
    assert gr.read_params(bad) == files.params
    counts = tmp_path / "counts.csv"
    counts.write_text(
        "".join("10," + ",".join(["11" if j == 3 else "1"] * 16) + "\n" for j in range(64))
    )
    with pytest.raises(ValueError, match=r"counts.csv:4: counts must lie in \[0, N_j = 10\]"):
        gr.read_counts(counts, files.params)
    lines = (FIX / "map.csv").read_text().splitlines()
    mapfile = tmp_path / "map.csv"
    mapfile.write_text("\n".join([lines[0].replace(",9,11,", ",9,30,", 1), *lines[1:]]))
    with pytest.raises(
        ValueError, match="candidate 'v1' sets 3 bits in cohort 1; each cohort must set 1 to h = 2"
    ):
        gr.read_map(mapfile, files.params)
    reports = tmp_path / "reports.csv"
    reports.write_text("client,cohort,bloom,prr,irr\nc0,3,,,10101\n")
    with pytest.raises(ValueError, match=r"reports.csv:2: irr must be params.k = 16 characters"):
        gr.read_reports(reports, files.params)
    fifo = tmp_path / "fifo.csv"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="path must be a regular file"):
        gr.read_params(fifo)


def test_writers_refuse_before_writing(tmp_path):
    """A writer checks everything first and replaces the file whole: a refused call leaves an existing file intact."""
    target = tmp_path / "reports.csv"
    target.write_text("keep me")
    with pytest.raises(TypeError, match="reports"):
        gr.write_reports((np.array([0]), np.ones((1, 8))), target)
    with pytest.raises(TypeError, match="reports"):
        gr.write_reports(RapporReports(np.array([0, 1]), np.ones((1, 8), int)), target)
    with pytest.raises(ValueError, match="path must be a .csv file path"):
        gr.write_counts(np.ones((2, 3), int), np.array([4, 4]), tmp_path / "counts.txt")
    with pytest.raises(TypeError, match="bit_counts"):
        gr.write_counts(np.full((2, 3), 5), np.array([4, 4]), target)
    assert target.read_text() == "keep me"


def test_numbers_beyond_int64_and_oversized_report_files_are_refused(files, tmp_path, monkeypatch):
    """Issue 39 item 4: a count or map position ≥ 2^63 raised a raw OverflowError naming no file or line; cohort
    sizes whose total wraps were taken; read_reports had no size ceiling (a 200 MB file: 97 s and 2.1 GB)."""
    counts = tmp_path / "counts.csv"
    counts.write_text(
        "".join(f"{2**63 if j == 2 else 10}," + ",".join(["1"] * 16) + "\n" for j in range(64))
    )
    with pytest.raises(
        ValueError, match=r"^path: .*counts.csv:3: a count must be an integer in \[-2\^63, 2\^63\)"
    ):
        gr.read_counts(counts, files.params)
    counts.write_text("".join(f"{2**62}," + ",".join(["1"] * 16) + "\n" for j in range(64)))
    with pytest.raises(
        ValueError,
        match=r"^path: .*counts.csv: the cohort sizes must be non-negative counts totalling "
        r"at most 2\^62",
    ):
        gr.read_counts(counts, files.params)
    lines = (FIX / "map.csv").read_text().splitlines()
    mapfile = tmp_path / "map.csv"
    first = lines[1].split(",")
    mapfile.write_text(
        "\n".join([lines[0], ",".join([first[0], str(2**64), *first[2:]]), *lines[2:]])
    )
    with pytest.raises(
        ValueError,
        match=r"^path: .*map.csv:2: a map position must be an integer in \[-2\^63, 2\^63\)",
    ):
        gr.read_map(mapfile, files.params)
    reports = tmp_path / "reports.csv"
    reports.write_text("client,cohort,bloom,prr,irr\n" + "c0,3,,,1010101010101010\n" * 200)
    monkeypatch.setattr(gr, "MAX_REPORTS_BYTES", 1000)
    with pytest.raises(
        ValueError, match=r"^path must be a file of at most 1000 B \(this one has 4.71 KiB\)"
    ):
        gr.read_reports(reports, files.params)


def test_a_replaced_file_keeps_its_mode(files, tmp_path):
    """Issue 39 item 13: files written atomically (mkstemp, then os.replace) came out 0600; a replaced file keeps its
    mode and a new one gets 0666 less the umask, for every atomic writer (google's files and the trousers counts)."""
    from ldp_helpers.simulate import datasets

    target = tmp_path / "params.csv"
    target.write_text("old")
    os.chmod(target, 0o644)
    gr.write_params(files.params, target)
    assert target.stat().st_mode & 0o777 == 0o644 and gr.read_params(target) == files.params
    umask = os.umask(0o022)
    try:
        gr.write_params(files.params, tmp_path / "new.csv")
        datasets.write_trouser_counts(datasets.load_trouser_counts(), tmp_path / "counts.csv")
    finally:
        os.umask(umask)
    assert (tmp_path / "new.csv").stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "counts.csv").stat().st_mode & 0o777 == 0o644
