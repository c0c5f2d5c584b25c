"""Dagster assets validated by tablegate, reported over Dagster Pipes.

``tablegate_asset`` declares one asset whose checks are the ones ``tablegate checks`` lists, and
whose body runs ``tablegate validate`` in a Pipes session: Dagster records each check with the
severity and metadata tablegate sends, a materialization only when the table was written, and a
``dagster.Failure`` carrying tablegate's error type and message when the run fails. The table is
loaded downstream by ``TablegateIOManager``; ``tablegate_multi_asset`` validates several tables of
one extract in one step, ``tablegate_collection_asset`` validates a collection (related tables
written all or nothing) as one multi-asset, and ``TablegateAssetsComponent`` declares assets in a ``defs.yaml``.
"""

import functools
import importlib.metadata
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
from ._io import (
    ERROR_ROWS_ADDRESS_KEY,
    TABLE_ADDRESS_KEY,
    TablegateIOManager,
    absolute_address,
    data_version,
    load_table,
    table_address,
)
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
    "DAGSTER_INTEGRATION",
    "check_binary",
]

#: The resource key of the IO manager a tablegate asset uses unless given ``io_manager_key``.
IO_MANAGER_KEY = "tablegate_io_manager"
_IO_MANAGER = TablegateIOManager()

#: Replaced by the run's partition key in ``input``, ``out``, ``db``, ``quarantine_name`` and
#: ``extra_args`` (a path component), and in ``query`` (a SQL string literal).
PARTITION_KEY = "{partition_key}"

#: The key of the custom Pipes message that carries tablegate's whole JSON report.
REPORT_PAYLOAD_KEY = "tablegate_report"


#: What this package reads from tablegate (``checks --format json``, the JSON report, the Pipes
#: metadata) is numbered; a binary must report the same number in ``tablegate version --format json``.
DAGSTER_INTEGRATION = 1


class TablegateError(Exception):
    """tablegate could not be asked for the asset's checks (a missing binary, a bad schema)."""


def _package_version() -> str:
    try:
        return importlib.metadata.version("tablegate-dagster")
    except importlib.metadata.PackageNotFoundError:
        return "(not installed)"


def check_binary(executable: str) -> dict[str, Any]:
    """``tablegate version --format json`` of ``executable``; raises ``TablegateError`` unless the
    binary reads and writes what this package expects (its ``dagster_integration`` is
    ``DAGSTER_INTEGRATION``). Each binary is asked once per process (again when it changes)."""
    path = shutil.which(executable) or executable
    try:
        st = os.stat(path)
    except OSError as e:
        raise TablegateError(
            f"tablegate_dagster: cannot run {executable!r} ({e.strerror}): install the tablegate-dagster wheel "
            "that carries tablegate, put tablegate on PATH (go install ./cmd/tablegate in a tablegate clone), "
            "or pass executable="
        ) from e
    return _binary_version(path, st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=None)
def _binary_version(path: str, _mtime_ns: int, _size: int) -> dict[str, Any]:
    try:
        proc = subprocess.run([path, "version", "--format", "json"], capture_output=True, text=True, check=False)
    except OSError as e:
        raise TablegateError(f"tablegate_dagster: cannot run {path!r}: {e}; pass executable= a tablegate binary") from e
    info: Any = None
    if proc.returncode == 0:
        try:
            info = json.loads(proc.stdout)
        except ValueError:
            pass
    if isinstance(info, dict) and info.get("dagster_integration") == DAGSTER_INTEGRATION:
        return info
    if isinstance(info, dict) and "dagster_integration" in info:
        found = f"tablegate {info.get('tablegate_version')} (Dagster integration {info['dagster_integration']})"
    else:
        said = (proc.stdout.strip() or proc.stderr.strip()).splitlines()
        found = f"older or not tablegate (`version --format json` exited {proc.returncode}: {said[0] if said else 'no output'})"
    raise TablegateError(
        f"tablegate_dagster {_package_version()} needs a tablegate binary of its own release (Dagster integration "
        f"{DAGSTER_INTEGRATION}), and {path} is {found}: install the tablegate-dagster wheel that carries its "
        "binary, build tablegate from the checkout this package came from (go build ./cmd/tablegate), "
        "or pass executable= such a binary"
    )


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


#: ``validate`` flags that ``tablegate_asset``'s own arguments set, by argument: in ``extra_args``
#: they would contradict the checks the asset declares or the address it records.
_ASSET_FLAGS = {
    "--schema": "schema",
    "--name": "name",
    "--input": "input",
    "--query": "query",
    "--db": "db",
    "--out": "out",
    "--quarantine": "quarantine",
    "--quarantine-name": "quarantine_name",
    "--granularity": "granularity",
    "--schema-rules": "schema_rules",
    "--samples": "samples",
    "--row-sample": "row_sample",
    "--skip-missing": "skip_missing",
    "--collection": "tablegate_collection_asset",
    "--input-dir": "tablegate_collection_asset",
    "--out-dir": "tablegate_collection_asset",
}
#: The same for ``tablegate_collection_asset``; its checks are listed at the default granularity.
_COLLECTION_FLAGS = {
    "--collection": "collection",
    "--input": "inputs",
    "--input-dir": "input_dir",
    "--out": "outs",
    "--out-dir": "out_dir",
    "--quarantine": "quarantine",
    "--granularity": None,
    "--schema-rules": None,
    "--schema": None,
}


def _refuse_modelled(what: str, extra_args: Sequence[str], modelled: Mapping[str, str | None]) -> None:
    for arg in extra_args:
        flag = arg.split("=", 1)[0]
        if flag not in modelled:
            continue
        use = modelled[flag]
        if use is None:
            hint = "the checks the asset declares are listed without it"
        elif use.startswith("tablegate_"):
            hint = f"several related tables are {use}'s"
        else:
            hint = f"pass {use}= instead"
        raise TablegateError(
            f"{what}: extra_args {arg!r}: the asset sets {flag} itself (its declared checks and recorded "
            f"addresses follow it); {hint}"
        )


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
    check_binary(executable)
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
    try:
        return json.loads(proc.stdout)
    except ValueError as e:
        raise TablegateError(f"`{' '.join(cmd)}` printed no JSON ({e}): {proc.stdout[:200]!r}") from e


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

    def command(self, partition_key: str | None) -> list[str]:
        if partition_key is not None:
            return _for_partition(self.cmd, partition_key, query_at=self.query_at)
        return self.cmd

    def run(self, context: dg.AssetExecutionContext, *, env, cwd, quarantine_key: dg.AssetKey | None = None):
        """Validate the step's partition, or each partition of a range step in turn (one run per
        key, each recorded under its key); the table's materialization carries its columns."""
        extra = {"dagster/column_schema": self.metadata["dagster/column_schema"]}
        if context.has_partition_key or not context.has_partition_key_range:
            key = context.partition_key if context.has_partition_key else None
            yield from run_validate(
                context, self.command(key), env=env, cwd=cwd, quarantine_key=quarantine_key, metadata=extra
            )
            return
        keys = context.partition_keys
        failed: list[dg.Failure] = []
        reported: dict[dg.AssetCheckKey, None] = {}
        for key in keys:
            try:
                for event in run_validate(
                    context,
                    self.command(key),
                    env=env,
                    cwd=cwd,
                    quarantine_key=quarantine_key,
                    metadata=extra,
                    partition_key=key,
                ):
                    if isinstance(event, dg.AssetCheckEvaluation):
                        reported[event.asset_check_key] = None
                    yield event
            except dg.Failure as e:
                failed.append(dg.Failure(description=f"partition {key!r}: {e.description}", allow_retries=e.allow_retries))
        # The evaluations were recorded per key; each check's output is then given once.
        outputs = {spec.key: name for name, spec in context.assets_def.check_specs_by_output_name.items()}
        for check_key in reported:
            if check_key in context.selected_asset_check_keys:
                yield dg.Output(None, output_name=outputs[check_key])
        if failed:
            raise _combined(f"{len(failed)} of {len(keys)} partitions failed", failed)


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
    _refuse_modelled(f"tablegate_asset {name!r}", extra_args, _ASSET_FLAGS)
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
        yield from table.run(context, env=env, cwd=cwd, quarantine_key=quarantine_key)

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
        failed: list[dg.Failure] = []
        for table in planned:
            if table.key not in context.selected_asset_keys:
                continue
            try:
                yield from table.run(context, env=env, cwd=cwd)
            except dg.Failure as e:
                failed.append(dg.Failure(description=f"{table.key.to_user_string()}: {e.description}", allow_retries=e.allow_retries))
        if failed:
            raise _combined(f"{len(failed)} of the tables failed", failed)

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
    _refuse_modelled(f"tablegate_collection_asset {collection!r}", extra_args, _COLLECTION_FLAGS)
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
    schemas = {dg.AssetKey([*prefix, m["member"]]): column_schema(m) for m in listed["members"]}

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
        base = os.path.abspath(cwd or os.curdir)
        for r in done.results:
            columns = {"dagster/column_schema": schemas[r.asset_key]} if r.asset_key in schemas else None
            yield from _resolved([r], base, by_key.get(r.asset_key, {}), columns)
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
    metadata: Mapping[str, Any] | None = None,
    partition_key: str | None = None,
):
    """Run a ``tablegate validate`` command line as a Pipes process and yield what it reported.

    The check results and the materialization (only when the table was written) are yielded
    after the process exited, with tablegate's description of each check; the addresses they
    record are absolute (relative ones are resolved against ``cwd``), the materialization carries
    ``metadata`` too and the written table's data version. A non-zero exit then raises
    ``dagster.Failure`` with tablegate's error type and message, which a ``RetryPolicy`` retries
    only when the run did not get as far as a validation outcome (exit 2: input missing, I/O,
    timeout; or a signal). A run that wrote nothing yields no materialization and the step
    succeeds (the asset is ``output_required=False``). ``partition_key`` (one key of a range step)
    records everything under that partition. ``message_reader`` replaces the reader that hands
    Dagster complete messages only.
    """
    done = run_in_pipes_session(
        context,
        cmd,
        extras={"tablegate_command": list(cmd)},
        env=env,
        cwd=cwd,
        message_reader=message_reader,
        partition_key=partition_key,
    )
    base = os.path.abspath(cwd or os.curdir)
    report = _report(done.custom_messages)
    descriptions = {c["name"]: c.get("result_description") for c in (report or {}).get("checks", [])}
    for r in _resolved(done.results, base, descriptions, metadata):
        yield _under_partition(context, r, partition_key)
    written = (report or {}).get("quarantine") or {}
    if quarantine_key is not None and written.get("written"):
        address = absolute_address(written["address"], base)
        yield _under_partition(
            context,
            dg.MaterializeResult(
                asset_key=quarantine_key,
                metadata={TABLE_ADDRESS_KEY: address, "dagster/row_count": dg.MetadataValue.int(written["rows"])},
                data_version=_data_version(address),
            ),
            partition_key,
        )
    if done.returncode != 0:
        raise _failure(report or {}, done.returncode)


def _resolved(
    results: Sequence[dg.AssetCheckResult | dg.MaterializeResult],
    base: str,
    descriptions: Mapping[str, str | None],
    metadata: Mapping[str, Any] | None,
):
    """The Pipes results as Dagster records them: tablegate's check descriptions, absolute
    addresses, and the table's data version and extra ``metadata`` on its materialization."""
    for r in results:
        meta = dict(r.metadata or {})
        for k in (TABLE_ADDRESS_KEY, ERROR_ROWS_ADDRESS_KEY):
            if k in meta:
                meta[k] = dg.MetadataValue.text(absolute_address(_text(meta[k]), base))
        if isinstance(r, dg.AssetCheckResult):
            yield r._replace(metadata=meta, description=descriptions.get(r.check_name) or r.description)
        else:
            address = _text(meta.get(TABLE_ADDRESS_KEY))
            yield r._replace(
                metadata={**meta, **(metadata or {})},
                data_version=(_data_version(address) if address else None) or r.data_version,
            )


def _text(value: Any) -> str:
    return str(value.value) if isinstance(value, dg.MetadataValue) else str(value or "")


def _data_version(address: str) -> dg.DataVersion | None:
    version = data_version(address)
    return dg.DataVersion(version) if version else None


def _under_partition(context: dg.AssetExecutionContext, r: Any, partition_key: str | None) -> Any:
    """A result of one partition of a range step as the event Dagster records under that key (a
    step's outputs would stand for every partition of its range)."""
    if partition_key is None:
        return r
    key = r.asset_key or context.asset_key
    if isinstance(r, dg.MaterializeResult):
        tags = {**(r.tags or {}), **({"dagster/data_version": r.data_version.value} if r.data_version else {})}
        return dg.AssetMaterialization(asset_key=key, partition=partition_key, metadata=r.metadata, tags=tags or None)
    spec = {s.key: s for s in context.assets_def.check_specs}[dg.AssetCheckKey(key, r.check_name)]
    return dg.AssetCheckEvaluation(
        asset_key=key,
        check_name=r.check_name,
        passed=r.passed,
        metadata=r.metadata,
        severity=r.severity,
        description=r.description,
        blocking=spec.blocking,
        partition=partition_key if spec.partitions_def is not None else None,
    )


#: Exit statuses whose run ended before a validation outcome: a retry may find the input landed.
_RETRYABLE_EXIT = 2


def _failure(report: Mapping[str, Any], returncode: int) -> dg.Failure:
    """The step's failure for a run that exited with ``returncode``: tablegate's error type and
    message from its report; retryable for exit 2 and a signal, not for a validation outcome."""
    error = report.get("error") or {}
    return dg.Failure(
        description=f"{error.get('type', 'TablegateError')}: {error.get('message', f'tablegate exited with {returncode}')}",
        metadata={
            "tablegate/error_type": error.get("type", ""),
            "tablegate/exit_code": returncode,
            "tablegate/outcome": report.get("outcome") or "",
        },
        allow_retries=returncode == _RETRYABLE_EXIT or returncode < 0,
    )


def _combined(what: str, failed: Sequence[dg.Failure]) -> dg.Failure:
    """One failure for several: retryable only when each of them is."""
    return dg.Failure(
        description=f"{what}: " + "; ".join(f.description or "" for f in failed),
        allow_retries=all(f.allow_retries for f in failed),
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
