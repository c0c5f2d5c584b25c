"""Replays a captured Pipes messages file into the channel Dagster gave this process, making each
write visible one 4 KiB page at a time, as the kernel may when a reader reads while a write is
copied in: the file then ends, for a moment, inside a message.

Usage: python replay_pipes.py CAPTURED_MESSAGES_FILE
"""

import base64
import json
import os
import sys
import time
import zlib

PAGE = 4096


def main() -> None:
    params = json.loads(zlib.decompress(base64.b64decode(os.environ["DAGSTER_PIPES_MESSAGES"])))
    with open(sys.argv[1], "rb") as f:
        captured = f.read()
    with open(params["path"], "ab", buffering=0) as out:
        offset = 0
        while offset < len(captured):
            end = min(len(captured), (offset // PAGE + 1) * PAGE)
            out.write(captured[offset:end])
            offset = end
            if offset < len(captured) and captured[offset - 1 : offset] != b"\n":
                time.sleep(0.05)  # the reader polls every 10 ms: it sees the half message


if __name__ == "__main__":
    main()
