"""Benchmarks of managed tables on Spark, in wall-clock time (docs/tables.md, docs/layout.md)."""
