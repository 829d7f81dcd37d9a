"""One peer process per test module: it imports the peers once and answers every task of the module.

The workers (tests/peer_field_oracles.py, tests/peer_sketch_runner.py) run :func:`serve` when given
``--serve``: one JSON line in, one line out, per task.  Every task seeds the generators it draws from
(``random``, NumPy's global, numba's) from its own request, so an answer does not depend on the
tasks before it: the same numbers as one process per task, without the imports of every process
(pure-ldp imports scikit-learn: about 2 s of CPU each).
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import traceback
from pathlib import Path


def serve(answer) -> None:
    """In the worker: ``answer(request) -> JSON-ready`` for each JSON line on stdin, one line each on stdout
    (the peers' own prints go to stderr); a task that raises answers ``{"error": its traceback}``."""
    replies, sys.stdout = sys.stdout, sys.stderr
    for line in sys.stdin:
        try:
            reply = answer(json.loads(line))
        except Exception:  # noqa: BLE001 - sent back to the test, which fails with it
            reply = {"error": traceback.format_exc()}
        replies.write(json.dumps(reply) + "\n")
        replies.flush()


class PeerWorker:
    """A worker started with ``--serve`` on the peers' path; :meth:`ask` sends one request, returns its answer."""

    def __init__(self, script: Path, env: dict, log: Path, *, cwd=None, timeout: float = 1200.0):
        self.log, self.timeout = log, timeout
        with open(log, "w", encoding="utf-8") as err:
            self.process = subprocess.Popen(
                [sys.executable, str(script), "--serve"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
                env=env,
                cwd=cwd,
                text=True,
            )

    def ask(self, request: dict):
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        ready = select.select([self.process.stdout], [], [], self.timeout)[0]
        line = self.process.stdout.readline() if ready else ""
        assert line, f"the peer worker gave no answer to {request.get('task')!r}:\n{self._stderr()}"
        reply = json.loads(line)
        assert not (isinstance(reply, dict) and "error" in reply), (
            f"the peer worker failed on {request.get('task')!r}:\n{reply.get('error', '')}"
        )
        return reply

    def close(self) -> None:
        self.process.stdin.close()
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process.stdout.close()

    def _stderr(self) -> str:
        return (
            self.log.read_text(encoding="utf-8", errors="replace")[-3000:]
            if os.path.exists(self.log)
            else ""
        )
