"""ldp_helpers: mechanisms, exact simulators and bounds for the ldp-notebooks collection.

The package is a set of small, pure modules; import what you need from them, e.g.

>>> from ldp_helpers.mechanisms.randomized_response import BinaryRR
>>> BinaryRR.from_epsilon(1.0).p_keep          # doctest: +ELLIPSIS
0.7310...

Every stochastic function takes a keyword-only ``rng: numpy.random.Generator``;
nothing in the package touches a global random state.
"""

__version__ = "0.1.0"
