"""Table checks in Dagster: declared as asset checks after the rule checks, evaluated with their
value, bounds and anomaly band as metadata, and a failing error table check fails the step with
TableCheckError and materializes nothing."""

from __future__ import annotations

import dagster as dg

from tablegate_dagster import check_specs, tablegate_asset

SCHEMA = """\
schema: Volume
columns:
  - name: n
    type: Int64
    min: 0
table_checks:
  - name: enough_rows
    sql: count(*) >= {enough}
  - name: mean
    metric: avg(n)
    min: 0
    max: 100000
    severity: warn
  - name: volume
    metric: count(*)
    anomaly: {{min_history: 2}}
"""
TABLE_CHECKS = ["dy_table__enough_rows", "dy_table__mean", "dy_table__volume"]


def volume_asset(tablegate, tmp_path, rows: int, enough: int = 1):
    schema = tmp_path / "volume.yaml"
    schema.write_text(SCHEMA.format(enough=enough))
    return tablegate_asset(
        name="volume",
        schema=str(schema),
        executable=tablegate,
        query=f"SELECT range AS n FROM range({rows})",
        out=str(tmp_path / "out" / "volume.parquet"),
        extra_args=["--history", str(tmp_path / "runs.duckdb")],
    )


def materialize(instance, asset):
    result = dg.materialize([asset], instance=instance, raise_on_error=False)
    return result, {e.check_name: e for e in result.get_asset_check_evaluations()}


def test_table_checks_are_asset_checks(tablegate, tmp_path, instance):
    schema = tmp_path / "volume.yaml"
    schema.write_text(SCHEMA.format(enough=1))
    specs = check_specs(dg.AssetKey("volume"), schema=str(schema), executable=tablegate)
    assert [s.name for s in specs][-3:] == TABLE_CHECKS, "after the rule checks"
    blocking = {s.name: s.blocking for s in specs}
    assert blocking["dy_table__enough_rows"] and not blocking["dy_table__mean"]

    for rows in (100, 110, 90):
        result, evals = materialize(instance, volume_asset(tablegate, tmp_path, rows))
        assert result.success
    assert evals["dy_table__mean"].metadata["tablegate/value"].value == 44.5
    assert evals["dy_table__mean"].metadata["tablegate/min"].value == 0
    assert evals["dy_table__mean"].metadata["tablegate/max"].value == 100000
    baseline = evals["dy_table__volume"].metadata["tablegate/baseline"].value
    assert baseline["runs"] == 2 and baseline["median"] == 105
    assert evals["dy_table__volume"].passed

    # A 10x jump fails the volume band: the step fails, nothing is materialized.
    result, evals = materialize(instance, volume_asset(tablegate, tmp_path, 1000))
    assert not result.success
    assert not evals["dy_table__volume"].passed
    assert evals["dy_table__volume"].severity == dg.AssetCheckSeverity.ERROR
    assert "above the band's high" in evals["dy_table__volume"].description
    failure = result.get_step_failure_events()[0].step_failure_data
    text = (failure.error.to_string() if failure.error else "") + (failure.user_failure_data.description if failure.user_failure_data else "")
    assert "TableCheckError" in text or "table_check_failed" in text or "Table check" in text


def test_failing_condition(tablegate, tmp_path, instance):
    result, evals = materialize(instance, volume_asset(tablegate, tmp_path, 10, enough=1000))
    assert not result.success
    assert evals["dy_table__enough_rows"].metadata["tablegate/value"].value is False
    assert [name for name, e in evals.items() if not e.passed] == ["dy_table__enough_rows"]
    mat = instance.get_latest_materialization_event(dg.AssetKey("volume"))
    assert mat is None, "a failing table check writes nothing"
