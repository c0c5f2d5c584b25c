"""What a production deployment relies on, through a real Dagster: the addresses Dagster records
name the table tablegate wrote from any folder, a Duration column loads into polars, the
materialization carries the columns and the written table's data version, a RetryPolicy retries
a run that did not reach a validation outcome (and only that), and a definition refuses a
binary of another release and extra_args that contradict the asset's own arguments."""

import hashlib
import json
from datetime import timedelta
from pathlib import Path

import dagster as dg
import polars as pl
import pytest
from test_e2e import INVALID, ROWS, VALID, Run

from tablegate_dagster import (
    DAGSTER_INTEGRATION,
    TablegateError,
    tablegate_asset,
    tablegate_collection_asset,
)


@dg.asset(ins={"orders": dg.AssetIn("orders")})
def ids(orders: pl.DataFrame) -> dg.MaterializeResult:
    return dg.MaterializeResult(metadata={"ids": ",".join(orders["id"].to_list())})


def test_relative_out_with_cwd_records_and_loads_absolute_addresses(tablegate, schemas, tmp_path, instance, monkeypatch):
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    (project / "sub").mkdir(parents=True)
    (elsewhere / "wh2").mkdir(parents=True)
    # A stale table where the relative address would point from the Dagster process's folder.
    (project / "wh2").mkdir()
    pl.DataFrame({"id": ["STALE"], "amount": [0.0], "note": [None]}).write_parquet(project / "wh2" / "orders.parquet")
    monkeypatch.chdir(project)
    asset = tablegate_asset(
        name="orders",
        schema=schemas["orders"],
        query=ROWS.format("('x', 1.0, NULL), ('y', 2.0, NULL), ('bad', -1.0, NULL)"),
        out="wh2/orders.parquet",
        quarantine=True,
        cwd="sub",  # relative to the Dagster process's folder, as subprocess takes it
        executable=tablegate,
    )
    run = Run(instance, asset, ids)
    assert run.result.success
    table = project / "sub" / "wh2" / "orders.parquet"
    quarantine = project / "sub" / "wh2" / "orders_quarantine.parquet"
    mat = run.materialized("orders")
    assert mat.metadata["tablegate/table_address"].value == str(table)
    assert mat.metadata["dataframely/error_rows_address"].value == str(quarantine)
    assert run.value("dy_rule__amount__min", "dataframely/error_rows_address") == str(quarantine)
    assert run.materialized("ids").metadata["ids"].value == "x,y", "the table tablegate wrote, not the stale one"

    # A later run from another folder loads the same table (the recorded address is absolute).
    monkeypatch.chdir(elsewhere)
    again = dg.materialize([asset, ids], instance=instance, selection=[ids.key])
    assert again.success
    assert run.materialized("ids").metadata["ids"].value == "x,y"


def test_duckdb_file_address_is_absolute(tablegate, schemas, tmp_path, instance, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    asset = tablegate_asset(
        name="orders",
        schema=schemas["orders"],
        query=ROWS.format(VALID),
        out="wh.duckdb:main.orders",
        cwd=str(tmp_path / "sub"),
        executable=tablegate,
    )
    run = Run(instance, asset, ids)
    assert run.result.success
    assert run.materialized("orders").metadata["tablegate/table_address"].value == f"{tmp_path / 'sub' / 'wh.duckdb'}:main.orders"
    assert run.materialized("ids").metadata["ids"].value == "a,b"


DURATIONS = """\
schema: Waits
columns:
  - name: id
    type: String
  - name: wait
    type: Duration
    nullable: true
"""


@dg.asset(ins={"waits": dg.AssetIn("waits")})
def wait_seconds(waits: pl.DataFrame) -> dg.MaterializeResult:
    return dg.MaterializeResult(
        metadata={"dtype": str(waits.schema["wait"]), "waits": [None if w is None else w.total_seconds() for w in waits["wait"]]}
    )


@dg.asset(ins={"waits": dg.AssetIn("waits")})
def wait_lazy(waits: pl.LazyFrame) -> dg.MaterializeResult:
    return dg.MaterializeResult(metadata={"max": waits.select(pl.col("wait").max()).collect().item().total_seconds()})


def test_duration_loads_into_polars(tablegate, tmp_path, instance):
    (tmp_path / "waits.yaml").write_text(DURATIONS)
    asset = tablegate_asset(
        name="waits",
        schema=str(tmp_path / "waits.yaml"),
        query="SELECT * FROM (VALUES ('a', INTERVAL 90 MINUTE), ('b', INTERVAL '2 days 3 milliseconds'), ('c', NULL)) t(id, wait)",
        out=str(tmp_path / "waits.parquet"),
        executable=tablegate,
    )
    run = Run(instance, asset, wait_seconds, wait_lazy)
    assert run.result.success
    got = run.materialized("wait_seconds").metadata
    assert got["dtype"].value == "Duration(time_unit='us')"
    assert got["waits"].value == [5400.0, timedelta(days=2, milliseconds=3).total_seconds(), None]
    assert run.materialized("wait_lazy").metadata["max"].value == timedelta(days=2, milliseconds=3).total_seconds()


def test_materialization_has_columns_and_the_tables_data_version(tablegate, schemas, tmp_path, instance):
    out = tmp_path / "orders.parquet"

    def materialize(rows):
        asset = tablegate_asset(name="orders", schema=schemas["orders"], query=ROWS.format(rows), out=str(out), executable=tablegate)
        assert Run(instance, asset).result.success
        return instance.get_latest_materialization_event(dg.AssetKey("orders")).asset_materialization

    first = materialize(VALID)
    columns = first.metadata["dagster/column_schema"].value
    assert [(c.name, c.type) for c in columns.columns] == [("id", "String"), ("amount", "Float64"), ("note", "String")]
    assert first.tags["dagster/data_version"] == hashlib.sha256(out.read_bytes()).hexdigest()
    assert materialize(VALID).tags["dagster/data_version"] == first.tags["dagster/data_version"], "same rows, same version"
    assert materialize("('a', 1.0, NULL)").tags["dagster/data_version"] == hashlib.sha256(out.read_bytes()).hexdigest()
    assert instance.get_latest_materialization_event(dg.AssetKey("orders")).asset_materialization.tags[
        "dagster/data_version"
    ] != first.tags["dagster/data_version"]


def attempts(result) -> int:
    return 1 + sum(e.event_type_value == "STEP_UP_FOR_RETRY" for e in result.all_events)


def test_retry_policy_retries_exit_2_only(tablegate, schemas, tmp_path, instance):
    retry = dg.RetryPolicy(max_retries=2)
    not_landed = tablegate_asset(
        name="orders",
        schema=schemas["orders"],
        input=str(tmp_path / "land" / "orders.parquet"),
        out=str(tmp_path / "orders.parquet"),
        retry_policy=retry,
        executable=tablegate,
    )
    result = dg.materialize([not_landed], instance=instance, raise_on_error=False)
    assert not result.success
    assert attempts(result) == 3, "the input may land before a retry"
    failure = result.get_step_failure_events()[-1].step_failure_data.user_failure_data
    assert failure.metadata["tablegate/exit_code"].value == 2

    invalid = tablegate_asset(
        name="orders", schema=schemas["orders"], query=ROWS.format(INVALID), out=str(tmp_path / "orders.parquet"), retry_policy=retry, executable=tablegate
    )
    result = dg.materialize([invalid], instance=instance, raise_on_error=False)
    assert not result.success
    assert attempts(result) == 1, "a validation outcome is the same on a retry"
    assert result.get_step_failure_events()[0].step_failure_data.user_failure_data.metadata["tablegate/exit_code"].value == 1


def fake_tablegate(tmp_path: Path, script: str) -> str:
    path = tmp_path / "tablegate"
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(0o755)
    return str(path)


@pytest.mark.parametrize(
    "script, says",
    [
        # A tablegate older than `version --format json` (cobra's usage error).
        ('echo \'Error: unknown flag: --format\' >&2; exit 2\n', r"older or not tablegate \(`version --format json` exited 2: Error: unknown flag: --format\)"),
        (f"echo '{json.dumps({'tablegate_version': 'v9.0.0', 'dagster_integration': DAGSTER_INTEGRATION + 1})}'\n", r"is tablegate v9.0.0 \(Dagster integration 2\)"),
        ("echo 'not json'\n", r"older or not tablegate \(`version --format json` exited 0: not json\)"),
    ],
)
def test_a_binary_of_another_release_is_refused_at_definition(schemas, tmp_path, script, says):
    executable = fake_tablegate(tmp_path, script)
    with pytest.raises(TablegateError, match=r"needs a tablegate binary of its own release \(Dagster integration 1\)") as e:
        tablegate_asset(name="orders", schema=schemas["orders"], query=ROWS.format(VALID), executable=executable)
    assert e.match(says)
    assert "install the tablegate-dagster wheel that carries its binary" in str(e.value)


def test_the_binary_speaks_this_package(tablegate):
    from tablegate_dagster import check_binary

    info = check_binary(tablegate)
    assert info["dagster_integration"] == DAGSTER_INTEGRATION
    assert info["duckdb_version"].startswith("v")


@pytest.mark.parametrize(
    "extra, says",
    [
        (["--out", "x.parquet"], "extra_args '--out': the asset sets --out itself .* pass out= instead"),
        (["--granularity=column"], "extra_args '--granularity=column': .* pass granularity= instead"),
        (["--quarantine"], "pass quarantine= instead"),
        (["--input-dir", "d"], "several related tables are tablegate_collection_asset's"),
    ],
)
def test_extra_args_the_asset_models_are_refused(tablegate, schemas, tmp_path, extra, says):
    with pytest.raises(TablegateError, match=says):
        tablegate_asset(name="orders", schema=schemas["orders"], query=ROWS.format(VALID), out=str(tmp_path / "o.parquet"), extra_args=extra, executable=tablegate)


def test_extra_args_of_other_flags_pass(tablegate, schemas, tmp_path, instance):
    asset = tablegate_asset(
        name="orders",
        schema=schemas["orders"],
        query=ROWS.format(VALID),
        out=str(tmp_path / "o.parquet"),
        extra_args=["--timeout", "10m", "--threads=1"],
        executable=tablegate,
    )
    assert Run(instance, asset).result.success


def test_collection_extra_args_the_asset_models_are_refused(tablegate, tmp_path):
    with pytest.raises(TablegateError, match="extra_args '--out-dir=x': .* pass out_dir= instead"):
        tablegate_collection_asset(collection=str(tmp_path / "c.yaml"), extra_args=["--out-dir=x"], executable=tablegate)
    with pytest.raises(TablegateError, match="the checks the asset declares are listed without it"):
        tablegate_collection_asset(collection=str(tmp_path / "c.yaml"), extra_args=["--granularity", "column"], executable=tablegate)
