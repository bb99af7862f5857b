"""Who is answering: the JupyterHub user where there is one, else the OS user, overridable
in code for a block (`as_identity`) or from now on (`set_identity`); responders and rules
answer as themselves."""

from __future__ import annotations

import asyncio
import getpass

import pytest

from interrupt_widget import Identity, as_identity, current_identity, set_identity
from interrupt_widget.identity import answering_identity, identity_from_wire, login_identity


def test_the_login_is_the_jupyterhub_user_else_the_os_user() -> None:
    assert login_identity({"JUPYTERHUB_USER": "ann"}) == Identity("ann")
    assert login_identity({}) == Identity(getpass.getuser())


def test_the_os_user_follows_the_login_variables_though_it_is_looked_up_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("LOGNAME", "USER", "LNAME", "USERNAME"):
        monkeypatch.delenv(name, raising=False)
    asked: list[str] = []
    real = getpass.getuser

    def getuser() -> str:
        asked.append("asked")
        return real()

    monkeypatch.setattr(getpass, "getuser", getuser)
    first = login_identity({})
    assert [login_identity({}) for _ in range(3)] == [first] * 3
    monkeypatch.setenv("USER", "dora")
    assert login_identity({}) == Identity("dora")
    monkeypatch.delenv("USER")
    assert login_identity({}) == first
    assert len(asked) <= 2  # once without the variables, once with USER=dora


def test_code_answers_as_someone_else_for_a_block_or_from_now_on() -> None:
    login = current_identity()
    with as_identity("ann", roles=["finance", "finance", "audit"]) as ann:
        assert ann == Identity("ann", ("audit", "finance"))
        assert current_identity() == ann
        with as_identity(Identity("bob")):
            assert current_identity().name == "bob"
        assert current_identity() == ann
    assert current_identity() == login
    set_identity("cleo", roles=["cfo"])
    try:
        assert current_identity() == Identity("cleo", ("cfo",))
    finally:
        set_identity(None)
    assert current_identity() == login


async def test_as_identity_stays_in_its_own_task() -> None:
    seen: list[str] = []

    async def other() -> None:
        seen.append(current_identity().name)

    with as_identity("ann"):
        inside = asyncio.ensure_future(other())  # a task made here copies the block's identity
    outside = asyncio.ensure_future(other())
    await asyncio.gather(inside, outside)
    assert seen[0] == "ann"
    assert seen[1] != "ann"


def test_responders_and_rules_answer_as_themselves() -> None:
    with as_identity("ann"):
        assert answering_identity("responder:approve_all").name == "responder:approve_all"
        assert answering_identity("policy:small transfers").name == "policy:small transfers"
        assert answering_identity("user") == Identity("ann")
        assert answering_identity("user", "bob") == Identity("bob")


def test_an_identity_is_read_from_the_wire_and_a_bad_one_is_refused() -> None:
    assert identity_from_wire({"name": "ann", "roles": ["finance"]}) == Identity(
        "ann", ("finance",)
    )
    assert identity_from_wire("bob") == Identity("bob")
    for bad in (None, 3, {"roles": []}, {"name": "", "roles": []}, {"name": "x", "roles": [1]}):
        assert identity_from_wire(bad) is None
    with pytest.raises(ValueError, match="needs a name"):
        Identity("  ")
    assert Identity("x" * 500).name == "x" * 200


def test_a_token_s_person_is_who_starts_and_who_answers_whatever_the_client_says() -> None:
    from ag_ui.core import ResumeEntry, RunAgentInput

    from interrupt_widget.http.principals import as_principal
    from interrupt_widget.identity import IDENTITY_KEY, Identity, identity_in

    carl = Identity("carl", ("finance",))
    forged = RunAgentInput(
        thread_id="t", run_id="r", messages=[], tools=[], context=[],
        forwarded_props={IDENTITY_KEY: {"name": "zed"}},
        resume=[ResumeEntry(interrupt_id="i", status="resolved", payload={"approved": True},
                            metadata={"by": "policy:auto"})],
    )  # fmt: skip
    bound = as_principal(forged, carl)
    assert identity_in(bound.forwarded_props) == carl
    (entry,) = bound.resume or []
    assert isinstance(entry.metadata, dict)
    assert (entry.metadata["by"], identity_in(entry.metadata)) == ("carl", carl)
