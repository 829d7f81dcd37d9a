"""Whole-report tables of the level-group heavy-hitter protocols, for the exact ε-LDP tests
(tests/protocols/test_heavy_hitters.py, tests/protocols/test_expander_sketch.py).

A user of PEM, TreeHist, Bitstogram or PrivateExpanderSketch reports ONCE: her group j and her report y
of that group's oracle, so her whole report (j, y) has law share_j · P_j[x, y].

References
----------
[tutorial] Eq. (2) (ε-LDP of the whole report); [wang2021pem] (one report per user).
"""

import numpy as np


def level_report_table(tables, shares) -> np.ndarray:
    """Whole-report table of a level-group protocol: report (group j, y) w.p. share_j · P_j[x, y].

    ``tables[j]`` is group j's table over the inputs (rows aligned: the same value x in every table).
    """
    tables = [np.asarray(t, dtype=float) for t in tables]
    assert len(tables) == len(shares) and np.isclose(np.sum(shares), 1.0)
    assert len({t.shape[0] for t in tables}) == 1, "tables over different inputs"
    return np.concatenate([s * t for s, t in zip(shares, tables)], axis=1)
