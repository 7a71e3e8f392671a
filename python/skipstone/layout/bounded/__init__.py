"""Bounded rewrite units and the rent-or-buy trigger: ``BoundedRewrite`` and the pieces it is made of."""
