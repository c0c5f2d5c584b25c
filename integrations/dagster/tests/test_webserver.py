"""The asset's checks page in Dagster's webserver, as a user sees it, opened by a real headless
Chromium: every tablegate check is listed with its status. The screenshot goes to
TABLEGATE_DAGSTER_SCREENSHOT when set (docs/dagster-checks.png is made this way)."""

import os
import shutil
import socket
import subprocess
import sys
import textwrap
import time
import urllib.request
from pathlib import Path

import pytest
import tablegate_dagster
from test_e2e import CHECKS, MIXED, ROWS

pytest.importorskip("dagster_webserver")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def chromium(*args: str) -> subprocess.CompletedProcess:
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1400,900"]
    cmd += ["--virtual-time-budget=20000", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180, check=True)


@pytest.mark.skipif(CHROMIUM is None, reason="needs chromium")
def test_checks_page(tablegate, schemas, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    # No first-visit community dialog over the page, no telemetry.
    (home / "dagster.yaml").write_text("nux:\n  enabled: false\ntelemetry:\n  enabled: false\n")
    defs = tmp_path / "defs.py"
    defs.write_text(
        textwrap.dedent(
            f"""
            import dagster as dg
            from tablegate_dagster import tablegate_asset

            orders = tablegate_asset(
                name="orders", schema={schemas['orders']!r}, query={ROWS.format(MIXED)!r},
                out={str(tmp_path / 'out' / 'orders.parquet')!r}, quarantine=True, executable={tablegate!r},
            )
            defs = dg.Definitions(assets=[orders])
            """
        )
    )
    env = {
        **os.environ,
        "DAGSTER_HOME": str(home),
        "PYTHONPATH": str(Path(tablegate_dagster.__file__).parent.parent),
    }
    materialize = [sys.executable, "-m", "dagster", "asset", "materialize", "-f", str(defs), "--select", "orders"]
    subprocess.run(materialize, env=env, cwd=tmp_path, check=True, capture_output=True, timeout=300)

    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "dagster_webserver", "-f", str(defs), "-h", "127.0.0.1", "-p", str(port)],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(url + "/server_info", timeout=5)
                break
            except OSError:
                assert time.monotonic() < deadline, "the webserver did not start"
                time.sleep(1)
        page = f"{url}/assets/orders?view=checks&checkDetail=dy_rule__amount__min"
        dom = chromium("--dump-dom", page).stdout
        for name in CHECKS:
            assert name in dom, name
        assert "Failed" in dom and "Succeeded" in dom
        shot = tmp_path / "checks.png"
        chromium(f"--screenshot={shot}", page)
        data = shot.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
        if os.environ.get("TABLEGATE_DAGSTER_SCREENSHOT"):
            shutil.copy(shot, os.environ["TABLEGATE_DAGSTER_SCREENSHOT"])
    finally:
        server.terminate()
        server.wait(timeout=30)
