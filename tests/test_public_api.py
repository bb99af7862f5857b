"""The curated public surface: exactly these names, each importable, nothing leaking."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import interrupt_widget

DEEP_IMPORT = re.compile(r"from interrupt_widget\.([\w.]+) import ([\w, ]+)")
"""An import of names from a module below the root."""

PUBLIC = {
    "WorkersRefused",
    "TargetError",
    "NotInDoubt",
    "InsecureBindError",
    "FingerprintSecretError",
    "AGUIAgent",
    "AGUIClient",
    "AGUIClientError",
    "AGUIConnectionError",
    "AGUIHTTPError",
    "AGUIStreamError",
    "AdapterError",
    "AdapterRunHandle",
    "AgentBatch",
    "AgentChat",
    "AnswerRefused",
    "CallInDoubt",
    "CannotWaitHere",
    "Cassette",
    "CassetteMismatch",
    "CassetteMissing",
    "ChatRunError",
    "CallMismatch",
    "ErrorCode",
    "Identity",
    "IdentityMismatch",
    "Inbox",
    "InterruptPicker",
    "InterruptsOpen",
    "MEETING_TIME",
    "SPAN_NAME",
    "LedgerUnavailable",
    "NotAllowedToAnswer",
    "OfflineModel",
    "OpenAIAgentsAdapter",
    "Policy",
    "PolicyError",
    "PostgresLedger",
    "RemoteAgent",
    "ResponderError",
    "ResumeRefused",
    "RunHandle",
    "SQLiteLedger",
    "TemporalMisconfigured",
    "TemporalUnavailable",
    "ThreadBusy",
    "UnattendedWait",
    "__version__",
    "answer_interruptions",
    "approve",
    "as_identity",
    "ask",
    "current_identity",
    "asgi_app",
    "decisions_frame",
    "default_model",
    "deny",
    "editable",
    "load_decisions",
    "escalate",
    "require",
    "responders",
    "resume_payload",
    "serve",
    "set_identity",
    "with_response_schema",
}


def test_all_is_exactly_the_curated_names() -> None:
    assert set(interrupt_widget.__all__) == PUBLIC
    assert len(interrupt_widget.__all__) == len(PUBLIC)
    for name in PUBLIC:
        assert getattr(interrupt_widget, name) is not None


def test_the_responders_module_lists_its_policies() -> None:
    from interrupt_widget import responders

    for name in ("approve_all", "deny_all", "cancel_all", "answers", "replay", "fail"):
        assert callable(getattr(responders, name))


def test_the_base_install_imports_without_the_serve_extra() -> None:
    # The Agents SDK already brings httpx and starlette; the extra adds uvicorn and
    # httpx-sse. Hide those as a base install lacks them: the kit still imports,
    # and only the HTTP names say what to install.
    code = (
        "import sys\n"
        "for m in ('uvicorn', 'httpx_sse'): sys.modules[m] = None\n"
        "import interrupt_widget\n"
        "try:\n"
        "    interrupt_widget.asgi_app(object())\n"
        "except Exception as e:\n"
        "    print(type(e).__name__, e)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "serve" in done.stdout


def test_a_worker_or_a_script_imports_no_notebook_stack_until_a_widget_is_used() -> None:
    # A Temporal worker or a served agent imports the kit and never draws a widget: the
    # widgets (anywidget, ipywidgets, IPython) and the HTTP side load on first use, and a
    # batch still shows as its inbox (whose unattended check an awaited batch relies on).
    code = (
        "import sys\n"
        "import interrupt_widget as iw\n"
        "heavy = ('anywidget', 'ipywidgets', 'IPython', 'interrupt_widget.http')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
        "from interrupt_widget.examples import bank_agent\n"
        "batch = iw.AgentBatch(bank_agent(), [{'n': 1}], prompt='hi')\n"
        "print(type(batch.inbox).__name__, isinstance(batch.inbox, iw.Inbox))\n"
        "print(iw.serve.__name__, 'AgentChat' in dir(iw))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "[]",
        "Inbox True",
        "serve True",
    ]
    assert not hasattr(interrupt_widget, "no_such_name")


def test_the_jupyter_servers_extension_loads_neither_the_sdk_nor_a_widget() -> None:
    # The extension runs in every person's Jupyter server (on a JupyterHub, one each) whether
    # or not they ever run an agent: it reads the board and takes answers, and the Agents SDK,
    # the OpenAI client, MCP and the widgets stay out of the server (about 80 MB and 1.2 s of
    # CPU at its start). `import interrupt_widget` alone loads none of them either; a name
    # used loads what it needs.
    code = (
        "import sys\n"
        "heavy = ('agents', 'openai', 'mcp', 'anywidget', 'ipywidgets', 'IPython',\n"
        "         'interrupt_widget.sdk', 'interrupt_widget.widgets.chat')\n"
        "import interrupt_widget.lab.server_extension\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
        "import interrupt_widget as iw\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
        "print(iw.Policy.__name__, sorted(m for m in heavy if m in sys.modules))\n"
        "print(iw.OfflineModel.__name__, 'agents' in sys.modules)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "INTERRUPT_WIDGET_BOARD"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["[]", "[]", "Policy []", "OfflineModel True"]


def test_the_exceptions_a_user_catches_come_from_the_root() -> None:
    from interrupt_widget.asking.responders import ResponderError
    from interrupt_widget.asking.thread import InterruptsOpen, ThreadBusy
    from interrupt_widget.widgets.chat import ChatRunError
    from interrupt_widget.widgets.picker import AnswerRefused

    assert interrupt_widget.ChatRunError is ChatRunError
    assert interrupt_widget.AnswerRefused is AnswerRefused
    assert interrupt_widget.ResponderError is ResponderError
    assert interrupt_widget.ThreadBusy is ThreadBusy
    assert interrupt_widget.InterruptsOpen is InterruptsOpen


def test_the_pre_release_names_are_gone() -> None:
    from interrupt_widget import examples
    from interrupt_widget.asking import thread

    for module, name in (
        (thread, "AnswersRefused"),
        (thread, "AgentRunner"),
        (examples, "ExecutionLog"),
    ):
        assert not hasattr(module, name), f"{module.__name__}.{name}"
    assert not issubclass(interrupt_widget.ResumeRefused, interrupt_widget.AnswerRefused)


def test_every_exception_in_errors_is_exported_from_the_root() -> None:
    from interrupt_widget import errors

    defined = {
        name
        for name, value in vars(errors).items()
        if isinstance(value, type)
        and issubclass(value, Exception)
        and value.__module__ == errors.__name__
        and not name.startswith("_")  # a run error kept as its kit error: caught as either
    }
    assert defined, "errors.py defines no exception"
    assert defined - set(interrupt_widget.__all__) == set()


def test_the_readme_and_notebooks_import_public_names_from_the_root() -> None:
    # A public name imported from a module path would break the user's copy of it the
    # day the module moves; the root is the one path that stays.
    root = Path(__file__).resolve().parents[1]
    deep = []
    for path in [root / "README.md", *sorted((root / "notebooks").glob("*.ipynb"))]:
        for module, names in DEEP_IMPORT.findall(path.read_text(encoding="utf-8")):
            public = {n.strip() for n in names.split(",")} & set(interrupt_widget.__all__)
            if public and module.split(".")[0] not in {"examples", "testing"}:
                deep.append(f"{path.name}: {sorted(public)} from interrupt_widget.{module}")
    assert deep == []
