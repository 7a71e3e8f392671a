"""The examples of a section of a document in docs/, run as doctests: the ```python blocks of
the section under a heading, up to the next heading of level two."""
from __future__ import annotations

import doctest
import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"


def python_blocks(doc: str, heading: str) -> str:
    """The ```python blocks of the section of docs/``doc`` whose heading starts with ``heading``."""
    text = (DOCS / doc).read_text()
    if heading not in text:
        raise ValueError(f"docs/{doc} has no section {heading!r}")
    section = text.split(heading, 1)[1].split("\n## ", 1)[0]
    return "\n".join(re.findall(r"```python\n(.*?)```", section, re.S))


def run_doc_example(doc: str, heading: str) -> doctest.TestResults:
    """Runs the examples of that section as printed (``...`` matching anything), with a
    report of each failure; returns how many failed of how many were tried."""
    name = f"docs/{doc}: {heading.lstrip('#').strip()}"
    test = doctest.DocTestParser().get_doctest(python_blocks(doc, heading), {}, name, str(DOCS / doc), 0)
    return doctest.DocTestRunner(optionflags=doctest.ELLIPSIS).run(test)
