"""Dagster assets validated by tablegate, reported over Dagster Pipes.

``tablegate_asset`` declares one asset whose checks are the ones ``tablegate checks`` lists, and
whose body runs ``tablegate validate`` in a Pipes session: Dagster records each check with the
severity and metadata tablegate sends, a materialization only when the table was written, and a
``dagster.Failure`` carrying tablegate's error type and message when the run fails. The table is
loaded downstream by ``TablegateIOManager``; ``tablegate_multi_asset`` validates several tables of
one extract in one step, ``tablegate_collection_asset`` validates a collection (related tables
written all or nothing) as one multi-asset, and ``TablegateAssetsComponent`` declares assets in a ``defs.yaml``.
"""

import json
import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import dagster as dg

from ._component import TablegateAssetsComponent
from ._io import TABLE_ADDRESS_KEY, TablegateIOManager, load_table, table_address
from ._pipes import CompleteLinesMessageReader, run_in_pipes_session

__all__ = [
    "tablegate_asset",
    "tablegate_multi_asset",
    "tablegate_collection_asset",
    "check_specs",
    "list_checks",
    "TablegateAssetsComponent",
    "find_tablegate",
    "column_schema",
    "TablegateIOManager",
    "IO_MANAGER_KEY",
    "PARTITION_KEY",
    "load_table",
    "table_address",
    "run_validate",
    "CompleteLinesMessageReader",
    "TablegateError",
    "REPORT_PAYLOAD_KEY",
]

#: The resource key of the IO manager a tablegate asset uses unless given ``io_manager_key``.
IO_MANAGER_KEY = "tablegate_io_manager"
_IO_MANAGER = TablegateIOManager()

#: Replaced by the run's partition key in ``input``, ``out``, ``db``, ``quarantine_name`` and
#: ``extra_args`` (a path component), and in ``query`` (a SQL string literal).
PARTITION_KEY = "{partition_key}"

#: The key of the custom Pipes message that carries tablegate's whole JSON report.
REPORT_PAYLOAD_KEY = "tablegate_report"


class TablegateError(Exception):
    """tablegate could not be asked for the asset's checks (a missing binary, a bad schema)."""


def _validate_args(
    *,
    schema: str,
    input: str | None,
    query: str | None,
    db: str | None,
    out: str | None,
    name: str,
    quarantine: bool,
    quarantine_name: str | None,
    granularity: str | None,
    schema_rules: str | None,
    samples: int | None,
    row_sample: int | None,
    skip_missing: bool,
    extra_args: Sequence[str],
) -> list[str]:
    args = ["validate", "--schema", schema, "--name", name]
    if input is not None:
        args += ["--input", input]
    if query is not None:
        args += ["--query", query]
    if db is not None:
        args += ["--db", db]
    if out is not None:
        args += ["--out", out]
    if quarantine:
        args.append("--quarantine")
    if quarantine_name is not None:
        args += ["--quarantine-name", quarantine_name]
    if granularity is not None:
        args += ["--granularity", granularity]
    if schema_rules is not None:
        args += ["--schema-rules", schema_rules]
    if samples is not None:
        args += ["--samples", str(samples)]
    if row_sample is not None:
        args += ["--row-sample", str(row_sample)]
    if skip_missing:
        args.append("--skip-missing")
    return args + list(extra_args)


def find_tablegate() -> str:
    """The tablegate binary: the one this package's platform wheel carries, else ``tablegate`` on
    ``PATH``."""
    bundled = Path(__file__).with_name("bin") / "tablegate"
    if bundled.is_file():
        return str(bundled)
    on_path = shutil.which("tablegate")
    if on_path:
        return on_path
    raise TablegateError(
        "tablegate_dagster: no tablegate binary: this is not the platform wheel (linux x86_64) that "
        "carries one, and tablegate is not on PATH. Install tablegate "
        "(go install ./cmd/tablegate in a tablegate clone) or pass executable="
    )


def list_checks(
    *,
    schema: str,
    quarantine: bool = False,
    granularity: str | None = None,
    schema_rules: str | None = None,
    executable: str | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
) -> dict[str, Any]:
    """``tablegate checks --format json``: the checks a run reports, the schema's fingerprint and
    its columns. Nothing is read."""
    executable = executable or find_tablegate()
    cmd = [executable, "checks", "--schema", schema, "--format", "json"]
    if quarantine:
        cmd.append("--quarantine")
    if granularity is not None:
        cmd += ["--granularity", granularity]
    if schema_rules is not None:
        cmd += ["--schema-rules", schema_rules]
    return _checks_json(cmd, env=env, cwd=cwd)


def _checks_json(cmd: list[str], *, env: Mapping[str, str] | None, cwd: str | None) -> dict[str, Any]:
    """Run a ``tablegate checks … --format json`` command line and decode its output."""
    executable = cmd[0]
    try:
        proc = subprocess.run(
            cmd, capture_output=True, text=True, env={**os.environ, **(env or {})}, cwd=cwd, check=False
        )
    except FileNotFoundError as e:
        raise TablegateError(
            f"tablegate_dagster: cannot run {executable!r}: install the tablegate-dagster wheel that carries "
            "tablegate, put tablegate on PATH (go install ./cmd/tablegate in a tablegate clone), "
            "or pass executable="
        ) from e
    if proc.returncode != 0:
        raise TablegateError(f"`{' '.join(cmd)}` failed (exit {proc.returncode}): {proc.stderr.strip()}")
    return json.loads(proc.stdout)


def check_specs(asset_key: dg.AssetKey, *, schema: str, **kwargs: Any) -> list[dg.AssetCheckSpec]:
    """The asset check specs of every check a ``tablegate validate`` run reports, from
    ``tablegate checks``: the same names, order, blocking flags and descriptions. The keyword
    arguments are ``list_checks``'s."""
    return _specs(asset_key, list_checks(schema=schema, **kwargs))


def _specs(
    asset_key: dg.AssetKey, listed: Mapping[str, Any], partitions_def: dg.PartitionsDefinition | None = None
) -> list[dg.AssetCheckSpec]:
    return [
        dg.AssetCheckSpec(
            name=c["name"],
            asset=asset_key,
            blocking=c["blocking"],
            description=c["description"],
            metadata={"tablegate/rules": [r["rule"] for r in c["rules"]]} if c["rules"] else None,
            partitions_def=partitions_def,
        )
        for c in listed["checks"]
    ]


def column_schema(listed: Mapping[str, Any]) -> dg.TableSchema:
    """The schema's columns as Dagster's Columns tab shows them: name, dtype, nullability, primary
    key, and the column's rules as its description."""
    columns = []
    for c in listed["columns"]:
        rules = "; ".join(c["rules"])
        description = " ".join(x for x in (c["description"], f"Rules: {rules}." if rules else "") if x)
        columns.append(
            dg.TableColumn(
                name=c["name"],
                type=c["dtype"],
                description=description or None,
                constraints=dg.TableColumnConstraints(nullable=c["nullable"], unique=c["primary_key"], other=c["rules"]),
            )
        )
    return dg.TableSchema(columns=columns)


@dataclass
class _Table:
    """One table a tablegate run validates and writes: its asset key, its checks listing, the
    command, and the asset's definition metadata."""

    key: dg.AssetKey
    listed: dict[str, Any]
    cmd: list[str]
    query_at: int | None
    quarantine_key: dg.AssetKey | None
    metadata: dict[str, Any]

    def command(self, context: dg.AssetExecutionContext) -> list[str]:
        if context.has_partition_key:
            return _for_partition(self.cmd, context.partition_key, query_at=self.query_at)
        return self.cmd


def _plan(
    *,
    name: str,
    schema: str,
    input: str | None = None,
    query: str | None = None,
    db: str | None = None,
    out: str | None = None,
    quarantine: bool = False,
    quarantine_name: str | None = None,
    granularity: str | None = None,
    schema_rules: str | None = None,
    samples: int | None = None,
    row_sample: int | None = 5,
    skip_missing: bool = False,
    extra_args: Sequence[str] = (),
    executable: str,
    env: Mapping[str, str] | None,
    cwd: str | None,
    key_prefix: str | Sequence[str] | None,
    quarantine_asset: bool = False,
    partitions_def: dg.PartitionsDefinition | None,
    metadata: Mapping[str, Any] | None = None,
) -> _Table:
    prefix = [key_prefix] if isinstance(key_prefix, str) else list(key_prefix or [])
    key = dg.AssetKey([*prefix, name])
    quarantine_key = None
    if quarantine_asset:
        if not quarantine:
            raise TablegateError(f"tablegate_asset {name!r}: quarantine_asset=True needs quarantine=True")
        quarantine_key = dg.AssetKey([*prefix, (quarantine_name or f"{name}_quarantine").replace(PARTITION_KEY, "")])
    if partitions_def is not None and out is not None and PARTITION_KEY not in out:
        raise TablegateError(
            f"tablegate_asset {name!r}: with partitions_def, put {PARTITION_KEY} in out "
            f"(out={out!r} would be rewritten by every partition)"
        )
    listed = list_checks(
        schema=schema,
        quarantine=quarantine,
        granularity=granularity,
        schema_rules=schema_rules,
        executable=executable,
        env=env,
        cwd=cwd,
    )
    if (
        partitions_def is not None
        and quarantine
        and out is not None
        and PARTITION_KEY not in os.path.dirname(out)
        and PARTITION_KEY not in (quarantine_name or "")
    ):
        # The quarantine goes beside the table under its own name: one per partition.
        quarantine_name = f"{quarantine_name or name + '_quarantine'}_{PARTITION_KEY}"
    cmd = [
        executable,
        *_validate_args(
            schema=schema,
            input=input,
            query=query,
            db=db,
            out=out,
            name=name,
            quarantine=quarantine,
            quarantine_name=quarantine_name,
            granularity=granularity,
            schema_rules=schema_rules,
            samples=samples,
            row_sample=row_sample,
            skip_missing=skip_missing,
            extra_args=extra_args,
        ),
    ]
    return _Table(
        key=key,
        listed=listed,
        cmd=cmd,
        query_at=cmd.index("--query") + 1 if query is not None else None,
        quarantine_key=quarantine_key,
        metadata={
            "dagster/column_schema": column_schema(listed),
            "tablegate/schema_fingerprint": listed["schema_fingerprint"],
            **(metadata or {}),
        },
    )


def tablegate_asset(
    *,
    name: str,
    schema: str,
    input: str | None = None,
    query: str | None = None,
    db: str | None = None,
    out: str | None = None,
    quarantine: bool = False,
    quarantine_name: str | None = None,
    granularity: str | None = None,
    schema_rules: str | None = None,
    samples: int | None = None,
    row_sample: int | None = 5,
    skip_missing: bool = False,
    extra_args: Sequence[str] = (),
    executable: str | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    key_prefix: str | Sequence[str] | None = None,
    quarantine_asset: bool = False,
    **asset_kwargs: Any,
) -> dg.AssetsDefinition:
    """An asset that ``tablegate validate`` materializes.

    The arguments are ``validate``'s flags (``input`` or ``query``, ``out``, ``quarantine``,
    ``quarantine_name`` — ``f"{name}__error_rows"`` for dagster-dataframely's name —,
    ``granularity``, ``schema_rules``, ``samples``, ``row_sample`` — the valid rows the
    materialization previews, 5 as dagster-dataframely, ``None`` for tablegate's setting —,
    ``skip_missing``; anything else in
    ``extra_args``). ``executable`` is the tablegate binary (default: ``find_tablegate()``); ``env`` and ``cwd`` are its
    environment (added to this process's) and folder. The remaining keyword arguments go to
    ``dagster.asset`` (``deps``, ``group_name``, ``description``, ...).

    ``quarantine_asset=True`` (with ``quarantine=True``) makes the quarantine an asset of its own,
    ``<quarantine_name or name_quarantine>``, materialized whenever a run wrote it (its address and
    row count), and loadable downstream like the table.

    With ``partitions_def``, ``out`` must contain ``{partition_key}`` (see ``PARTITION_KEY``).

    Every check ``tablegate validate`` reports is declared, so Dagster shows each as it is
    evaluated; the asset is ``output_required=False``, so a skipped run (no source data) records
    its checks and no materialization; a failing run records its checks, then raises
    ``dagster.Failure`` with tablegate's error type and message.
    """
    executable = executable or find_tablegate()
    table = _plan(
        name=name,
        schema=schema,
        input=input,
        query=query,
        db=db,
        out=out,
        quarantine=quarantine,
        quarantine_name=quarantine_name,
        granularity=granularity,
        schema_rules=schema_rules,
        samples=samples,
        row_sample=row_sample,
        skip_missing=skip_missing,
        extra_args=extra_args,
        executable=executable,
        env=env,
        cwd=cwd,
        key_prefix=key_prefix,
        quarantine_asset=quarantine_asset,
        partitions_def=asset_kwargs.get("partitions_def"),
        metadata=asset_kwargs.pop("metadata", None),
    )
    key, listed, quarantine_key = table.key, table.listed, table.quarantine_key
    partitions_def, metadata = asset_kwargs.get("partitions_def"), table.metadata
    kinds = set(asset_kwargs.pop("kinds", None) or ()) | {"tablegate"}
    asset_kwargs.setdefault("code_version", listed["schema_fingerprint"])
    if "io_manager_key" not in asset_kwargs:
        asset_kwargs["io_manager_key"] = IO_MANAGER_KEY
        # One instance for every tablegate asset: Dagster requires the same object under one key.
        asset_kwargs["resource_defs"] = {IO_MANAGER_KEY: _IO_MANAGER, **(asset_kwargs.get("resource_defs") or {})}

    check_specs = _specs(key, listed, partitions_def)

    def body(context: dg.AssetExecutionContext):
        yield from run_validate(context, table.command(context), env=env, cwd=cwd, quarantine_key=quarantine_key)

    if quarantine_key is None:

        @dg.asset(
            name=name,
            key_prefix=key_prefix,
            check_specs=check_specs,
            output_required=False,
            kinds=kinds,
            metadata=metadata,
            **asset_kwargs,
        )
        def _asset(context: dg.AssetExecutionContext):
            yield from body(context)

        return _asset

    # The quarantine as an asset of its own: one op, two outputs, either may be absent.
    per_output = {k: asset_kwargs.pop(k) for k in _PER_OUTPUT if k in asset_kwargs}
    common = {
        "is_required": False,
        "io_manager_key": asset_kwargs.pop("io_manager_key"),
        "code_version": asset_kwargs.pop("code_version"),
        "kinds": kinds,
        "group_name": asset_kwargs.pop("group_name", None),
    }

    @dg.multi_asset(
        name=name,
        outs={
            "table": dg.AssetOut(key=key, metadata=metadata, **common, **per_output),
            "quarantine": dg.AssetOut(
                key=quarantine_key,
                description=f"The rows of {name} that failed an error rule, as tablegate quarantined them.",
                **common,
            ),
        },
        check_specs=check_specs,
        **asset_kwargs,
    )
    def _assets(context: dg.AssetExecutionContext):
        yield from body(context)

    return _assets


def tablegate_multi_asset(
    *,
    name: str,
    tables: Sequence[Mapping[str, Any]],
    executable: str | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    key_prefix: str | Sequence[str] | None = None,
    partitions_def: dg.PartitionsDefinition | None = None,
    group_name: str | None = None,
    **multi_asset_kwargs: Any,
) -> dg.AssetsDefinition:
    """Several tables of one extract as one multi-asset: one step runs ``tablegate validate`` for
    each selected table in turn.

    Each entry of ``tables`` takes ``tablegate_asset``'s per-table arguments (``name``,
    ``schema``, ``input`` or ``query``, ``db``, ``out``, ``quarantine``, ``quarantine_name``,
    ``granularity``, ``schema_rules``, ``samples``, ``row_sample``, ``skip_missing``,
    ``extra_args``, ``metadata``) and the table output's ``description``, ``owners``, ``tags``,
    ``automation_condition``. Every table has its own checks, materialization and loaded table. A
    table whose run fails does not stop the others: they run and materialize, and the step then
    fails naming each table that failed. The remaining keyword arguments go to
    ``dagster.multi_asset``.
    """
    executable = executable or find_tablegate()
    planned: list[_Table] = []
    outs: dict[str, dg.AssetOut] = {}
    check_specs: list[dg.AssetCheckSpec] = []
    for entry in tables:
        args = dict(entry)
        per_output = {k: args.pop(k) for k in _PER_OUTPUT if k in args}
        if args.get("quarantine_asset"):
            raise TablegateError(f"tablegate_multi_asset {name!r}: quarantine_asset is for tablegate_asset")
        table = _plan(**args, executable=executable, env=env, cwd=cwd, key_prefix=key_prefix, partitions_def=partitions_def)
        if args["name"] in outs:
            raise TablegateError(f"tablegate_multi_asset {name!r}: two tables are named {args['name']!r}")
        outs[args["name"]] = dg.AssetOut(
            key=table.key,
            is_required=False,
            io_manager_key=IO_MANAGER_KEY,
            metadata=table.metadata,
            code_version=table.listed["schema_fingerprint"],
            kinds={"tablegate"},
            group_name=group_name,
            **per_output,
        )
        check_specs += _specs(table.key, table.listed, partitions_def)
        planned.append(table)

    @dg.multi_asset(
        name=name,
        outs=outs,
        check_specs=check_specs,
        partitions_def=partitions_def,
        can_subset=True,
        resource_defs={IO_MANAGER_KEY: _IO_MANAGER, **(multi_asset_kwargs.pop("resource_defs", None) or {})},
        **multi_asset_kwargs,
    )
    def _assets(context: dg.AssetExecutionContext):
        failed = []
        for table in planned:
            if table.key not in context.selected_asset_keys:
                continue
            try:
                yield from run_validate(context, table.command(context), env=env, cwd=cwd)
            except dg.Failure as e:
                failed.append(f"{table.key.to_user_string()}: {e.description}")
        if failed:
            raise dg.Failure(
                description=f"{len(failed)} of the tables failed: " + "; ".join(failed), allow_retries=False
            )

    return _assets


def tablegate_collection_asset(
    *,
    collection: str,
    name: str | None = None,
    inputs: Mapping[str, str] | None = None,
    input_dir: str | None = None,
    outs: Mapping[str, str] | None = None,
    out_dir: str | None = None,
    quarantine: bool = False,
    extra_args: Sequence[str] = (),
    executable: str | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    key_prefix: str | Sequence[str] | None = None,
    group_name: str | None = None,
    **multi_asset_kwargs: Any,
) -> dg.AssetsDefinition:
    """A collection file's members as one multi-asset that one ``tablegate validate
    --collection`` run materializes: an asset per member (named after the member), with the
    member's checks from ``tablegate checks --collection`` — its schema's, and the collection's
    filters, failure propagations and references as ``dy_rule__<name>`` checks.

    ``inputs``/``outs`` map members to ``--input``/``--out`` values, ``input_dir``/``out_dir`` are
    ``--input-dir``/``--out-dir``; anything else goes in ``extra_args``. The collection is written
    all or nothing, so the step runs every member (no subsetting): every member's checks are
    recorded, the members are materialized only when the run wrote them, and a failing run raises
    ``dagster.Failure`` naming the collection's error. ``name`` is the op's name (default: the
    collection's name in lower case). The remaining keyword arguments go to ``dagster.multi_asset``.
    """
    executable = executable or find_tablegate()
    cmd = [executable, "checks", "--collection", collection, "--format", "json"]
    if quarantine:
        cmd.append("--quarantine")
    listed = _checks_json(cmd, env=env, cwd=cwd)
    prefix = [key_prefix] if isinstance(key_prefix, str) else list(key_prefix or [])
    outs_by_member: dict[str, dg.AssetOut] = {}
    check_specs: list[dg.AssetCheckSpec] = []
    for member in listed["members"]:
        key = dg.AssetKey([*prefix, member["member"]])
        outs_by_member[member["member"]] = dg.AssetOut(
            key=key,
            is_required=False,
            io_manager_key=IO_MANAGER_KEY,
            metadata={
                "dagster/column_schema": column_schema(member),
                "tablegate/schema_fingerprint": member["schema_fingerprint"],
                "tablegate/collection": listed["collection"],
            },
            code_version=member["schema_fingerprint"],
            kinds={"tablegate"},
            group_name=group_name,
        )
        check_specs += _specs(key, member)
    run = [executable, "validate", "--collection", collection]
    for member, value in (inputs or {}).items():
        run += ["--input", f"{member}={value}"]
    if input_dir is not None:
        run += ["--input-dir", input_dir]
    for member, value in (outs or {}).items():
        run += ["--out", f"{member}={value}"]
    if out_dir is not None:
        run += ["--out-dir", out_dir]
    if quarantine:
        run.append("--quarantine")
    run += list(extra_args)

    @dg.multi_asset(
        name=name or listed["collection"].lower(),
        outs=outs_by_member,
        check_specs=check_specs,
        resource_defs={IO_MANAGER_KEY: _IO_MANAGER, **(multi_asset_kwargs.pop("resource_defs", None) or {})},
        **multi_asset_kwargs,
    )
    def _assets(context: dg.AssetExecutionContext):
        done = run_in_pipes_session(context, run, extras={"tablegate_command": run}, env=env, cwd=cwd)
        report = _report(done.custom_messages) or {}
        by_key = {
            dg.AssetKey([*prefix, m]): {c["name"]: c.get("result_description") for c in (rep or {}).get("checks", [])}
            for m, rep in (report.get("members") or {}).items()
        }
        for r in done.results:
            if isinstance(r, dg.AssetCheckResult) and by_key.get(r.asset_key, {}).get(r.check_name):
                r = r._replace(description=by_key[r.asset_key][r.check_name])
            yield r
        if done.returncode != 0:
            raise _failure(report, done.returncode)

    return _assets


#: dagster.asset arguments that belong to the table's output when the quarantine is an asset too.
_PER_OUTPUT = ("description", "owners", "tags", "automation_condition", "freshness_policy")


def run_validate(
    context: dg.AssetExecutionContext,
    cmd: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    message_reader: dg.PipesMessageReader | None = None,
    quarantine_key: dg.AssetKey | None = None,
):
    """Run a ``tablegate validate`` command line as a Pipes process and yield what it reported.

    The check results and the materialization (only when the table was written) are yielded
    after the process exited, with tablegate's description of each check; a non-zero exit then
    raises ``dagster.Failure`` with tablegate's error type and message. A run that wrote nothing
    yields no materialization and the step succeeds (the asset is ``output_required=False``).
    ``message_reader`` replaces the reader that hands Dagster complete messages only.
    """
    done = run_in_pipes_session(
        context, cmd, extras={"tablegate_command": list(cmd)}, env=env, cwd=cwd, message_reader=message_reader
    )
    report = _report(done.custom_messages)
    descriptions = {c["name"]: c.get("result_description") for c in (report or {}).get("checks", [])}
    for r in done.results:
        if isinstance(r, dg.AssetCheckResult) and descriptions.get(r.check_name):
            r = r._replace(description=descriptions[r.check_name])
        yield r
    written = (report or {}).get("quarantine") or {}
    if quarantine_key is not None and written.get("written"):
        yield dg.MaterializeResult(
            asset_key=quarantine_key,
            metadata={TABLE_ADDRESS_KEY: written["address"], "dagster/row_count": dg.MetadataValue.int(written["rows"])},
        )
    if done.returncode != 0:
        raise _failure(report or {}, done.returncode)


def _failure(report: Mapping[str, Any], returncode: int) -> dg.Failure:
    """The step's failure for a run that exited with ``returncode``: tablegate's error type and
    message from its report."""
    error = report.get("error") or {}
    return dg.Failure(
        description=f"{error.get('type', 'TablegateError')}: {error.get('message', f'tablegate exited with {returncode}')}",
        metadata={
            "tablegate/error_type": error.get("type", ""),
            "tablegate/exit_code": returncode,
            "tablegate/outcome": report.get("outcome") or "",
        },
        allow_retries=False,
    )


def _for_partition(cmd: Sequence[str], partition_key: str, *, query_at: int | None) -> list[str]:
    """The command with ``{partition_key}`` replaced: in the query by the key as a SQL string
    literal, elsewhere (paths, names) by the key, which must then be one path component."""
    if PARTITION_KEY not in "".join(cmd):
        return list(cmd)
    literal = "'" + partition_key.replace("'", "''") + "'"
    needs_path = any(PARTITION_KEY in a for i, a in enumerate(cmd) if i != query_at)
    if needs_path and (
        partition_key in ("", ".", "..") or any(ch in partition_key for ch in ("/", "\\", "\x00"))
    ):
        raise dg.Failure(
            f"partition key {partition_key!r} cannot go into a path or table name: "
            "use keys without '/', '\\' or NUL, and not '.' or '..'",
            allow_retries=False,
        )
    return [a.replace(PARTITION_KEY, literal if i == query_at else partition_key) for i, a in enumerate(cmd)]


def _report(messages: Sequence[Any]) -> dict | None:
    for m in messages:
        if isinstance(m, dict) and REPORT_PAYLOAD_KEY in m:
            return m[REPORT_PAYLOAD_KEY]
    return None
