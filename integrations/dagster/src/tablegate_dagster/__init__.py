"""Dagster assets validated by tablegate, reported over Dagster Pipes.

``tablegate_asset`` declares one asset whose checks are the ones ``tablegate checks`` lists, and
whose body runs ``tablegate validate`` in a Pipes session: Dagster records each check with the
severity and metadata tablegate sends, a materialization only when the table was written, and a
``dagster.Failure`` carrying tablegate's error type and message when the run fails.
"""

import json
import os
import subprocess
from collections.abc import Mapping, Sequence
from typing import Any

import dagster as dg

__all__ = ["tablegate_asset", "check_specs", "TablegateError", "REPORT_PAYLOAD_KEY"]

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
    if skip_missing:
        args.append("--skip-missing")
    return args + list(extra_args)


def check_specs(
    asset_key: dg.AssetKey,
    *,
    schema: str,
    quarantine: bool = False,
    granularity: str | None = None,
    schema_rules: str | None = None,
    executable: str = "tablegate",
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
) -> list[dg.AssetCheckSpec]:
    """The asset check specs of every check a ``tablegate validate`` run reports, from
    ``tablegate checks``: the same names, order, blocking flags and descriptions."""
    cmd = [executable, "checks", "--schema", schema, "--format", "json"]
    if quarantine:
        cmd.append("--quarantine")
    if granularity is not None:
        cmd += ["--granularity", granularity]
    if schema_rules is not None:
        cmd += ["--schema-rules", schema_rules]
    try:
        proc = subprocess.run(
            cmd, capture_output=True, text=True, env={**os.environ, **(env or {})}, cwd=cwd, check=False
        )
    except FileNotFoundError as e:
        raise TablegateError(
            f"tablegate_asset: cannot run {executable!r}: install tablegate "
            "(go install github.com/tablegate/tablegate/cmd/tablegate@latest) or pass executable="
        ) from e
    if proc.returncode != 0:
        raise TablegateError(f"`{' '.join(cmd)}` failed (exit {proc.returncode}): {proc.stderr.strip()}")
    listed = json.loads(proc.stdout)
    return [
        dg.AssetCheckSpec(
            name=c["name"],
            asset=asset_key,
            blocking=c["blocking"],
            description=c["description"],
            metadata={"tablegate/rules": [r["rule"] for r in c["rules"]]} if c["rules"] else None,
        )
        for c in listed["checks"]
    ]


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
    skip_missing: bool = False,
    extra_args: Sequence[str] = (),
    executable: str = "tablegate",
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    key_prefix: str | Sequence[str] | None = None,
    **asset_kwargs: Any,
) -> dg.AssetsDefinition:
    """An asset that ``tablegate validate`` materializes.

    The arguments are ``validate``'s flags (``input`` or ``query``, ``out``, ``quarantine``,
    ``quarantine_name`` — ``f"{name}__error_rows"`` for dagster-dataframely's name —,
    ``granularity``, ``schema_rules``, ``samples``, ``skip_missing``; anything else in
    ``extra_args``). ``executable`` is the tablegate binary; ``env`` and ``cwd`` are its
    environment (added to this process's) and folder. The remaining keyword arguments go to
    ``dagster.asset`` (``deps``, ``group_name``, ``description``, ...).

    Every check ``tablegate validate`` reports is declared, so Dagster shows each as it is
    evaluated; the asset is ``output_required=False``, so a skipped run (no source data) records
    its checks and no materialization; a failing run records its checks, then raises
    ``dagster.Failure`` with tablegate's error type and message.
    """
    key = dg.AssetKey([*([key_prefix] if isinstance(key_prefix, str) else (key_prefix or [])), name])
    specs = check_specs(
        key,
        schema=schema,
        quarantine=quarantine,
        granularity=granularity,
        schema_rules=schema_rules,
        executable=executable,
        env=env,
        cwd=cwd,
    )
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
            skip_missing=skip_missing,
            extra_args=extra_args,
        ),
    ]
    kinds = set(asset_kwargs.pop("kinds", None) or ()) | {"tablegate"}

    @dg.asset(
        name=name,
        key_prefix=key_prefix,
        check_specs=specs,
        output_required=False,
        kinds=kinds,
        **asset_kwargs,
    )
    def _asset(context: dg.AssetExecutionContext):
        yield from run_validate(context, cmd, env=env, cwd=cwd)

    return _asset


def run_validate(
    context: dg.AssetExecutionContext,
    cmd: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
):
    """Run a ``tablegate validate`` command line in a Pipes session and yield what it reported.

    ``PipesSubprocessClient.run`` would drop every result of a non-zero exit, so the process runs
    in ``open_pipes_session`` and the exit status is turned into a ``dagster.Failure`` only after
    the checks were yielded.
    """
    with dg.open_pipes_session(
        context=context,
        context_injector=dg.PipesTempFileContextInjector(),
        message_reader=dg.PipesTempFileMessageReader(),
        extras={"tablegate_command": list(cmd)},
    ) as session:
        proc = subprocess.run(
            list(cmd), env={**os.environ, **(env or {}), **session.get_bootstrap_env_vars()}, cwd=cwd, check=False
        )
    results = list(session.get_results(implicit_materializations=False))
    report = _report(session.get_custom_messages())
    descriptions = {c["name"]: c.get("result_description") for c in (report or {}).get("checks", [])}
    materialized = False
    for r in results:
        if isinstance(r, dg.AssetCheckResult) and descriptions.get(r.check_name):
            r = r._replace(description=descriptions[r.check_name])
        materialized = materialized or isinstance(r, dg.MaterializeResult)
        yield r
    if proc.returncode != 0:
        error = (report or {}).get("error") or {}
        raise dg.Failure(
            description=f"{error.get('type', 'TablegateError')}: {error.get('message', f'tablegate exited with {proc.returncode}')}",
            metadata={
                "tablegate/error_type": error.get("type", ""),
                "tablegate/exit_code": proc.returncode,
                "tablegate/outcome": (report or {}).get("outcome") or "",
            },
            allow_retries=False,
        )
    if not materialized:
        _allow_no_output(context)


def _report(messages: Sequence[Any]) -> dict | None:
    for m in messages:
        if isinstance(m, dict) and REPORT_PAYLOAD_KEY in m:
            return m[REPORT_PAYLOAD_KEY]
    return None


def _allow_no_output(context: dg.AssetExecutionContext) -> None:
    """A run that wrote nothing (skipped, or validated in place) yields no materialization.

    ``open_pipes_session`` asks Dagster to require every output of the asset, whatever
    ``output_required=False`` says; Dagster 1.13 has no public way back, so the step's flag is
    reset here. The end-to-end tests pin this against the Dagster version they install.
    """
    step = getattr(context.op_execution_context, "_step_execution_context", None)
    if step is None or not hasattr(step, "_requires_typed_event_stream"):
        raise TablegateError(
            "tablegate_dagster: this Dagster version has no step-context flag to let a run yield no "
            "materialization; use the Dagster version tablegate-dagster is tested with (1.13)"
        )
    step._requires_typed_event_stream = False
