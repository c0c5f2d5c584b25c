"""The Pipes channel loses no message: a replay against Dagster's own file reader shows the loss
that a message crossing a page boundary causes, the integration's reader receives every message
of the same bytes, and (with TABLEGATE_SLOW=1) hundreds of materializations lose none."""


import json
import os
import subprocess
import sys
from pathlib import Path

import dagster as dg
import pytest
from dagster_pipes import DAGSTER_PIPES_CONTEXT_ENV_VAR, DAGSTER_PIPES_MESSAGES_ENV_VAR, encode_env_var
from test_e2e import CHECKS, MIXED, ROWS

from tablegate_dagster import CompleteLinesMessageReader, check_specs, run_validate, tablegate_asset

REPLAY = str(Path(__file__).with_name("replay_pipes.py"))


def capture(tablegate: str, schema: str, tmp_path: Path) -> Path:
    """The messages file of a real quarantined tablegate run (its report message is ~8 KB)."""
    context, messages = tmp_path / "context.json", tmp_path / "captured"
    context.write_text(json.dumps({"asset_keys": ["orders"], "run_id": "r", "retry_number": 0, "extras": {}}))
    env = {
        **os.environ,
        DAGSTER_PIPES_CONTEXT_ENV_VAR: encode_env_var({"path": str(context)}),
        DAGSTER_PIPES_MESSAGES_ENV_VAR: encode_env_var({"path": str(messages)}),
    }
    cmd = [tablegate, "validate", "--schema", schema, "--name", "orders", "--query", ROWS.format(MIXED)]
    cmd += ["--out", str(tmp_path / "orders.parquet"), "--quarantine"]
    subprocess.run(cmd, env=env, check=True, capture_output=True)
    return messages


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")  # Dagster's reader thread dies
@pytest.mark.parametrize("reader", [dg.PipesTempFileMessageReader, CompleteLinesMessageReader])
def test_replay_split_at_pages(tablegate, schemas, tmp_path, instance, reader):
    captured = capture(tablegate, schemas["orders"], tmp_path)
    lines = captured.read_bytes().splitlines(keepends=True)
    assert max(len(line) for line in lines) > 4096, "a message crosses a page"
    ends, offset = [], 0
    for line in lines:
        offset += len(line)
        ends.append(offset)
    assert any(end % 4096 for end in ends), "some message ends inside a page"

    @dg.asset(name="orders", check_specs=check_specs(dg.AssetKey("orders"), schema=schemas["orders"], quarantine=True, executable=tablegate), output_required=False)
    def replayed(context: dg.AssetExecutionContext):
        yield from run_validate(context, [sys.executable, REPLAY, str(captured)], message_reader=reader())

    result = dg.materialize([replayed], instance=instance, raise_on_error=False)
    logs = "\n".join(e.user_message for e in instance.all_logs(result.run_id))
    evals = {e.check_name for e in result.get_asset_check_evaluations()}
    if reader is dg.PipesTempFileMessageReader:
        # Dagster's reader read half a message, its thread died, and what followed was lost.
        assert "[pipes] framework exception occurred" in logs
        errors = [
            e.dagster_event.event_specific_data.error
            for e in instance.all_logs(result.run_id)
            if "framework exception" in e.user_message
        ]
        assert errors[0].cls_name == "JSONDecodeError"
        assert evals < set(CHECKS), "the checks after the half message are lost"
        assert not result.success
        assert instance.get_latest_materialization_event(dg.AssetKey("orders")) is None
    else:
        assert "framework exception" not in logs
        assert "[pipes] did not receive" not in logs
        assert result.success
        assert evals == set(CHECKS)
        assert instance.get_latest_materialization_event(dg.AssetKey("orders")) is not None


# How many materializations test_many_materializations_lose_nothing runs: CI runs 300 (30 runs),
# TABLEGATE_DAGSTER_MATERIALIZATIONS=1000 the full thousand by hand.
MATERIALIZATIONS = int(os.environ.get("TABLEGATE_DAGSTER_MATERIALIZATIONS", "300"))


@pytest.mark.skipif(not os.environ.get("TABLEGATE_SLOW"), reason="slow: set TABLEGATE_SLOW=1")
def test_many_materializations_lose_nothing(tablegate, schemas, tmp_path, instance):
    """300 quarantining materializations (TABLEGATE_DAGSTER_MATERIALIZATIONS=1000 for a thousand),
    each sending messages longer than a page, 0 lost: every check and every materialization
    arrives. Ten assets a run; more make Dagster slower per asset."""
    per_run = 10
    runs = max(1, MATERIALIZATIONS // per_run)
    assets = [
        tablegate_asset(
            name=f"orders_{i}",
            schema=schemas["orders"],
            query=ROWS.format(MIXED),
            out=str(tmp_path / f"orders_{i}.parquet"),
            quarantine=True,
            executable=tablegate,
        )
        for i in range(per_run)
    ]
    lost = 0
    for _ in range(runs):
        result = dg.materialize(assets, instance=instance, raise_on_error=False)
        logs = "\n".join(e.user_message for e in instance.all_logs(result.run_id))
        assert "framework exception" not in logs and "[pipes] did not receive" not in logs
        mats = {e.asset_key for e in result.get_asset_materialization_events()}
        lost += per_run - len(mats)
        lost += per_run * len(CHECKS) - len(result.get_asset_check_evaluations())
        assert result.success
    assert lost == 0
