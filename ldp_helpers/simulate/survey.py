"""[grr_vs_oue]'s Dataset 1 as a clearly labelled STAND-IN: the thesis' tea survey (14 respondents × 5
brands, ratings 1..5) was never published, so these ratings are invented with its shape.

References
----------
[grr_vs_oue] §3.2; [grr_vs_oue] Fig. 3.1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ldp_helpers._validation import as_array, check_int
from ldp_helpers.simulate.datasets import CategoryCounts

# [grr_vs_oue] §3.2: brands 0..4
TEA_BRANDS = ("Oi Ocha", "Iyemon", "Ayataka", "Namacha", "Meidai-cha")
# STAND-IN, NOT THE THESIS DATA: ratings (1 = worst .. 5 = best) invented for this notebook so
# that Dataset 1 has the thesis' shape (14 respondents × 5 brands, 5 levels) and a skewed histogram.
_TEA_RATINGS = (
    (4, 5, 4, 3, 2),
    (5, 4, 4, 3, 1),
    (4, 4, 5, 4, 2),
    (3, 4, 4, 3, 3),
    (5, 5, 4, 4, 2),
    (4, 3, 4, 3, 1),
    (4, 4, 3, 5, 2),
    (5, 4, 5, 4, 3),
    (4, 5, 4, 4, 2),
    (3, 4, 4, 3, 1),
    (4, 4, 5, 4, 2),
    (5, 4, 4, 3, 4),
    (4, 5, 4, 4, 2),
    (4, 4, 3, 4, 1),
)


@dataclass(frozen=True, eq=False)
class SurveyStandIn:
    """A fabricated survey with the shape of the thesis' Dataset 1 (NOT the real responses).

    Attributes
    ----------
    ratings : numpy.ndarray of int64, shape (14, 5)
        ``ratings[r, b]``: respondent r's rating of brand b on the 5-level scale 1..5.
    brands : tuple of str
        Brand names, index b = the thesis' brand number.
    """

    ratings: np.ndarray
    brands: tuple[str, ...]
    levels: int = 5
    label: str = "Dataset 1 STAND-IN (fabricated: the thesis' tea survey is private)"

    def __post_init__(self):
        levels = check_int("levels", self.levels, low=2, high=100)
        ratings = as_array(
            "ratings", self.ratings, f"a non-empty 2-D integer array of ratings in [1, {levels}]"
        )
        if (
            ratings.ndim != 2
            or ratings.size == 0
            or ratings.dtype.kind not in "iu"
            or ratings.min() < 1
            or ratings.max() > levels
        ):
            raise ValueError(
                f"ratings must be a non-empty 2-D integer array of ratings in [1, {levels}]; got shape {ratings.shape}"
            )

    def rating_counts(self) -> CategoryCounts:
        """Histogram of all 14 × 5 ratings over the 5 levels (0-based category k = rating k + 1).

        This is the categorical attribute the notebook perturbs: n = 70 reports, d = 5.
        """
        counts = np.bincount(self.ratings.ravel() - 1, minlength=self.levels)
        return CategoryCounts(tuple(str(k) for k in range(1, self.levels + 1)), counts, self.label)

    def rating_counts_by_brand(self) -> np.ndarray:
        """``[b, k]``: how many respondents gave brand b the rating k + 1 (5 × 5)."""
        return np.stack([np.bincount(col - 1, minlength=self.levels) for col in self.ratings.T])


def tea_survey_standin() -> SurveyStandIn:
    """The clearly labelled stand-in for the thesis' Dataset 1 (14 respondents, 5 brands, 5 levels).

    References
    ----------
    [grr_vs_oue] §3.2; [grr_vs_oue] Fig. 3.1 (the real data were never published).
    """
    return SurveyStandIn(np.array(_TEA_RATINGS, dtype=np.int64), TEA_BRANDS)
