"""The platform wheel carries tablegate: with no Go and no tablegate on PATH, an asset that names
no executable runs the bundled binary (CI sets TABLEGATE_EXPECT_BUNDLED=1 in the wheel's venv)."""

import os
import subprocess
from pathlib import Path

import pytest
import tablegate_dagster
from test_e2e import ROWS, VALID, Run

from tablegate_dagster import find_tablegate, tablegate_asset

BUNDLED = Path(tablegate_dagster.__file__).with_name("bin") / "tablegate"
wheel_only = pytest.mark.skipif(
    not os.environ.get("TABLEGATE_EXPECT_BUNDLED"), reason="the installed platform wheel only: set TABLEGATE_EXPECT_BUNDLED=1"
)


@pytest.mark.skipif(BUNDLED.exists(), reason="a pure install (no bundled binary)")
def test_no_binary_says_what_to_do(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(tablegate_dagster.TablegateError, match="not the platform wheel .* not on PATH"):
        find_tablegate()
    (tmp_path / "tablegate").write_text("#!/bin/sh\n")
    (tmp_path / "tablegate").chmod(0o755)
    assert find_tablegate() == str(tmp_path / "tablegate")


@wheel_only
def test_bundled_binary(schemas, tmp_path, instance):
    binary = Path(find_tablegate())
    assert binary == BUNDLED, "the wheel's own binary"
    assert os.access(binary, os.X_OK)
    version = subprocess.run([str(binary), "version"], capture_output=True, text=True, check=True)
    assert "tablegate" in version.stdout.lower()
    asset = tablegate_asset(name="orders", schema=schemas["orders"], query=ROWS.format(VALID), out=str(tmp_path / "o.parquet"))
    run = Run(instance, asset)
    assert run.result.success
    assert run.materialized("orders").metadata["dagster/row_count"].value == 2
