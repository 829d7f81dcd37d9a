"""The playground's phase map, precomputed: the oracle of lowest exact risk at each (d, ε) of its grid.

Written by ``field_oracles.best_oracle_map(KEYS, PHASE_EPSILONS, PHASE_DS)`` (the science notebook 07 maps);
``tests/explore/test_explore.py`` recomputes it and fails if it differs.  Row i is d = PHASE_DS[i], column j
ε = PHASE_EPSILONS[j]; a character is the index into KEYS ("." where every oracle refuses).
Every row is a run of SS ("7", KEYS[7]) then GRR ("0"): SEVENS holds each row's count of "7" (a recomputed map
of another form is written out row by row again).
"""

KEYS = ("grr", "sue", "oue", "she", "the", "blh", "olh", "ss", "hr", "hm", "adp")
SEVENS = "0 0 24 29 31 33 34 36 37 38 39 39 40 41 41 42 42 43 43 44 44 45 45 45 46 46 46 47 47 47 48 48 48 49 49 49 49 50"
ROWS = tuple("7" * int(a) + "0" * (60 - int(a)) for a in SEVENS.split())
