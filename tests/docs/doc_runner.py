"""Running the fenced examples of README.md and docs/*.md as a reader would, page by page.

A page's blocks run in order in one namespace (one notebook per page) from a fresh directory:
``python`` blocks are executed (as doctests when they hold ``>>>`` prompts, checked against the
output they print), ``sql`` blocks go statement by statement through ``spark.sql`` (a block whose
first line is ``-- error: <text>`` must fail with that text), and shell blocks run their
``skipstone ...`` lines through the command line in the same session and their ``python ...``
lines as processes. The absolute paths the pages use (``/data/...``, ``/tmp/skipstone-...``) are
read as paths under the page's directory.

A block that cannot run here says so in the page, on the line before its fence::

    <!-- not-run: needs a cluster -->

Fences without a language, ``text`` and ``json`` show output or file contents; they are not
examples. An output fence right after a ``sql`` block whose first line is a row of column names
is checked against the columns of the block's last statement; one that shows a plan (EXPLAIN) must
hold the plan's ``Skipstone`` lines, byte counts and expression ids aside.
"""
from __future__ import annotations

import doctest
import io
import os
import re
import shlex
import subprocess
import sys
import time
from contextlib import redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

# The pages' UDFs and per-file roles run in Python workers, which need this interpreter's packages
# (as docs/use-cases.md tells readers); read when the session starts, after collection.
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

ROOT = Path(__file__).resolve().parents[2]
PAGES = ["README.md"] + sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md"))

RUNNABLE = {"python", "sql", "bash", "sh", "shell", "scala"}
NOT_EXAMPLES = {"", "text", "json", "console-output"}
SHELL = {"bash", "sh", "shell"}

_FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<info>[^`\n]*)$")
_NOT_RUN = re.compile(r"<!--\s*not-run:\s*(?P<reason>.+?)\s*-->")
# /data/... and /tmp/skipstone-... as they stand in code or in file:/... (not in hdfs:///data/...)
_PATHS = re.compile(r"(?<![\w/.])/(?=data/|tmp/skipstone)")


@dataclass(frozen=True)
class Block:
    page: str
    line: int  # of the opening fence, 1-based
    language: str
    code: str
    not_run: str | None = None  # the reason given in the page
    output: str | None = None  # the unlabelled fence right after it, if any

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def blocks(page: str) -> list[Block]:
    """The fenced blocks of ``page`` (relative to the repository) that are examples, in order."""
    lines = (ROOT / page).read_text(encoding="utf-8").splitlines()
    found: list[tuple[int, str, str, str | None]] = []  # line, language, code, not-run reason
    outputs: dict[int, str] = {}  # index in found -> the output fence following it
    i = 0
    last_text = ""  # the last non-blank line outside fences
    following: int | None = None  # the example an output fence would belong to
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if not match:
            if lines[i].strip():
                last_text, following = lines[i], None
            i += 1
            continue
        indent, language = match["indent"], match["info"].strip().split(" ")[0].lower()
        start, body = i + 1, []
        i += 1
        while i < len(lines) and lines[i].strip() != "```":
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i].lstrip())
            i += 1
        i += 1
        code = "\n".join(body) + "\n"
        if language in RUNNABLE:
            reason = _NOT_RUN.search(last_text)
            found.append((start, language, code, reason["reason"] if reason else None))
            following = len(found) - 1
        elif language == "" and following is not None:
            outputs[following] = code
            following = None
        elif language not in NOT_EXAMPLES:
            raise ValueError(f"{page}:{start}: a ```{language} block is neither an example the doc test runs nor "
                             f"output; add the language to tests/docs/doc_runner.py")
        last_text = ""
    return [Block(page, line, language, code, reason, outputs.get(n))
            for n, (line, language, code, reason) in enumerate(found)]


def local_paths(code: str, workdir: str) -> str:
    """``code`` with the page's absolute example paths moved under ``workdir``."""
    return _PATHS.sub(workdir.rstrip("/") + "/", code)


def sql_statements(code: str) -> list[str]:
    return [s.strip() for s in re.split(r";[ \t]*(?:--[^\n]*)?\n", code) if s.strip().strip(";").strip()]


def shell_commands(code: str) -> list[str]:
    """The commands of a shell block: continuation lines joined, comments and blank lines dropped."""
    joined = re.sub(r"\\\n\s*", " ", code)
    return [line.strip() for line in joined.splitlines() if line.strip() and not line.strip().startswith("#")]


@dataclass
class PageRun:
    """The state of one page's run: its directory, its namespace, and what ran."""
    page: str
    workdir: str
    spark: Any
    cli: Callable[..., Any]
    namespace: dict[str, Any] = field(default_factory=dict)
    ran: list[Block] = field(default_factory=list)
    skipped: list[Block] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)  # per block run, by where

    def __post_init__(self) -> None:
        self.namespace.setdefault("spark", self.spark)
        self.namespace.setdefault("__name__", "__main__")

    def run(self, block: Block) -> None:
        if block.not_run is not None:
            self.skipped.append(block)
            return
        code = local_paths(block.code, self.workdir)
        start = time.perf_counter()
        try:
            self._run(block, code)
        finally:
            self.seconds[block.where] = time.perf_counter() - start
        self.ran.append(block)

    def _run(self, block: Block, code: str) -> None:
        if block.language == "python":
            self._python(block, code)
        elif block.language == "sql":
            self._sql(block, code)
        elif block.language in SHELL:
            for command in shell_commands(code):
                self._shell(block, command)
        else:
            raise AssertionError(f"{block.where}: a ```{block.language} block cannot run in the doc test; "
                                 f"mark it <!-- not-run: reason --> in the page")

    def _python(self, block: Block, code: str) -> None:
        if re.search(r"^\s*>>> ", code, re.M):
            test = doctest.DocTestParser().get_doctest(code, self.namespace, block.where, block.page, block.line)
            out = io.StringIO()
            result = doctest.DocTestRunner(
                optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE).run(test, out=out.write, clear_globs=False)
            assert result.failed == 0, f"{block.where}: {result.failed} of {result.attempted} examples failed\n{out.getvalue()}"
            return
        try:
            with redirect_stdout(io.StringIO()):
                exec(compile(code, block.where, "exec", dont_inherit=True), self.namespace)  # not this module's __future__
        except Exception as e:
            raise AssertionError(f"{block.where}: the example fails: {type(e).__name__}: {e}") from e

    def _sql(self, block: Block, code: str) -> None:
        expected_error = re.match(r"-- error: (.*)\n", code)
        if expected_error:  # the marker is no part of the statement, whose positions the message gives
            code = code[expected_error.end():]
        result = None
        for statement in sql_statements(code):
            try:
                result = self.spark.sql(statement)
                result.collect()
            except Exception as e:
                if expected_error and expected_error[1] in str(e):
                    return
                raise AssertionError(f"{block.where}: {statement!r} fails: {e}") from e
        assert not expected_error, f"{block.where}: expected the error {expected_error[1]!r}, but it ran"
        if result is not None and block.output:
            self._output(block, result)

    def _output(self, block: Block, result: Any) -> None:
        """A row of column names must be the statement's columns; a plan shown (EXPLAIN) must
        hold the page's ``Skipstone`` lines, byte counts and expression ids aside."""
        shown = local_paths(block.output or "", self.workdir)
        header = shown.splitlines()[0].strip()
        if re.fullmatch(r"[a-z_]+( +[a-z_]+)+", header):
            assert header.split() == result.columns, (
                f"{block.where}: the output shown has columns {header.split()}, the statement returns {result.columns}")
        elif header.startswith("== "):
            def plain(text: str) -> str:
                return re.sub(r"\(\d+ of \d+ bytes\)", "(bytes)", re.sub(r"#\d+", "#", text))
            plan = plain("\n".join(str(row[0]) for row in result.collect()))
            for line in shown.splitlines():
                if "Skipstone" in line and "..." not in line:
                    expected = plain(line.strip().lstrip("+-*:() 0123456789").strip())
                    assert expected in plan, f"{block.where}: the plan shown has {expected!r}; the plan is\n{plan}"

    def _shell(self, block: Block, command: str) -> None:
        words = shlex.split(command, comments=True)
        if words[:3] == ["python", "-m", "skipstone"]:
            words = ["skipstone"] + words[3:]
        if words and words[0] == "skipstone":
            run = self.cli(*words[1:])
            assert run.exit_code == 0, f"{block.where}: `{command}` exits {run.exit_code}: {run.stderr}{run.stdout}"
            return
        if words and words[0] == "python":
            bin_dir = os.path.join(self.workdir, ".bin")
            os.makedirs(bin_dir, exist_ok=True)
            python = os.path.join(bin_dir, "python")
            if not os.path.exists(python):  # a script, not a symlink: a venv's python finds its venv by its own path
                with open(python, "w") as f:
                    f.write(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
                os.chmod(python, 0o755)
            env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""),
                       PYTHONPATH=str(ROOT / "python"))
            done = subprocess.run(["bash", "-c", command], cwd=self.workdir, env=env, capture_output=True, text=True,
                                  timeout=600)
            assert done.returncode == 0, f"{block.where}: `{command}` exits {done.returncode}: {done.stderr}"
            return
        raise AssertionError(f"{block.where}: `{command}` cannot run in the doc test (only skipstone and python "
                             f"commands do); mark the block <!-- not-run: reason --> in the page")
