"""The layout simulator: builds layouts in NumPy, runs a workload, counts rows read and
rewritten (docs/layout.md, "Simulator"). Not part of the product package: it imports
``skipstone.layout``, never the other way round."""
