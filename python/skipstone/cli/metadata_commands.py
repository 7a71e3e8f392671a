"""What a table or dataset holds, from its metadata alone: describe, history, properties, files,
and ``stats`` of a table. A path is answered by the JVM's readers without a Spark session
(``jvm_metadata``); a catalog name needs the session's catalog. ``properties --set/--unset``
commits through the table's validated settings, which needs a session."""
from __future__ import annotations

from typing import Any, List, Optional

import typer

from skipstone.cli.failures import reported
from skipstone.cli.output import console, emit, emit_value, local_time, print_fields, print_json, say
from skipstone.cli.state import CliState, parse_assignments
from skipstone.cli.targets import TABLE_HELP, TARGET_HELP, is_catalog_name, open_table
from skipstone.errors import SkipstoneError

JSON_HELP = "Print JSON instead of a table."

#: history's columns in a table for people (--json has every field, commit_info whole)
HISTORY_COLUMNS = ["version", "time", "operation", "by", "+files", "-files", "rows"]


def ask(state: CliState, command: str, target: str) -> Any:
    """The JVM's answer about ``target``: without a session for a path, through the session's
    catalog for a catalog name."""
    from skipstone.cli.jvm_metadata import metadata_json, metadata_json_for_name

    if is_catalog_name(target):
        return metadata_json_for_name(state.spark, command, target)
    return metadata_json(command, target, state.conf)


def index_rows(described: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per index of a ``describe`` answer: what ``Skipstone(...).describe()`` returns."""
    from skipstone.dataset import index_name

    metadata = described.get("metadata")
    if not metadata:
        return []
    footer_key = (metadata["definition"].get("encryption") or {}).get("footerKey")
    return [{"index": index_name(ix), "kind": ix["kind"], "columns": ix["columns"], "version": metadata["version"],
             "files_indexed": metadata["files_indexed"], "dataset": described["root"], "metadata_dir": metadata["dir"],
             "key": ix.get("key"), "footer_key": footer_key}
            for ix in metadata["definition"]["indexes"]]


def history_rows(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The history's rows as a table shows them: local times, the policy or strategy as ``by``."""
    return [{"version": h["version"], "time": local_time(h["timestamp"]), "operation": h["operation"],
             "by": h.get("policy") or h.get("strategy"), "+files": h.get("files_added"),
             "-files": h.get("files_removed"), "rows": h["rows"]} for h in history]


def stats_record(described: dict[str, Any]) -> dict[str, Any]:
    """The ``stats`` of a table or dataset as one flat record with stable keys (None where a
    dataset has no such thing)."""
    table = described.get("table") or {}
    layout = described.get("layout") or {}
    metadata = described.get("metadata") or {}
    return {
        "root": described["root"], "managed": bool(table), "version": table.get("version"),
        "files": table.get("numFiles"), "rows": table.get("numRows"), "bytes": table.get("sizeInBytes"),
        "layout": table.get("layout"), "layout_columns": table.get("layoutColumns"),
        "blocks": layout.get("blocks"), "files_per_block_max": layout.get("files_per_block_max"),
        "file_bytes_min": layout.get("file_bytes_min"), "file_bytes_median": layout.get("file_bytes_median"),
        "file_bytes_max": layout.get("file_bytes_max"), "unindexed_files": layout.get("unindexed_files"),
        "created": table.get("createdAt"), "last_modified": table.get("lastModified"),
        "metadata_version": metadata.get("version"), "files_indexed": metadata.get("files_indexed"),
        "metadata_bytes": metadata.get("bytes"),
        "indexes": [{"index": r["index"], "kind": r["kind"], "columns": r["columns"]} for r in index_rows(described)],
    }


def show_stats(state: CliState, target: str, as_json: bool) -> None:
    """``stats TARGET``: how a table's rows spread over blocks and files, and its indexes."""
    record = stats_record(ask(state, "stats", target))
    if not record["managed"] and record["metadata_version"] is None:
        raise SkipstoneError(f"{target} is neither a Skipstone managed table nor a dataset with a Skipstone index")
    if as_json:
        print_json(record)
        return
    shown = {k: v for k, v in record.items() if k != "indexes" and v is not None}
    for key in ("created", "last_modified"):
        if key in shown:
            shown[key] = local_time(shown[key])
    print_fields(shown, f"stats of {record['root']}")
    if record["indexes"]:
        console.print()
        emit(record["indexes"], "indexes", as_json=False)


def register(app: typer.Typer) -> None:
    @app.command("describe")
    @reported
    def describe(ctx: typer.Context, target: str = typer.Argument(..., help=TARGET_HELP),
                 as_json: bool = typer.Option(False, "--json", help=JSON_HELP)) -> None:
        """List the indexes of a dataset or managed table: kind, columns, metadata version, files indexed."""
        rows = index_rows(ask(ctx.obj, "describe", target))
        if not rows and not as_json:
            say(f"{target} has no Skipstone index")
            return
        emit(rows, f"Skipstone indexes of {target}", as_json,
             None if as_json else ["index", "kind", "columns", "version", "files_indexed"])

    @app.command("history")
    @reported
    def history(
        ctx: typer.Context,
        table: str = typer.Argument(..., help=TABLE_HELP),
        limit: Optional[int] = typer.Option(None, "--limit", min=1, help="Only the newest N versions."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON (every field, with each commit's full info)."),
    ) -> None:
        """One row per committed version: time, operation, the policy or strategy behind it, files added and removed."""
        found = ask(ctx.obj, "history", table)
        if limit:
            found = found[-limit:]
        if as_json:
            print_json(found)
            return
        emit(history_rows(found), f"history of {table}", as_json=False, columns=HISTORY_COLUMNS,
             squeeze=("by", "operation"))

    @app.command("files")
    @reported
    def files(ctx: typer.Context, table: str = typer.Argument(..., help=TABLE_HELP),
              as_json: bool = typer.Option(False, "--json", help=JSON_HELP)) -> None:
        """One row per live file of the newest version: path (relative to the table), block, rows, bytes."""
        found = ask(ctx.obj, "files", table)
        emit(found, f"files of {table}", as_json, ["path", "block", "rows", "size"], squeeze=("path",))

    @app.command("properties")
    @reported
    def properties(
        ctx: typer.Context,
        table: str = typer.Argument(..., help=TABLE_HELP),
        assignments: Optional[List[str]] = typer.Option(
            None, "--set", help="KEY=VALUE to commit, checked against the table's settings; repeat for more."),
        unset: Optional[List[str]] = typer.Option(
            None, "--unset", help="A KEY to clear: a setting goes back to its default, a key of your own is left empty; "
                                  "repeat."),
        as_json: bool = typer.Option(False, "--json", help=JSON_HELP),
    ) -> None:
        """Show a managed table's properties (settings with their defaults), or change them with --set/--unset."""
        changes = parse_assignments(assignments or [])
        if changes or unset:
            from skipstone.table.settings import defaults

            # a setting goes back to its default; a key of the user's own is left empty
            changes |= {key.strip(): defaults(ctx.obj.spark).get(key.strip(), "") for key in unset or []}
            open_table(ctx.obj.spark, table).set_properties(changes)
        found = ask(ctx.obj, "properties", table)
        if as_json:
            print_json(found)
            return
        if changes:
            say(f"committed {', '.join(f'{k}={v}' for k, v in changes.items())} to {table}")
        schema = found.pop("schema", None)
        if schema is not None:
            found["schema"] = "(the table's columns: --json shows them)"
        emit_value(found, f"properties of {table}", as_json=False)
