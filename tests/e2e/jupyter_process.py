"""A JupyterLab or Notebook 7 server in a child process, isolated from the user's setup.

Fresh root, settings, workspaces, config and runtime dirs, a random token, a free port
on 127.0.0.1; stopped by ``POST /api/shutdown`` and, failing that, by its process.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import httpx

from interrupt_widget.free_port import free_port

ServerKind = Literal["lab", "notebook"]

_NOTIFICATION_SETTINGS = {"fetchNews": "false", "checkForUpdates": False}
"""No news popup and no update check: either would cover the page."""

_PAGE_CONFIG = {"buildCheck": False, "buildAvailable": False}
"""No "build recommended" dialog: anywidget's prebuilt extension needs no build."""

_KERNEL_ENV = {
    "OPENAI_AGENTS_DISABLE_TRACING": "1",
    "INTERRUPT_WIDGET_MODEL": "offline",
}
"""Kernels inherit the server's environment: keep them offline and quiet."""

_NOT_INHERITED = frozenset(
    {
        "OPENAI_API_KEY",
        "INTERRUPT_WIDGET_RESPONDER",
        "JUPYTER_PATH",
        "JUPYTER_CONFIG_PATH",
        "INTERRUPT_WIDGET_BOARD",
        "INTERRUPT_WIDGET_SERVER",
        "INTERRUPT_WIDGET_BUNDLE_PATH",
    }
)
"""No real model, no headless responder (a person clicks here), no user's Jupyter paths."""


@dataclass
class JupyterServer:
    """One running server; build it with :meth:`start`."""

    kind: ServerKind
    """``lab`` for JupyterLab, ``notebook`` for Notebook 7."""
    base: Path
    """Holds every dir the server writes to; removed on :meth:`stop`."""
    port: int
    token: str
    process: subprocess.Popen[bytes]
    log_path: Path
    """Server stdout and stderr, worth reading when a test fails."""
    _client: httpx.Client = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._client = httpx.Client(
            base_url=f"http://127.0.0.1:{self.port}",
            headers={"Authorization": f"token {self.token}"},
            timeout=10,
        )

    @property
    def root_dir(self) -> Path:
        """The server's contents root: notebooks for a test go here."""
        return self.base / "root"

    @property
    def runtime_dir(self) -> Path:
        """Where kernels write their connection files."""
        return self.base / "runtime"

    @property
    def settings_dir(self) -> Path:
        return self.base / "settings"

    def url(self, path: str) -> str:
        """Absolute URL of ``path`` (starting with ``/``), logged in by the token."""
        sep = "&" if "?" in path else "?"
        return f"http://127.0.0.1:{self.port}{path}{sep}token={self.token}"

    def api(self, method: str, path: str, body: Any = None) -> Any:
        """Call the REST API; the decoded JSON reply, or None when it has no body."""
        response = self._client.request(method, path, json=body)
        response.raise_for_status()
        return response.json() if response.content else None

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    @classmethod
    def start(
        cls,
        *,
        kind: ServerKind,
        base: Path,
        extra_env: dict[str, str] | None = None,
        config: dict[str, Any] | None = None,
        ready_timeout: float = 60.0,
    ) -> JupyterServer:
        """Start a server under ``base`` and return once its API answers; ``config`` is its
        ``jupyter_server_config.json`` (e.g. ``{"InterruptWidget": {...}}``)."""
        for name in ("root", "settings", "workspaces", "config/labconfig", "runtime", "data"):
            (base / name).mkdir(parents=True, exist_ok=True)
        (base / "config/labconfig/page_config.json").write_text(json.dumps(_PAGE_CONFIG))
        if config is not None:
            (base / "config/jupyter_server_config.json").write_text(json.dumps(config))
        if kind == "lab":
            # Notebook 7 shows no news; it also fails a settings load that names this plugin.
            notification = (
                base / "settings/@jupyterlab/apputils-extension/notification.jupyterlab-settings"
            )
            notification.parent.mkdir(parents=True, exist_ok=True)
            notification.write_text(json.dumps(_NOTIFICATION_SETTINGS))

        port = free_port()
        token = secrets.token_hex(16)
        app = "JupyterNotebookApp" if kind == "notebook" else "LabApp"
        command = [
            sys.executable,
            "-m",
            "notebook" if kind == "notebook" else "jupyterlab",
            "--no-browser",
            "--allow-root",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={port}",
            "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={base / 'root'}",
            f"--{app}.user_settings_dir={base / 'settings'}",
            f"--{app}.workspaces_dir={base / 'workspaces'}",
        ]
        if kind == "lab":
            command += [
                "--LabApp.news_url=None",
                "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            ]
        env = {key: value for key, value in os.environ.items() if key not in _NOT_INHERITED}
        env.update(_KERNEL_ENV)
        env.update(
            JUPYTER_CONFIG_DIR=str(base / "config"),
            JUPYTER_RUNTIME_DIR=str(base / "runtime"),
            # Keep the venv's kernelspec and labextensions (found under sys.prefix) but no
            # per-user ones from the developer's home.
            JUPYTER_DATA_DIR=str(base / "data"),
            JUPYTER_PLATFORM_DIRS="1",
            # The server's kernels record approved calls under `base`, never in the user's ledger.
            INTERRUPT_WIDGET_LEDGER=str(base / "calls.db"),
            XDG_STATE_HOME=str(base / "state"),
        )
        env.update(extra_env or {})
        log_path = base / "server.log"
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                command,
                cwd=base / "root",
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        server = cls(
            kind=kind, base=base, port=port, token=token, process=process, log_path=log_path
        )
        server._wait_ready(ready_timeout)
        return server

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"jupyter {self.kind} exited early:\n{self.log()}")
            try:
                self.api("GET", "/api/status")
                return
            except httpx.HTTPError:
                # Polling a child process coming up: there is no event to await instead.
                time.sleep(0.2)
        self.stop()
        raise TimeoutError(f"jupyter {self.kind} not ready after {timeout} s:\n{self.log()}")

    def notebook_sessions(self) -> list[dict[str, Any]]:
        sessions: list[dict[str, Any]] = self.api("GET", "/api/sessions")
        return sessions

    def shutdown_kernels(self) -> None:
        """End every session and every kernel (those of no notebook too), so the next test
        starts on a quiet machine."""
        for session in self.notebook_sessions():
            self.api("DELETE", f"/api/sessions/{session['id']}")
        for kernel in self.api("GET", "/api/kernels"):
            gone = self._client.request("DELETE", f"/api/kernels/{kernel['id']}")
            if gone.status_code != 404:  # 404: it ended on its own meanwhile
                gone.raise_for_status()

    def stop(self, *, keep_dir: bool = False) -> None:
        """Shut the server down (API first, then its process group) and remove its dirs."""
        self._client_shutdown()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, 15)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, 9)
                self.process.wait()
        if not keep_dir:
            shutil.rmtree(self.base, ignore_errors=True)

    def _client_shutdown(self) -> None:
        if self.process.poll() is not None:
            return
        try:
            self.api("POST", "/api/shutdown")
        except httpx.HTTPError:
            pass  # Already going down; the process wait below decides.
        finally:
            self._client.close()
