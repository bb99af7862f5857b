"""Every JSON value survives the official `@ag-ui/client` against a real `serve` process.

JavaScript reads the interrupt record's arguments as doubles and writes them
back its own way (`42.0` as `42`, `1e-07` as `1e-7`, `-0.0` as `0`,
9007199254740993 as 9007199254740992); the call's own text passes untouched.
The tool writes each run's arguments to a file, so what ran is counted and
read, not inferred from the events.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import unicodedata
from typing import Any

import pytest
from test_http_cli import CLIENT_DIR, server_env

from serve_process import Served

TOKEN = "values-test-token"
BEYOND_DOUBLES = 9007199254740993
"""2**53 + 1: JSON.parse reads it as 2**53."""
HUGE = 1234567890123456789012
"""Beyond 1e21: JSON.stringify writes what it read of it as 1.2345678901234568e+21."""
NAME = "Zoë Ångström"
NFD_MEMO = unicodedata.normalize("NFD", "café ☕ 𝄞 résumé")

AGENT_MODULE = '''
"""A payment agent whose gated tool writes the arguments of each run to $RUNS_FILE."""

import json
import os

from agents import Agent, function_tool

from interrupt_widget import OfflineModel, editable


@function_tool(needs_approval=True)
def pay(amount: float, fee: float, account: int, to: str, memo: str) -> str:
    """Pay `amount` (and `fee`) from `account` to `to`."""
    ran = {"amount": amount, "fee": fee, "account": account, "to": to, "memo": memo}
    with open(os.environ["RUNS_FILE"], "a", encoding="utf-8") as runs:
        runs.write(json.dumps(ran) + "\\n")
    return f"Paid {amount!r} to {to}."


@function_tool(needs_approval=True)
def send_money(amount: float, fee: float, account: int, to: str, memo: str) -> str:
    """Send `amount` (and `fee`) from `account` to `to`: it takes no edits."""
    ran = {"amount": amount, "fee": fee, "account": account, "to": to, "memo": memo}
    with open(os.environ["RUNS_FILE"], "a", encoding="utf-8") as runs:
        runs.write(json.dumps(ran) + "\\n")
    return f"Sent {amount!r} to {to}."


agent = Agent(
    name="payments",
    model=OfflineModel(),
    tools=[editable(pay, fields=["amount", "memo"]), send_money],
)
'''


def prompt(amount: str, fee: str, account: int) -> str:
    return f'pay amount={amount} fee={fee} account={account} to="{NAME}" memo="{NFD_MEMO}"'


SCENARIOS: dict[str, dict[str, Any]] = {
    "approve": {"prompt": prompt("42", "0.0000001", BEYOND_DOUBLES), "answer": "approve"},
    "cancel": {"prompt": prompt("5000.5", "1e3", HUGE), "answer": "cancel"},
    "unknown": {"prompt": prompt("7", "0.5", 1), "answer": "unknown"},
    "edit": {
        "prompt": prompt("250", "-0.0", BEYOND_DOUBLES),
        "answer": {"edit": {"amount": 12.5, "memo": "edited ✓"}},
    },
}


def send(memo: str) -> str:
    """42.0 to Bob through `send_money`, which takes no edits."""
    return f'send_money amount=42 fee=0 account=7 to="Bob" memo="{memo}"'


MALLORY = {"amount": 1.0, "fee": 0, "account": 7, "to": "Mallory", "memo": "old edit field"}
REFUSED: dict[str, dict[str, Any]] = {
    "old-edit-field": {
        "prompt": send("old edit field"),
        "answer": {"payload": {"approved": True, "arguments": MALLORY}},
        "says": "unknown field 'arguments': this tool does not take edits",
        "code": "invalid_payload",
    },
    "proto": {
        "prompt": send("proto"),
        "answer": {"payload": {"approved": True, "__proto__": {"to": "Mallory"}}},
        "says": "unknown field '__proto__'",
        "code": "invalid_payload",
    },
    "case-beside-valid": {
        "prompt": send("case"),
        "answer": {"payload": {"approved": True, "Approved": False}},
        "says": "unknown field 'Approved': did you mean 'approved'?",
        "code": "invalid_payload",
    },
    "nested-typo": {
        "prompt": prompt("9", "0", 3),
        "answer": {"edit": {"amout": 1.0}},
        "says": "unknown field 'amout': did you mean 'amount'?",
        "code": "invalid_edit",
    },
}
"""Answers carrying a field the kit's schema does not declare: refused, nothing run."""
SCENARIOS.update(
    {name: {k: case[k] for k in ("prompt", "answer")} for name, case in REFUSED.items()}
)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Each scenario run once by the TypeScript client; the tool's runs by scenario."""
    node = shutil.which("node")
    assert node is not None, "node is needed for the @ag-ui/client check"
    assert (CLIENT_DIR / "node_modules" / "@ag-ui" / "client").is_dir(), (
        "install the pinned client first: npm ci --prefix tests/agui_client"
    )
    folder = tmp_path_factory.mktemp("values")
    (folder / "payments_agent.py").write_text(AGENT_MODULE, encoding="utf-8")
    secret = folder / "secret"
    secret.write_text("a-secret-for-the-values-test-0123456789\n")
    runs = folder / "runs.jsonl"
    runs.touch()
    env = server_env()
    env.update(
        PYTHONPATH=os.pathsep.join([str(folder), env.get("PYTHONPATH", "")]),
        RUNS_FILE=str(runs),
    )
    args = ["payments_agent:agent", "--token", TOKEN, "--secret-file", str(secret)]
    server = Served([*args, "--ledger", str(folder / "ledger.sqlite3")], env).wait_ready()
    try:
        completed = subprocess.run(
            [node, str(CLIENT_DIR / "json_values.mjs"), server.url],
            env={**os.environ, "AGUI_TOKEN": TOKEN, "SCENARIOS": json.dumps(SCENARIOS)},
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=120,
            check=False,
        )
    finally:
        server.stop()
    assert completed.returncode == 0, completed.stderr + "".join(server.log)
    found: dict[str, Any] = json.loads(completed.stdout.strip().splitlines()[-1])
    found["runs"] = [json.loads(line) for line in runs.read_text(encoding="utf-8").splitlines()]
    return found


def ran_with(report: dict[str, Any], memo: str) -> list[dict[str, Any]]:
    return [run for run in report["runs"] if run["memo"] == memo]


def test_an_approval_runs_once_with_exactly_what_the_model_proposed(report: dict[str, Any]) -> None:
    approve = report["approve"]
    assert approve["first"] == {"outcome": "interrupt", "error": None}
    (interrupt,) = approve["interrupts"]
    # The client's own reading rounded the account and respelled the numbers...
    assert f'"account":{BEYOND_DOUBLES - 1}' in interrupt["toolInput"]
    assert '"amount":42,' in interrupt["toolInput"]
    assert '"fee":1e-7' in interrupt["toolInput"]
    # ...while the message, text the client never parses, shows the canonical values.
    assert interrupt["message"] == (
        f'Allow pay to run with amount=42, fee=1e-7, account={BEYOND_DOUBLES}, to="{NAME}", '
        f'memo="{NFD_MEMO}"?'
    )
    resumed = approve["resumed"]
    assert resumed["error"] is None
    assert resumed["outcome"] == "success"
    assert len(resumed["toolResults"]) == 1
    (run,) = [r for r in report["runs"] if r["account"] == BEYOND_DOUBLES and r["amount"] == 42]
    assert run == {
        "amount": 42.0,
        "fee": 1e-7,
        "account": BEYOND_DOUBLES,
        "to": NAME,
        "memo": NFD_MEMO,  # still decomposed: nothing normalised it on the way
    }


def test_a_cancel_of_such_a_call_is_taken_and_runs_nothing(report: dict[str, Any]) -> None:
    cancel = report["cancel"]
    (interrupt,) = cancel["interrupts"]
    assert "1.2345678901234568e+21" in interrupt["toolInput"]  # all JavaScript could hold of it
    assert f"account={HUGE}," in interrupt["message"]
    assert "amount=5000.5, fee=1000," in interrupt["message"]
    resumed = cancel["resumed"]
    assert resumed["error"] is None
    assert resumed["outcome"] == "success"
    assert [run for run in report["runs"] if run["account"] == HUGE] == []


def test_an_unknown_interrupt_id_beside_a_valid_entry_ends_in_run_error(
    report: dict[str, Any],
) -> None:
    resumed = report["unknown"]["resumed"]
    assert resumed["error"]["code"] == "unknown_interrupt"
    assert "approve-nobody" in resumed["error"]["message"]
    assert resumed["toolResults"] == []
    assert [run for run in report["runs"] if run["account"] == 1] == []


def test_an_edit_sent_as_edited_args_runs_once_with_the_edit(report: dict[str, Any]) -> None:
    edit = report["edit"]
    (interrupt,) = edit["interrupts"]
    assert interrupt["editable"] is True
    resumed = edit["resumed"]
    assert resumed["error"] is None
    assert resumed["outcome"] == "success"
    assert len(resumed["toolResults"]) == 1
    assert "edited the arguments" in resumed["toolResults"][0]["content"]
    (run,) = ran_with(report, "edited ✓")
    # The fields the person could not change run as proposed, to the last digit and sign,
    # though the client sent back its own reading of them (9007199254740992, 0).
    assert run == {
        "amount": 12.5,
        "fee": -0.0,
        "account": BEYOND_DOUBLES,
        "to": NAME,
        "memo": "edited ✓",
    }
    assert str(run["fee"]) == "-0.0"


@pytest.mark.parametrize("name", REFUSED)
def test_an_answer_with_a_field_the_schema_does_not_declare_ends_in_run_error(
    report: dict[str, Any], name: str
) -> None:
    case, resumed = REFUSED[name], report[name]["resumed"]
    assert report[name]["first"] == {"outcome": "interrupt", "error": None}
    assert resumed["error"]["code"] == case["code"]
    assert case["says"] in resumed["error"]["message"]
    assert resumed["toolResults"] == []


def test_the_tool_ran_twice_in_all(report: dict[str, Any]) -> None:
    # Once for the approval and once for the edit: never for the cancel, the refused
    # resume or an answer with an undeclared field (Bob was never paid, nor was Mallory).
    assert len(report["runs"]) == 2
    assert [run for run in report["runs"] if run["to"] in ("Bob", "Mallory")] == []
