"""The API reference, generated from the docstrings by pdoc (`make apidocs`, docs/install.md).

    python .ci/apidocs.py docs/api      # writes the HTML; fails on what check() finds

Only the public modules are documented: the package (skipstone/__init__.py's __all__) and the
subpackages users import from. A build fails when a public name has no docstring or a
reference in a docstring (a backquoted ``skipstone.x.y`` or ``Name.member`` of the API) does not
resolve to a documented object; tests/test_api_reference.py runs the same checks.
"""
from __future__ import annotations

import dataclasses
import html
import os
import re
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

import pdoc  # noqa: E402  (the dev extra)
import pdoc.doc  # noqa: E402
import pdoc.render  # noqa: E402

PUBLIC_MODULES = ("skipstone", "skipstone.indexes", "skipstone.layout", "skipstone.table", "skipstone.jar")


def modules() -> dict[str, pdoc.doc.Module]:
    """pdoc's model of the public modules; an import failure (pdoc's warning) is an error."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return {name: pdoc.doc.Module.from_name(name) for name in PUBLIC_MODULES}


def public_members(module: pdoc.doc.Module) -> list[pdoc.doc.Doc]:
    """What the reference shows of ``module``: the names of its ``__all__`` and, for classes, their
    public methods and properties (inherited ones from the documented modules included)."""
    exported = getattr(module.obj, "__all__", None)
    found: list[pdoc.doc.Doc] = []
    for member in module.members.values():
        if (exported is not None and member.name not in exported) or member.name.startswith("_"):
            continue
        found.append(member)
        if isinstance(member, pdoc.doc.Class):
            found += [m for m in member.members.values()
                      if not m.name.startswith("_") and m.kind in ("function", "variable")
                      and (m.taken_from[0] or "").startswith("skipstone")]
    return found


def _is_field(module: pdoc.doc.Module, member: pdoc.doc.Doc) -> bool:
    """A field of a dataclass or NamedTuple: its class's docstring says what it holds."""
    owner = module.get(member.qualname.rpartition(".")[0])
    cls = getattr(owner, "obj", None)
    names = {f.name for f in dataclasses.fields(cls)} if dataclasses.is_dataclass(cls) else \
        set(getattr(cls, "_fields", ()))
    return member.name in names


def undocumented(docs: dict[str, pdoc.doc.Module]) -> list[str]:
    """Public names without a docstring."""
    return sorted({f"{member.modulename}.{member.qualname}"
                   for module in docs.values() for member in public_members(module)
                   if not member.docstring.strip() and not _is_field(module, member)})


def without_example(docs: dict[str, pdoc.doc.Module], module: str = "skipstone") -> list[str]:
    """Names in ``module``'s ``__all__`` whose docstring shows no example (``>>>``)."""
    return sorted(f"{module}.{m.qualname}" for m in public_members(docs[module])
                  if "." not in m.qualname and ">>>" not in m.docstring)


def render(docs: dict[str, pdoc.doc.Module], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    pdoc.render.configure(docformat="markdown", show_source=False, search=True)
    for module in docs.values():
        target = out / f"{module.fullname.replace('.', '/')}.html"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(pdoc.render.html_module(module, docs), encoding="utf-8")
    (out / "index.html").write_text(pdoc.render.html_index(docs) or "", encoding="utf-8")
    (out / "search.js").write_text(pdoc.render.search_index(docs) or "", encoding="utf-8")


_UNLINKED = re.compile(r"<code>([A-Za-z_][\w.]*\.[A-Za-z_]\w*)(\(\))?</code>")
_HREF = re.compile(r'href="([^"#:]+\.html)(?:#([^"]+))?"')


def broken_references(docs: dict[str, pdoc.doc.Module], out: Path) -> list[str]:
    """References pdoc left unresolved (a dotted name of the API shown as plain code) and links
    to a page or anchor that does not exist, as 'page: reference'."""
    top = set(getattr(docs["skipstone"].obj, "__all__", ())) | {"skipstone"}
    broken = []
    for page in sorted(out.rglob("*.html")):
        text = page.read_text(encoding="utf-8")
        where = page.relative_to(out).as_posix()
        for name, _ in _UNLINKED.findall(text):
            if name.split(".")[0] in top:
                broken.append(f"{where}: `{html.unescape(name)}` resolves to nothing documented")
        for target, anchor in _HREF.findall(text):
            linked = (page.parent / target).resolve()
            if not linked.exists():
                broken.append(f"{where}: link to missing page {target}")
            elif anchor and f'id="{anchor}"' not in linked.read_text(encoding="utf-8"):
                broken.append(f"{where}: link to missing anchor {target}#{anchor}")
    return sorted(set(broken))


def main(argv: list[str]) -> int:
    out = Path(argv[0] if argv else ROOT / "docs" / "api")
    docs = modules()
    render(docs, out)
    problems = [f"no docstring: {n}" for n in undocumented(docs)] + broken_references(docs, out)
    print(f"{out}: {len(list(out.rglob('*.html')))} pages for {', '.join(PUBLIC_MODULES)}")
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
