"""A real JupyterHub for the tests: its dummy authenticator (one password for all), its local
process spawner (each person's `jupyterhub-singleuser` from this venv, with the kit's server
extension as `pip install` enables it) and configurable-http-proxy from the project's npm
packages. Each person's server gets a folder of its own and the `InterruptWidget` settings
given; the tests reach those servers through the proxy, as a browser does."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from jupyter_process import _KERNEL_ENV, _NOT_INHERITED, _NOTIFICATION_SETTINGS, _PAGE_CONFIG

from interrupt_widget.free_port import free_port

ROOT = Path(__file__).resolve().parents[2]
PROXY = ROOT / "node_modules" / ".bin" / "configurable-http-proxy"
PASSWORD = "a-password-for-the-tests"
READY_SECONDS = 90.0

_CONFIG = """\
import json, pathlib
settings = json.loads(pathlib.Path({settings!r}).read_text())
c.JupyterHub.bind_url = settings["bind_url"]
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = settings["hub_port"]
c.JupyterHub.db_url = settings["db_url"]
c.JupyterHub.cookie_secret_file = settings["cookie_secret_file"]
c.JupyterHub.log_level = "INFO"
c.ConfigurableHTTPProxy.command = [settings["proxy"]]
c.ConfigurableHTTPProxy.api_url = settings["proxy_api_url"]
c.ConfigurableHTTPProxy.pid_file = settings["proxy_pid_file"]
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = settings["password"]
c.Authenticator.allowed_users = set(settings["users"])
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = settings["home"] + "/{{username}}"
c.Spawner.cmd = [settings["singleuser"]]
c.Spawner.args = settings["args"]
c.Spawner.notebook_dir = settings["home"] + "/{{username}}/root"
c.Spawner.default_url = "/lab"
c.Spawner.start_timeout = 90
c.Spawner.http_timeout = 90
c.Spawner.environment = {{
    name: (lambda value: lambda spawner: value.replace("{{username}}", spawner.user.name))(value)
    for name, value in settings["environment"].items()
}}
c.JupyterHub.services = [{{"name": "tests", "api_token": settings["admin_token"]}}]
c.JupyterHub.load_roles = [
    {{"name": "tests", "scopes": ["admin:users", "admin:servers", "tokens"], "services": ["tests"]}}
]
"""


@dataclass
class HubUser:
    """One person's server behind the hub, reached through the proxy with their own token (so
    the server knows them as the hub does). Serves `ServerKernel` as a `JupyterServer` would."""

    name: str
    base: Path
    url: str
    token: str
    _client: httpx.Client = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._client = httpx.Client(
            base_url=self.url, headers={"Authorization": f"token {self.token}"}, timeout=30
        )

    @property
    def runtime_dir(self) -> Path:
        return self.base / "runtime"

    @property
    def root_dir(self) -> Path:
        return self.base / "root"

    def api(self, method: str, path: str, body: Any = None) -> Any:
        response = self._client.request(method, path.lstrip("/"), json=body)
        response.raise_for_status()
        return response.json() if response.content else None

    def kit(self, path: str, body: Any = None) -> httpx.Response:
        """GET (or POST `body` to) the kit's endpoint `path` on this person's server."""
        if body is None:
            return self._client.get(f"interrupt-widget/{path}")
        return self._client.post(f"interrupt-widget/{path}", json=body)


@dataclass
class JupyterHub:
    base: Path
    url: str
    admin_token: str
    process: subprocess.Popen[bytes]
    log_path: Path
    users: dict[str, HubUser] = field(default_factory=dict)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def hub_api(self, method: str, path: str, body: Any = None) -> Any:
        response = httpx.request(
            method,
            f"{self.url}hub/api/{path}",
            headers={"Authorization": f"token {self.admin_token}"},
            json=body,
            timeout=30,
        )
        response.raise_for_status()
        return response.json() if response.content else None

    @classmethod
    def start(cls, base: Path, people: list[str], kit_settings: dict[str, Any]) -> JupyterHub:
        """A hub for `people`, each person's server started and ready, their servers' kit
        configured with `kit_settings` (`c.InterruptWidget`)."""
        if not PROXY.exists():
            raise FileNotFoundError(f"{PROXY} is missing: run `npm ci` (make setup)")
        home = base / "home"
        for person in people:
            _person_folders(home / person)
        port = free_port()
        url = f"http://127.0.0.1:{port}/"
        admin_token = secrets.token_hex(16)
        settings = {
            "bind_url": url,
            "hub_port": free_port(),
            "db_url": f"sqlite:///{base / 'hub.sqlite'}",
            "cookie_secret_file": str(base / "cookie_secret"),
            "proxy": str(PROXY),
            "proxy_api_url": f"http://127.0.0.1:{free_port()}",
            "proxy_pid_file": str(base / "proxy.pid"),
            "password": PASSWORD,
            "users": people,
            "home": str(home),
            "singleuser": str(Path(sys.executable).parent / "jupyterhub-singleuser"),
            "environment": _person_environment(home),
            "admin_token": admin_token,
            # As the guide says to: the hub hands the kit's settings to every person's server.
            "args": [f"--InterruptWidget.{key}={value}" for key, value in kit_settings.items()],
        }
        (base / "settings.json").write_text(json.dumps(settings))
        config = base / "jupyterhub_config.py"
        config.write_text(_CONFIG.format(settings=str(base / "settings.json")))
        env = {key: value for key, value in os.environ.items() if key not in _NOT_INHERITED}
        log_path = base / "hub.log"
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                [str(Path(sys.executable).parent / "jupyterhub"), "-f", str(config)],
                cwd=base,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        hub = cls(base=base, url=url, admin_token=admin_token, process=process, log_path=log_path)
        try:
            hub._wait_ready()
            for person in people:  # the hub spawns them side by side
                hub.hub_api("POST", f"users/{person}/server")
            for person in people:
                hub.users[person] = hub._once_started(person, home / person)
        except BaseException:
            hub.stop()
            raise
        return hub

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + READY_SECONDS
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"jupyterhub exited early:\n{self.log()}")
            try:
                self.hub_api("GET", "")
                return
            except httpx.HTTPError:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"jupyterhub not ready:\n{self.log()}") from None
                time.sleep(0.2)  # a process coming up: nothing to await

    def _once_started(self, person: str, folder: Path) -> HubUser:
        deadline = time.monotonic() + READY_SECONDS
        while not self.hub_api("GET", f"users/{person}")["servers"].get("", {}).get("ready"):
            assert time.monotonic() < deadline, f"{person}'s server never started:\n{self.log()}"
            time.sleep(0.2)  # the hub's spawn: polled as its own API is
        token = self.hub_api("POST", f"users/{person}/tokens", {"note": "tests"})["token"]
        return HubUser(name=person, base=folder, url=f"{self.url}user/{person}/", token=token)

    def stop(self) -> None:
        """Stop every person's server, then the hub and its proxy; remove the folders."""
        for person in list(self.users):
            with contextlib.suppress(httpx.HTTPError):  # the hub's shutdown stops what is left
                self.hub_api("DELETE", f"users/{person}/server")
        if self.process.poll() is None:
            self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, 9)
            self.process.wait()
        _kill_left_proxy(self.base / "proxy.pid")
        shutil.rmtree(self.base, ignore_errors=True)


def _person_folders(folder: Path) -> None:
    for name in ("root", "settings", "workspaces", "config/labconfig", "runtime", "data"):
        (folder / name).mkdir(parents=True, exist_ok=True)
    (folder / "config/labconfig/page_config.json").write_text(json.dumps(_PAGE_CONFIG))
    notification = folder / "settings/@jupyterlab/apputils-extension"
    notification /= "notification.jupyterlab-settings"
    notification.parent.mkdir(parents=True, exist_ok=True)
    notification.write_text(json.dumps(_NOTIFICATION_SETTINGS))
    server_config = {
        "ServerApp": {"allow_root": True},
        "LabApp": {
            "news_url": None,
            "check_for_updates_class": "jupyterlab.NeverCheckForUpdate",
            "user_settings_dir": str(folder / "settings"),
            "workspaces_dir": str(folder / "workspaces"),
        },
    }
    (folder / "config/jupyter_server_config.json").write_text(json.dumps(server_config))


def _person_environment(home: Path) -> dict[str, str]:
    """What each person's server and kernels run with (`{username}` filled in by the hub)."""
    folder = f"{home}/{{username}}"
    tests = Path(__file__).resolve().parents[1]
    return {
        **_KERNEL_ENV,
        "JUPYTER_CONFIG_DIR": f"{folder}/config",
        "JUPYTER_RUNTIME_DIR": f"{folder}/runtime",
        "JUPYTER_DATA_DIR": f"{folder}/data",
        "JUPYTER_PLATFORM_DIRS": "1",
        "INTERRUPT_WIDGET_LEDGER": f"{folder}/calls.db",
        "XDG_STATE_HOME": f"{folder}/state",
        "PYTHONPATH": f"{tests / 'e2e'}:{tests}",
    }


def _kill_left_proxy(pid_file: Path) -> None:
    """The hub leaves its proxy running when it is stopped hard: end it too."""
    try:
        pid = int(pid_file.read_text())
    except (OSError, ValueError):
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, 15)
