"""Layout columns chosen by the workload: ``choose_columns`` and the ``AutoColumns`` policy."""
