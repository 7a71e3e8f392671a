"""Amoeba's adaptive repartitioning: query window, cost model, plans and the optimizer."""
