"""Layout specs by name: a managed table stores its spec as JSON (``layout.spec``, with a
``kind``), and ``layout_spec_from_json`` turns it back into the spec through the classes
registered with ``@layout_spec``. A new layout is one decorated class; no list to edit.

>>> from skipstone.layout import Amoeba
>>> layout_spec_from_json(Amoeba(block_rows=500, columns=["a"]).to_json())
Amoeba(block_bytes=134217728, block_rows=500, columns=('a',), seed=0, correlations=True)
>>> layout_spec_from_json('{"kind": "Amoeba", "block_rows": 500}').block_rows
500
"""

from __future__ import annotations

import json
from typing import Any, Mapping, TypeVar

from skipstone.layout.protocols import LayoutSpec

S = TypeVar("S", bound=type)

# kind (the class name) -> class. Written at import time of the modules that define specs.
_SPECS: dict[str, type] = {}


def layout_spec(cls: S) -> S:
    """Register a layout spec class under its class name, the ``kind`` its ``to_json`` writes.

    Registering the same class again (a re-imported module, a notebook cell run twice)
    replaces it; another class under a taken name is refused.

    >>> from dataclasses import dataclass
    >>> from skipstone.layout import KdTree, layout_spec, layout_spec_from_json
    >>> @layout_spec
    ... @dataclass(frozen=True)
    ... class WideKdTree(KdTree):
    ...     pass
    >>> layout_spec_from_json({"kind": "WideKdTree", "block_rows": 500})
    WideKdTree(block_bytes=134217728, block_rows=500, columns=None)
    """
    missing = [m for m in ("build", "to_json", "from_json") if not callable(getattr(cls, m, None))]
    if missing:
        raise TypeError(f"layout spec {cls.__qualname__} lacks {', '.join(missing)}: "
                        "subclass skipstone.layout.SizedSpec or define them")
    kind = cls.__name__
    known = _SPECS.get(kind)
    if known is not None and _qualified(known) != _qualified(cls):
        raise ValueError(f"layout spec kind {kind!r} is already {_qualified(known)}; "
                         f"give {_qualified(cls)} another class name")
    _SPECS[kind] = cls
    return cls


def layout_spec_from_json(data: Mapping[str, Any] | str) -> LayoutSpec:
    """The spec a table stored (``layout.spec``), as a dict or its JSON text.

    >>> from skipstone.layout import layout_spec_from_json
    >>> layout_spec_from_json('{"kind": "KdTree", "block_rows": 1000, "columns": ["a"]}')
    KdTree(block_bytes=134217728, block_rows=1000, columns=('a',))
    """
    document = json.loads(data) if isinstance(data, str) else data
    kind = document.get("kind") if isinstance(document, Mapping) else None
    cls = _SPECS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ValueError(f"unknown layout spec kind {kind!r} (registered: {', '.join(sorted(_SPECS))}); "
                         "import the module that defines it (a class decorated with @layout_spec) first")
    return cls.from_json(document)  # type: ignore[attr-defined]


def registered_layout_specs() -> dict[str, type]:
    """Every registered spec class by kind."""
    return dict(_SPECS)


def _qualified(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"
