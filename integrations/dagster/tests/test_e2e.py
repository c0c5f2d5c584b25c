"""End to end against a real Dagster: tablegate_asset in dagster.materialize, in process.

Each test reads back what Dagster recorded: the check evaluations (names, passed, severity,
metadata), the materialization (only when tablegate wrote the table), the asset's health from the
recorded checks, the step's failure with tablegate's error, and whether a downstream asset ran.
"""

from __future__ import annotations

import asyncio
import os

import dagster as dg
import pytest
from dagster._core.definitions.asset_health.asset_check_health import AssetCheckHealthState
from dagster._core.definitions.asset_health.asset_health import AssetHealthStatus
from dagster._core.loader import LoadingContextForTest

from tablegate_dagster import TablegateError, check_specs, tablegate_asset

ROWS = "SELECT id::VARCHAR AS id, amount::DOUBLE AS amount, note::VARCHAR AS note FROM (VALUES {}) t(id, amount, note)"
# b -1 (amount|min); g -2 (amount|min, primary_key); g 3 (primary_key); c fails only the warn rule.
MIXED = "('a', 1.0, NULL), ('b', -1.0, 'hi'), ('c', 2.0, 'toolong'), ('g', -2.0, 'x'), ('g', 3.0, NULL), ('f', 4.0, NULL)"
VALID = "('a', 1.0, NULL), ('b', 2.5, 'ok')"
INVALID = "('x', -1.0, NULL), ('y', -2.0, 'z')"
RULE_CHECKS = [
    "dy_rule__primary_key",
    "dy_rule__id__nullability",
    "dy_rule__amount__nullability",
    "dy_rule__amount__min",
    "dy_rule__amount__inf",
    "dy_rule__amount__nan",
    "dy_rule__note__max_length",
]
CHECKS = ["dy_schema__columns", *RULE_CHECKS]
ERROR, WARN = dg.AssetCheckSeverity.ERROR, dg.AssetCheckSeverity.WARN


def orders(tablegate, schemas, tmp_path, **kwargs):
    kwargs.setdefault("out", str(tmp_path / "out" / "orders.parquet"))
    return tablegate_asset(name="orders", schema=schemas["orders"], executable=tablegate, **kwargs)


@dg.asset(deps=["orders"])
def downstream() -> dg.MaterializeResult:
    return dg.MaterializeResult()


class Run:
    """One dagster.materialize of the assets, and what the instance recorded."""

    def __init__(self, instance, *assets):
        self.instance = instance
        self.result = dg.materialize(list(assets), instance=instance, raise_on_error=False)
        self.evals = {e.check_name: e for e in self.result.get_asset_check_evaluations()}
        self.order = [e.check_name for e in self.result.get_asset_check_evaluations()]
        logs = "\n".join(e.user_message for e in instance.all_logs(self.result.run_id))
        # tablegate opened and closed the Pipes session, and Dagster read every message.
        assert "[pipes] did not receive" not in logs
        assert "framework exception" not in logs
        assert "[pipes] external process successfully opened dagster pipes" in logs

    def materialized(self, key: str) -> dg.AssetMaterialization | None:
        ev = self.instance.get_latest_materialization_event(dg.AssetKey(key))
        return ev.asset_materialization if ev else None

    def health(self, key: str = "orders") -> AssetHealthStatus:
        check_keys = {dg.AssetCheckKey(dg.AssetKey(key), n) for n in CHECKS}
        state = asyncio.run(
            AssetCheckHealthState.compute_for_asset_checks(check_keys, LoadingContextForTest(self.instance))
        )
        return state.health_status

    def failure(self) -> str:
        failures = self.result.get_step_failure_events()
        assert failures, "the step should have failed"
        data = failures[0].step_failure_data
        text = data.error.to_string() if data.error else ""
        if data.user_failure_data is not None:
            text += " " + (data.user_failure_data.description or "")
        return text

    def value(self, check: str, key: str):
        return self.evals[check].metadata[key].value


def test_check_specs_from_tablegate(tablegate, schemas):
    specs = check_specs(dg.AssetKey("orders"), schema=schemas["orders"], executable=tablegate)
    assert [s.name for s in specs] == CHECKS
    blocking = {s.name: s.blocking for s in specs}
    assert blocking["dy_schema__columns"] and blocking["dy_rule__amount__min"]
    assert not blocking["dy_rule__note__max_length"], "a warn rule never blocks"
    assert specs[4].description == "amount >= 0"
    quarantined = check_specs(dg.AssetKey("orders"), schema=schemas["orders"], quarantine=True, executable=tablegate)
    assert [s.name for s in quarantined if s.blocking] == ["dy_schema__columns"]
    collapsed = check_specs(dg.AssetKey("orders"), schema=schemas["orders"], granularity="column", executable=tablegate)
    assert [s.name for s in collapsed] == ["dy_schema__columns", "dy_col__id", "dy_col__amount", "dy_col__note", "dy_schema__rules"]
    with pytest.raises(TablegateError, match="cannot run"):
        check_specs(dg.AssetKey("orders"), schema=schemas["orders"], executable="/nonexistent/tablegate")
    with pytest.raises(TablegateError, match="exit 2"):
        check_specs(dg.AssetKey("orders"), schema=schemas["orders"] + ".missing", executable=tablegate)


def test_all_valid(tablegate, schemas, tmp_path, instance):
    run = Run(instance, orders(tablegate, schemas, tmp_path, query=ROWS.format(VALID)), downstream)
    assert run.result.success
    assert run.order == CHECKS, "every declared check, in tablegate's order"
    for name, e in run.evals.items():
        assert e.passed, name
        assert e.severity == (ERROR if name == "dy_schema__columns" else WARN), name
    assert run.evals["dy_rule__amount__min"].description == "No row failed."
    assert run.evals["dy_schema__columns"].description == "Every column matches."
    assert run.value("dy_rule__amount__min", "dataframely/rule") == "amount|min"
    assert run.value("dy_rule__amount__min", "dataframely/rule_expr") == "\"amount\" >= CAST('0' AS DOUBLE)"
    mat = run.materialized("orders")
    assert mat is not None
    assert mat.metadata["dagster/row_count"].value == 2
    assert mat.metadata["tablegate/table_address"].value == str(tmp_path / "out" / "orders.parquet")
    preview = mat.metadata["tablegate/preview"].value
    assert [r.data for r in preview.records] == [{"id": "a", "amount": 1.0, "note": None}, {"id": "b", "amount": 2.5, "note": "ok"}]
    assert run.materialized("downstream") is not None
    assert run.health() == AssetHealthStatus.HEALTHY


def test_aborted_blocks_downstream(tablegate, schemas, tmp_path, instance):
    run = Run(instance, orders(tablegate, schemas, tmp_path, query=ROWS.format(MIXED)), downstream)
    assert not run.result.success
    assert run.order == CHECKS, "the checks are recorded although the run failed"
    e = run.evals["dy_rule__amount__min"]
    assert (e.passed, e.severity) == (False, ERROR)
    assert e.description == "2 rows failed."
    assert run.value("dy_rule__amount__min", "dataframely/failed_row_count") == 2
    examples = run.value("dy_rule__amount__min", "dataframely/failed_examples")
    assert [r.data for r in examples.records] == [
        {"id": "b", "amount": -1.0, "note": "hi"},
        {"id": "g", "amount": -2.0, "note": "x"},
    ]
    assert [c.name for c in examples.schema.columns] == ["id", "amount", "note"]
    warn = run.evals["dy_rule__note__max_length"]
    assert (warn.passed, warn.severity) == (False, WARN), "a warn rule fails at WARN"
    passed = run.evals["dy_rule__amount__nan"]
    assert (passed.passed, passed.severity) == (True, WARN)
    assert "ValidationAbortError" in run.failure()
    assert "failed Orders validation" in run.failure()
    assert run.materialized("orders") is None, "nothing was written"
    assert not os.path.exists(tmp_path / "out" / "orders.parquet")
    assert run.materialized("downstream") is None, "the downstream asset does not run"
    assert run.health() == AssetHealthStatus.DEGRADED


def test_quarantined(tablegate, schemas, tmp_path, instance):
    asset = orders(tablegate, schemas, tmp_path, query=ROWS.format(MIXED), quarantine=True, quarantine_name="orders__error_rows")
    run = Run(instance, asset, downstream)
    assert run.result.success, "a quarantine takes the blocking away"
    quarantine = str(tmp_path / "out" / "orders__error_rows.parquet")
    e = run.evals["dy_rule__amount__min"]
    assert (e.passed, e.severity) == (False, ERROR), "a quarantined error rule still fails at ERROR"
    for name in CHECKS:
        assert run.value(name, "dataframely/error_rows_address") == quarantine, name
    mat = run.materialized("orders")
    assert mat.metadata["dagster/row_count"].value == 3
    assert mat.metadata["dataframely/error_rows_address"].value == quarantine
    by_rules = {r.data["rules"]: r.data["count"] for r in mat.metadata["tablegate/invalid_by_rules"].value.records}
    assert by_rules == {"dy_rule__amount__min": 1, "dy_rule__amount__min, dy_rule__primary_key": 1, "dy_rule__primary_key": 1}
    assert os.path.exists(quarantine)
    assert run.materialized("downstream") is not None
    assert run.health() == AssetHealthStatus.DEGRADED, "as dagster-dataframely: an error rule failed"


def test_warn_only_is_warning(tablegate, schemas, tmp_path, instance):
    run = Run(instance, orders(tablegate, schemas, tmp_path, query=ROWS.format("('a', 1.0, 'toolong')")))
    assert run.result.success
    assert (run.evals["dy_rule__note__max_length"].passed, run.evals["dy_rule__note__max_length"].severity) == (False, WARN)
    assert run.materialized("orders").metadata["dagster/row_count"].value == 1
    assert run.health() == AssetHealthStatus.WARNING


def test_no_valid_rows(tablegate, schemas, tmp_path, instance):
    run = Run(instance, orders(tablegate, schemas, tmp_path, query=ROWS.format(INVALID), quarantine=True), downstream)
    assert not run.result.success
    assert "NoValidRowsError" in run.failure()
    quarantine = str(tmp_path / "out" / "orders_quarantine.parquet")
    assert run.value("dy_rule__amount__min", "dataframely/error_rows_address") == quarantine
    assert run.value("dy_rule__amount__min", "dataframely/failed_row_count") == 2
    assert os.path.exists(quarantine), "the invalid rows are written before the error"
    assert run.materialized("orders") is None
    assert run.materialized("downstream") is None
    assert run.health() == AssetHealthStatus.DEGRADED


def test_column_schema_mismatch(tablegate, schemas, tmp_path, instance):
    run = Run(instance, orders(tablegate, schemas, tmp_path, query="SELECT 'a' AS id, 1::DECIMAL(18,3) AS amount"), downstream)
    assert not run.result.success
    assert run.order == ["dy_schema__columns"], "only the column check reports"
    e = run.evals["dy_schema__columns"]
    assert (e.passed, e.severity) == (False, ERROR)
    assert e.description == "2 columns do not match: amount, note."
    errors = run.value("dy_schema__columns", "dataframely/column_schema_errors")
    assert [r.data for r in errors.records] == [
        {"column": "amount", "expected": "Float64", "actual": "DECIMAL(18,3)"},
        {"column": "note", "expected": "String", "actual": "<missing>"},
    ]
    assert "ColumnSchemaError" in run.failure()
    assert run.materialized("orders") is None
    assert run.materialized("downstream") is None
    assert run.health() == AssetHealthStatus.DEGRADED


def test_skipped(tablegate, schemas, tmp_path, instance):
    asset = orders(tablegate, schemas, tmp_path, input=str(tmp_path / "none" / "*.parquet"), skip_missing=True)
    run = Run(instance, asset, downstream)
    assert run.result.success, "no source data is not a failure"
    assert run.order == CHECKS
    assert all(e.passed for e in run.evals.values())
    assert run.materialized("orders") is None, "nothing was written, so no materialization"
    assert run.materialized("downstream") is None, "nothing new upstream: Dagster skips it"
    assert run.health() == AssetHealthStatus.HEALTHY


def test_in_place(tablegate, schemas, tmp_path, instance):
    run = Run(instance, orders(tablegate, schemas, tmp_path, query=ROWS.format(VALID), out=None))
    assert run.result.success
    assert run.order == CHECKS and all(e.passed for e in run.evals.values())
    assert run.materialized("orders") is None, "validated in place: nothing written"
    assert not os.path.exists(tmp_path / "out")


def test_usage_error_fails_with_the_message(tablegate, schemas, tmp_path, instance):
    asset = orders(tablegate, schemas, tmp_path, query=ROWS.format(VALID), extra_args=["--threads", "-1"])
    run = Run(instance, asset)
    assert not run.result.success
    assert "UsageError" in run.failure() and "--threads -1" in run.failure()
    assert run.evals == {}


def test_nested_sample(tablegate, schemas, tmp_path, instance):
    query = (
        "SELECT * FROM (VALUES (1::BIGINT, ['ab', 'c'], {'city': 'Zürich', 'zip': '8000'}), "
        "(2, ['abc'], {'city': 'Bern', 'zip': NULL})) t(id, tags, address)"
    )
    asset = tablegate_asset(name="shop", schema=schemas["shop"], query=query, out=str(tmp_path / "shop.parquet"), executable=tablegate)
    run = Run(instance, asset)
    assert not run.result.success
    e = run.evals["dy_rule__tags__inner_min_length"]
    assert (e.passed, e.severity) == (False, ERROR)
    examples = run.evals["dy_rule__tags__inner_min_length"].metadata["dataframely/failed_examples"].value
    assert [r.data for r in examples.records] == [
        {"id": 1, "tags": '["ab","c"]', "address": '{"city":"Zürich","zip":"8000"}'},
    ], "nested values go as JSON text: Dagster takes scalar cells only"
    zip_check = run.evals["dy_rule__address__inner_zip_nullability"]
    assert zip_check.metadata["dataframely/failed_row_count"].value == 1
