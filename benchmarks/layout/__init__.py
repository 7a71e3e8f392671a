"""The simulator's paper runs and their results, and the layout algorithms' speed (docs/layout.md)."""
