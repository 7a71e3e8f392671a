"""No two Scala packages of the jar depend on each other, directly or round a longer loop
(issue 22).

Every ``.scala`` file under ``jvm/src/main/scala`` and the per-Spark folders
``jvm/src/main/spark-4.*`` is read as text: its ``package`` clause names the package it belongs
to, and the ``io.skipstone`` packages it uses are those it names, with comments and string
literals left out:

* imports, ``import io.skipstone.x.Y``, ``import io.skipstone.x._`` and selectors
  ``import io.skipstone.{x, Y}`` / ``import io.skipstone.x.{A, B => C}``;
* fully qualified references in code, ``io.skipstone.x.Y``;
* a subpackage named from where it is visible without an import, ``x.Y`` inside the package
  that encloses ``x`` (or after ``import io.skipstone._`` / ``import io.skipstone.x``).

A path names the longest package that some file declares (``io.skipstone.clauses.rules.Rule``
is in ``clauses.rules``, ``io.skipstone.Skipstone`` in the root package). References inside a
file's own package need no import and are no edge.

The cycles not untangled yet are listed in ``KNOWN_CYCLE_EDGES`` by one edge that closes each;
the list may only shrink. An entry whose edge is gone, or no longer closes a loop, fails the
test until it is removed; any other cycle fails it, printed as ``a -> b -> a`` with the file
and line behind each edge.

The remaining entries, and what would remove them:

* ``sql -> sql.commands``: ``SkipstoneSqlParserBase`` turns each parsed statement into its
  command (and wraps Spark's ``EXPLAIN`` in ``ExplainSkippingCommand``), while the commands
  build on ``sql``'s targets, statements and errors. Moving that statement-to-command mapping
  into ``sql.commands`` and having the root's ``SkipstoneExtension`` hand it to the parser
  would remove it; that changes the constructor of the per-Spark ``SkipstoneSqlParser``
  (``jvm/src/main/spark-4.*``), of which one build compiles only one, so it is left for a
  change that can build against every supported Spark.
"""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAIN = ROOT / "jvm" / "src" / "main"
BASE = "io.skipstone"
ROOT_PACKAGE = "<root>"

# (package, package it depends on) -> why the edge is still there. One edge per cycle not
# untangled yet; see the module docstring for what would remove each.
KNOWN_CYCLE_EDGES: dict[tuple[str, str], str] = {
    ("sql", "sql.commands"): "SkipstoneSqlParser builds the commands",
}


# Bridges into Spark's own packages (to reach what Spark keeps `private[sql]`) live outside
# io.skipstone; they must use nothing of ours, so they can be in no cycle of our packages.
SPARK_BRIDGES = MAIN / "scala" / "org" / "apache" / "spark"


def scala_files() -> list[Path]:
    files = sorted(p for p in (MAIN / "scala").rglob("*.scala") if SPARK_BRIDGES not in p.parents)
    for folder in sorted(MAIN.glob("spark-4.*")):
        files += sorted(folder.rglob("*.scala"))
    return files


def test_bridges_into_sparks_packages_use_nothing_of_ours():
    bridges = sorted(SPARK_BRIDGES.rglob("*.scala"))
    assert bridges, "no bridge found: update SPARK_BRIDGES"
    for path in bridges:
        code = strip_comments_and_strings(path.read_text(encoding="utf-8"))
        assert "io.skipstone" not in code, f"{path.relative_to(ROOT)} refers to io.skipstone"


_CHAR_LITERAL = re.compile(r"'(?:\\.|[^\\'\n])'")


def strip_comments_and_strings(src: str) -> str:
    """The source with comments and string/char literals blanked out, newlines kept (so that
    line numbers stay right). Block comments nest, as in Scala."""
    out: list[str] = []
    i, n = 0, len(src)

    def blank(text: str) -> str:
        return re.sub(r"[^\n]", " ", text)

    while i < n:
        c = src[i]
        if src.startswith("//", i):
            end = src.find("\n", i)
            end = n if end < 0 else end
            out.append(blank(src[i:end]))
            i = end
        elif src.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if src.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif src.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(blank(src[i:j]))
            i = j
        elif src.startswith('"""', i):
            end = src.find('"""', i + 3)
            end = n if end < 0 else end + 3
            while end < n and src[end] == '"':  # """ ... """" ends at the last quote
                end += 1
            out.append(blank(src[i:end]))
            i = end
        elif c == '"':
            j = i + 1
            while j < n and src[j] not in '"\n':
                j += 2 if src[j] == "\\" else 1
            out.append(blank(src[i:j + 1]))
            i = j + 1
        elif c == "'" and (m := _CHAR_LITERAL.match(src, i)):
            out.append(blank(m.group(0)))
            i = m.end()
        else:
            out.append(c)
            i += 1
    return "".join(out)


_PACKAGE = re.compile(r"^[ \t]*package\b[ \t]*([\w.]*)", re.M)
_QUALIFIED = re.compile(r"(?<![\w.])(?:_root_\.)?io\.skipstone((?:\.\w+)*)(\.\{[^}]*\})?")
_IMPORT = re.compile(r"^[ \t]*import[ \t]+(.*)$", re.M)


def short(package: str) -> str:
    """'io.skipstone.clauses.rules' -> 'clauses.rules'; 'io.skipstone' -> '<root>'."""
    return package[len(BASE) + 1:] if package != BASE else ROOT_PACKAGE


def full(package: str) -> str:
    return BASE if package == ROOT_PACKAGE else f"{BASE}.{package}"


def package_of(path: Path, code: str) -> str:
    clauses = _PACKAGE.findall(code)
    assert len(clauses) == 1 and (clauses[0] == BASE or clauses[0].startswith(BASE + ".")), (
        f"{path.relative_to(ROOT)}: expected one `package io.skipstone...` clause, found "
        f"{clauses} (chained clauses and package objects make names visible without an import, "
        "which this test does not follow)")
    return clauses[0]


def parsed_files() -> list[tuple[Path, str, str]]:
    """(path, full package name, code without comments and strings) of every file."""
    parsed = []
    for path in scala_files():
        code = strip_comments_and_strings(path.read_text(encoding="utf-8"))
        parsed.append((path, package_of(path, code), code))
    return parsed


def resolve(path: str, packages: set[str]) -> str | None:
    """The longest declared package that `path` (dotted, from io.skipstone) lies in."""
    parts = path.split(".")
    for k in range(len(parts), 0, -1):
        candidate = ".".join(parts[:k])
        if candidate in packages:
            return candidate
    return None


def children(package: str, packages: set[str]) -> dict[str, str]:
    """Simple name -> full name of the packages directly inside `package`."""
    return {p[len(package) + 1:]: p for p in packages
            if p.startswith(package + ".") and "." not in p[len(package) + 1:]}


def file_edges(code: str, package: str, packages: set[str]) -> list[tuple[str, int]]:
    """(package used, line) for every io.skipstone package the file names."""
    found: list[tuple[str, int]] = []

    def line_of(pos: int) -> int:
        return code.count("\n", 0, pos) + 1

    # Fully qualified paths, in imports and in code; selectors name one path each. An import
    # of a package, or of everything in one, makes package names usable without the prefix.
    visible = dict(children(package, packages))
    for m in _QUALIFIED.finditer(code):
        base, selectors = BASE + m.group(1), []
        if m.group(2):
            selectors = [s.split("=>")[0].strip() for s in m.group(2)[2:-1].split(",")]
        elif base.endswith("._"):
            base, selectors = base[:-2], ["_"]
        targets = [base if s == "_" else f"{base}.{s}" for s in selectors] or [base]
        line_start = code.rfind("\n", 0, m.start()) + 1
        in_import = re.match(r"[ \t]*import\b", code[line_start:]) is not None
        for target in targets:
            resolved = resolve(target, packages)
            if resolved is None:
                continue
            found.append((resolved, line_of(m.start())))
            if in_import and target == resolved and target != BASE and (
                    target != base or not selectors):
                visible[target.rsplit(".", 1)[1]] = target
        if in_import and "_" in selectors and base in packages:
            visible.update(children(base, packages))
    # Simple package names used as a prefix: `rules.Rule` in clauses, `clauses.X` in the root.
    for name, target in visible.items():
        for m in re.finditer(rf"(?<![\w.]){re.escape(name)}\.(?:[a-z]\w*\.)*[A-Z]", code):
            line_start = code.rfind("\n", 0, m.start()) + 1
            if re.match(r"[ \t]*package\b", code[line_start:]):
                continue
            prefix = m.group(0)[:-2]  # `clauses.rules` of `clauses.rules.R`
            inner = resolve(target + prefix[len(name):], packages) or target
            found.append((inner, line_of(m.start())))
    return [(p, line) for p, line in found if p != package]


def edges() -> dict[tuple[str, str], list[str]]:
    """(package, package it uses) -> where, as 'path:line', packages shortened."""
    files = parsed_files()
    packages = {package for _, package, _ in files}
    graph: dict[tuple[str, str], list[str]] = {}
    for path, package, code in files:
        for target, line in file_edges(code, package, packages):
            where = graph.setdefault((short(package), short(target)), [])
            if f"{path.relative_to(ROOT)}:{line}" not in where:
                where.append(f"{path.relative_to(ROOT)}:{line}")
    return graph


def cycle(selected) -> list[str] | None:
    """Some loop a -> b -> ... -> a through the edges, or None."""
    out: dict[str, list[str]] = {}
    for a, b in selected:
        out.setdefault(a, []).append(b)
    for targets in out.values():
        targets.sort()
    state: dict[str, int] = {}  # 1 on the stack, 2 done

    def visit(node: str, stack: list[str]) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in out.get(node, []):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (loop := visit(nxt, stack)):
                return loop
        stack.pop()
        state[node] = 2
        return None

    for start in sorted(out):
        if start not in state and (loop := visit(start, [])):
            return loop
    return None


def reaches(selected, start: str, goal: str) -> bool:
    out: dict[str, set[str]] = {}
    for a, b in selected:
        out.setdefault(a, set()).add(b)
    seen, todo = {start}, [start]
    while todo:
        for nxt in out.get(todo.pop(), ()):
            if nxt == goal:
                return True
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return start == goal


def test_the_scala_packages_have_no_cycle_but_the_known_ones():
    graph = edges()
    remaining = [e for e in graph if e not in KNOWN_CYCLE_EDGES]
    loop = cycle(remaining)
    if loop is not None:
        where = "\n".join(f"  {a} -> {b}: {', '.join(graph[(a, b)][:3])}"
                          for a, b in zip(loop, loop[1:]))
        raise AssertionError(f"Scala packages depend on each other: {' -> '.join(loop)}\n{where}")


def test_every_known_cycle_edge_still_closes_a_cycle():
    """Untangled cycles come off the list, so that they cannot come back unnoticed."""
    graph = edges()
    stale = [f"{a} -> {b}" for a, b in KNOWN_CYCLE_EDGES
             if (a, b) not in graph or not reaches(graph, b, a)]
    assert stale == [], f"no longer closes a cycle, remove from KNOWN_CYCLE_EDGES: {stale}"


def test_the_parser_reads_imports_qualified_names_and_skips_comments_and_strings():
    packages = {BASE, f"{BASE}.a", f"{BASE}.a.sub", f"{BASE}.b", f"{BASE}.c", f"{BASE}.d",
                f"{BASE}.e", f"{BASE}.f", f"{BASE}.g"}
    src = "\n".join([
        "package io.skipstone.a",
        "import io.skipstone.b.{X, Y => Z}",
        "import io.skipstone.{Skipstone, c}",
        "// import io.skipstone.d.X",
        '/* io.skipstone.d.X /* nested */ io.skipstone.d.Y */ val s = "io.skipstone.d.Z"',
        "val q = '\"'; val t = io.skipstone.e.Thing(1)",
        "val u = c.Other; val v = sub.Inner; val w = _root_.io.skipstone.f.W",
        "import io.skipstone.a.Own",
        'val x = """io.skipstone.g.T"""',
    ])
    code = strip_comments_and_strings(src)
    assert code.count("\n") == src.count("\n")
    found = sorted({short(p) for p, _ in file_edges(code, package_of(Path(ROOT / "x"), code),
                                                     packages)})
    assert found == [ROOT_PACKAGE, "a.sub", "b", "c", "e", "f"]
    assert cycle([("a", "b"), ("b", "c"), ("c", "a")]) == ["a", "b", "c", "a"]
    assert cycle([("a", "b"), ("b", "c")]) is None
