"""Apple's sequence fragment puzzle: records, the exact ε of the whole report (ε_f + ε_w), the search on planted
words (sampler and per-user clients), and the worst-case error."""

import copy

import numpy as np
import pytest

from ldp_helpers.protocols.heavy_hitters import recall
from ldp_helpers.protocols.sfp import SequenceFragmentPuzzle
from ldp_helpers.protocols.sketch_heavy_hitters import linf_error, sfp


def make(epsilon=1.5, share=0.5, seed=3):
    return SequenceFragmentPuzzle.create(
        epsilon, 4, 2, 2, 4, puzzle_bits=1, fragment_share=share, rng=np.random.default_rng(seed)
    )


def test_records_hold_the_puzzle_hash_and_the_fragment():
    """r_l(w) = h(w)·2^fb + w[l], w[0] the most significant fragment."""
    mechanism = SequenceFragmentPuzzle.create(1.0, 12, 4, 2, 4, rng=np.random.default_rng(1))
    words = np.array([0xABC, 0x123])
    records = mechanism.records(words)
    puzzle = mechanism.puzzle_hash(words)
    np.testing.assert_array_equal(records & 15, [[0xA, 0x1], [0xB, 0x2], [0xC, 0x3]])
    np.testing.assert_array_equal(records >> 4, np.broadcast_to(puzzle, (3, 2)))


@pytest.mark.parametrize("share", [0.5, 0.25, 0.9])
@pytest.mark.parametrize("epsilon", [0.6, 2.0])
def test_whole_report_loses_the_sum_of_both_budgets(epsilon, share):
    """(l, HCMS_{ε_f}(record), HCMS_{ε_w}(word)): the table's loss is ε_f + ε_w = ε exactly."""
    mechanism = make(epsilon, share)
    assert mechanism.fragment_sketch.epsilon == pytest.approx(share * epsilon)
    assert mechanism.word_sketch.epsilon == pytest.approx((1 - share) * epsilon)
    table = mechanism.output_table()
    np.testing.assert_allclose(table.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert mechanism.tight and mechanism.privacy_loss() == pytest.approx(epsilon, rel=1e-9)


def test_estimand_lists_words_then_records_per_position():
    mechanism = make()
    truth = np.zeros(16, dtype=np.int64)
    truth[[5, 9]] = [3, 4]
    estimand = mechanism.estimand(truth)
    assert estimand.shape == (16 + 2 * 8,)
    records = mechanism.records(np.array([5, 9]))
    for l in range(2):
        block = estimand[16 + 8 * l : 16 + 8 * (l + 1)]
        assert block.sum() == 7 and block[records[l, 0]] >= 3 and block[records[l, 1]] >= 4


@pytest.mark.statistical
@pytest.mark.parametrize("per_user", [False, True])
def test_planted_words_are_found(per_user):
    """Four planted 12-bit words holding 80 % of 40,000 users are found at ε = 8, by the sampler and the clients;
    their estimates lie within 5 standard deviations of the word sketch's exact mean (its hashes' collisions
    included), from the exact variance."""
    rng = np.random.default_rng(7 + per_user)
    heavy = np.array([0x0F1, 0xA5A, 0x777, 0x3C2])
    values = np.r_[np.repeat(heavy, [12000, 9000, 6000, 5000]), rng.integers(0, 2**12, 8000)]
    truth = np.bincount(values, minlength=2**12)
    word = SequenceFragmentPuzzle.create(  # sfp's first draw from rng: its hashes
        8.0, 12, 4, 8, 256, puzzle_bits=8, rng=copy.deepcopy(rng)
    ).word_sketch
    found = sfp(values, 12, 8.0, 4, sketch_rows=8, sketch_width=256, rng=rng, per_user=per_user)
    assert recall(found.values, truth, 4) == 1.0
    mean, sd = word.expected_estimate(truth), np.sqrt(word.variance(truth))
    gap = np.abs(found.estimates - mean[found.values]) / sd[found.values]
    assert np.all(gap < 5), gap


def test_linf_error():
    """A missed heavy value costs its count; a returned value its |error|; a value held by nobody its estimate."""
    values = np.repeat([1, 2, 3], [50, 30, 20])
    assert linf_error(np.array([1, 2]), np.array([45.0, 33.0]), values) == pytest.approx(20 / 100)
    assert linf_error(np.array([1, 2, 3]), np.array([45.0, 33.0, 20.0]), values) == pytest.approx(
        5 / 100
    )
    assert linf_error(
        np.array([1, 2, 3, 7]), np.array([50.0, 30.0, 20.0, 9.0]), values
    ) == pytest.approx(9 / 100)
    assert linf_error(np.array([], dtype=int), np.array([]), values) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="estimates"):
        linf_error(np.array([1, 1]), np.array([1.0, 2.0]), values)


def test_linf_error_of_counted_values():
    """The distinct values with their counts give the users' values' error exactly; unsorted values or counts
    of another length are refused."""
    values = np.random.default_rng(6).zipf(1.5, size=5000) % 300
    held, counts = np.unique(values, return_counts=True)
    for found, estimates in [
        (np.array([1, 2, 5, 299]), np.array([900.0, 410.0, 160.0, 3.0])),
        (np.array([], dtype=int), np.array([])),
    ]:
        assert linf_error(found, estimates, held, counts=counts) == linf_error(
            found, estimates, values
        )
    with pytest.raises(ValueError, match="values"):
        linf_error(np.array([1]), np.array([1.0]), held[::-1], counts=counts)
    with pytest.raises(ValueError, match="counts"):
        linf_error(np.array([1]), np.array([1.0]), held, counts=counts[1:])
    with pytest.raises(ValueError, match="counts"):
        linf_error(np.array([1]), np.array([1.0]), held, counts=counts * 0)


def test_the_sampler_hashes_few_records_and_tabulates_many_alike():
    """The sampler takes each record's hashes from the fragment sketch's table when the records
    outnumber its domain, else hashes just those records: the same hashes (so the same sketches),
    and a large record domain with few users never builds its table."""
    small = make()
    fragment = small.fragment_sketch
    records = np.arange(fragment.d)
    np.testing.assert_array_equal(fragment.hash_table()[:, records], fragment._hashes_of(records))
    large = SequenceFragmentPuzzle.create(
        1.0, 16, 8, 2, 4, puzzle_bits=16, rng=np.random.default_rng(2)
    )
    truth = np.zeros(2**16, dtype=np.int64)
    truth[[7, 300, 4242]] = 5
    sketches = large.sample_aggregate(truth, rng=np.random.default_rng(0))
    assert sketches.shape == (3, 2, 4)
    assert "_hash_table" not in vars(large.fragment_sketch)  # 2 × 2^24 hashes never computed


def test_an_epsilon_beyond_either_parts_sketch_is_refused_naming_the_epsilon_passed():
    """Each part's HCMS takes its share of ε up to 36: SFP refuses the ε the caller passed (its HCMS's own
    check named the part's share of it, "got 36.5" for ε = 73)."""
    with pytest.raises(ValueError, match=r"epsilon must be in \(0, 72\); got 73.0"):
        SequenceFragmentPuzzle.create(73.0, 16, 4, 4, 16, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"epsilon must be in \(0, 40\); got 40.0"):
        SequenceFragmentPuzzle.create(
            40.0, 16, 4, 4, 16, fragment_share=0.9, rng=np.random.default_rng(0)
        )


@pytest.mark.parametrize("share", [5e-324, 1e-13, 1 - 2**-53])
def test_a_share_that_starves_a_part_is_refused_naming_fragment_share(share):
    """Each part's HCMS needs ε ≥ 1e-12: a share outside [1e-12/ε, 1 − 1e-12/ε] is refused naming
    fragment_share and that range (before: the part's HCMS blamed ``epsilon`` with the part's budget)."""
    with pytest.raises(
        ValueError, match=r"^fragment_share must be in about \[6\.67e-13, 1 − 6\.67e-13\]"
    ):
        SequenceFragmentPuzzle.create(
            1.5, 4, 2, 2, 4, puzzle_bits=1, fragment_share=share, rng=np.random.default_rng(0)
        )


def test_a_tiny_share_that_leaves_each_part_its_minimum_is_accepted():
    sfp_ = SequenceFragmentPuzzle.create(
        1.5, 4, 2, 2, 4, puzzle_bits=1, fragment_share=1e-12, rng=np.random.default_rng(0)
    )
    assert sfp_.fragment_sketch.epsilon == 1.5e-12
