"""Layout builders: each turns a data sample (and, for the workload-aware ones, queries) into a layout."""
