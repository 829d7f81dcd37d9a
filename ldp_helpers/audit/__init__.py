"""Empirical privacy auditing, chunked sweeps (joblib / Dask) and the longitudinal averaging attack."""
