"""Empirical privacy auditing, chunked sweeps (joblib / Dask) and the longitudinal averaging attack."""

__all__ = ["auditor", "clients", "events", "longitudinal", "shuffle"]
