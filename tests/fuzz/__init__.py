"""Skipstone's randomized differential fuzzer (``make fuzz``; see docs/fuzzing.md).

One idea per module: ``datagen`` writes datasets, ``indexgen`` picks indexes, ``predicates``
writes predicates, ``oracle`` decides what is a wrong answer, ``runner`` drives it all,
``shrink`` and ``report`` turn a failure into a small reproducer.
"""
