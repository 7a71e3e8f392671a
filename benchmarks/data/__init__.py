"""Benchmark datasets, generated offline from PyPI packages (see each module)."""
