"""The Pipes session tablegate runs in: a message reader that hands Dagster whole lines only, and a
session built from Dagster's public Pipes pieces."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import dagster as dg
from dagster_pipes import DAGSTER_PIPES_CONTEXT_ENV_VAR, DAGSTER_PIPES_MESSAGES_ENV_VAR, encode_env_var

_POLL_SECONDS = 0.01


class CompleteLinesMessageReader(dg.PipesMessageReader):
    """Tails a temporary messages file and hands Dagster only complete lines.

    Dagster's own ``PipesTempFileMessageReader`` reads the file with ``readline()`` while the
    process writes it. A write to a regular file becomes visible page by page, so a message longer
    than what is left of a 4 KiB page can be read half-written; ``readline()`` then returns the
    fragment, ``json.loads`` raises, and the reader thread dies with every later message. This
    reader keeps a fragment until its newline arrives, reads the file to its end once more after
    the process exited, and reports a line that is not JSON without dropping the ones after it.
    """

    @contextmanager
    def read_messages(self, handler: dg.PipesMessageHandler) -> Iterator[Mapping[str, Any]]:
        with tempfile.TemporaryDirectory(prefix="tablegate-pipes-") as tmp:
            path = os.path.join(tmp, "messages")
            open(path, "wb").close()
            done = threading.Event()
            thread = threading.Thread(target=self._tail, args=(path, handler, done), daemon=True)
            thread.start()
            try:
                yield {"path": path, "include_stdio_in_messages": False}
            finally:
                done.set()
                thread.join()

    def _tail(self, path: str, handler: dg.PipesMessageHandler, done: threading.Event) -> None:
        pending = b""
        with open(path, "rb") as f:
            while True:
                # Read `done` before reading the file: once it is set, the process has exited, so
                # the read that follows sees every byte it wrote.
                finished = done.is_set()
                chunk = f.read()
                if chunk:
                    *lines, pending = (pending + chunk).split(b"\n")
                    for line in lines:
                        self._handle(handler, line)
                elif finished:
                    break
                else:
                    time.sleep(_POLL_SECONDS)
        # A last line without its newline: the process was killed while writing it.
        self._handle(handler, pending)

    @staticmethod
    def _handle(handler: dg.PipesMessageHandler, line: bytes) -> None:
        if not line.strip():
            return
        try:
            handler.handle_message(json.loads(line))
        except Exception:
            handler.report_pipes_framework_exception("tablegate Pipes message reader", sys.exc_info())

    def no_messages_debug_text(self) -> str:
        return "Attempted to read messages from a local temporary file."


@dataclass
class Completed:
    """What a finished Pipes run reported, and its exit status."""

    returncode: int
    results: Sequence[dg.AssetCheckResult | dg.MaterializeResult]
    custom_messages: Sequence[Any]


def run_in_pipes_session(
    context: dg.AssetExecutionContext,
    cmd: Sequence[str],
    *,
    extras: Mapping[str, Any],
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    message_reader: dg.PipesMessageReader | None = None,
    partition_key: str | None = None,
) -> Completed:
    """Run ``cmd`` as a Pipes process and return what it reported, whatever its exit status.

    ``dagster.open_pipes_session`` would put the step in a mode that requires every output, so a
    run that wrote nothing (skipped, validated in place) could not end without a materialization;
    and ``PipesSubprocessClient.run`` drops every result of a non-zero exit. The session is
    therefore built from the public pieces: a context injector, a message handler, a reader.
    ``partition_key`` is the one key of a range step the process validates.
    """
    handler = dg.PipesMessageHandler(context, message_reader or CompleteLinesMessageReader())
    with (
        dg.PipesTempFileContextInjector().inject_context(_context_data(context, extras, partition_key)) as context_params,
        handler.handle_messages() as message_params,
    ):
        proc = subprocess.run(
            list(cmd),
            env={
                **os.environ,
                **(env or {}),
                DAGSTER_PIPES_CONTEXT_ENV_VAR: encode_env_var(context_params),
                DAGSTER_PIPES_MESSAGES_ENV_VAR: encode_env_var(message_params),
            },
            cwd=cwd,
            check=False,
        )
    if not handler.received_opened_message:
        context.log.warning(
            f"[pipes] did not receive any messages from {cmd[0]} (exit {proc.returncode}); see its stderr above"
        )
    elif not handler.received_closed_message:
        context.log.warning(f"[pipes] {cmd[0]} exited without closing its Pipes session; some results may be missing")
    return Completed(proc.returncode, handler.get_reported_results(), handler.get_custom_messages())


def _context_data(
    context: dg.AssetExecutionContext, extras: Mapping[str, Any], partition_key: str | None
) -> dict[str, Any]:
    """The Pipes context (the protocol's ``PipesContextData``) of the step, or of one partition
    of a range step."""
    keys = sorted(context.selected_asset_keys)
    partition_range = None
    if partition_key is not None:
        partition_range = {"start": partition_key, "end": partition_key}
    elif context.has_partition_key:
        partition_key = context.partition_key
        r = context.partition_key_range
        partition_range = {"start": r.start, "end": r.end}
    return {
        "asset_keys": [k.to_escaped_user_string() for k in keys],
        "code_version_by_asset_key": {
            k.to_escaped_user_string(): context.assets_def.code_versions_by_key.get(k) for k in keys
        },
        "provenance_by_asset_key": {k.to_escaped_user_string(): None for k in keys},
        "partition_key": partition_key,
        "partition_key_range": partition_range,
        "partition_time_window": None,
        "run_id": context.run.run_id,
        "job_name": context.job_name,
        "retry_number": context.retry_number,
        "extras": dict(extras),
    }
