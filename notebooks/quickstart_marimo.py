import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium")


@app.cell
def _():
    import marimo as mo

    return (mo,)


@app.cell(hide_code=True)
def _(mo):
    mo.md(r"""
    # Quickstart in marimo: an agent that asks before it books

    The same widgets as in Jupyter, wrapped with `mo.ui.anywidget`. A scheduling assistant
    has one tool, `schedule_meeting`, that needs your approval. Ask it to book a call and
    the run **pauses**: a picker appears inside the chat, you choose a time and approve, and
    the run **resumes** in this notebook's Python with your answer. The tool runs once.

    No API key needed: without `OPENAI_API_KEY` (or with `INTERRUPT_WIDGET_MODEL=offline`)
    the agent runs on `OfflineModel`, a deterministic stand-in for the LLM.
    `marimo run quickstart_marimo.py -- --journal runs.jsonl` also writes one line to
    `runs.jsonl` each time the tool body really runs.
    """)
    return


@app.cell
def _(mo):
    from interrupt_widget import AgentChat, InterruptPicker
    from interrupt_widget.examples import meeting_agent

    # Build widgets in a cell: marimo creates a widget's front end only while a cell runs.
    agent = meeting_agent(journal=mo.cli_args().get("journal"))
    chat = AgentChat(agent)
    return InterruptPicker, agent, chat


@app.cell
def _(chat, mo):
    mo.ui.anywidget(chat)
    return


@app.cell
def _(chat):
    run = chat.send("Book a call with Alice about the Q3 roadmap")
    return (run,)


@app.cell(hide_code=True)
def _(mo):
    mo.md(r"""
    **Your turn:** in the chat above, pick a time and click **Approve** (or **Cancel**).
    You can also type a new request into the chat's own prompt box.

    Do not `await run` in a cell here: marimo handles one message at a time, so your click
    could not reach Python while that cell waits (the kit says so at once with
    `CannotWaitHere` instead of hanging). The run goes on by itself once you answer; to act
    on its end, use `run.add_done_callback(...)`, or look once it is done:
    """)
    return


@app.cell
def _(mo):
    check = mo.ui.run_button(label="Show what ran")
    check
    return (check,)


@app.cell
def _(agent, chat, check, mo):
    mo.stop(not check.value, mo.md("_Answer the picker, then press **Show what ran**._"))
    decisions = "\n".join(
        f"- {d.tool} {d.arguments} → **{d.verdict}** by `{d.by}`" for d in chat.decisions
    )
    mo.md(
        f"""
    Status: **{chat.status}**. schedule_meeting ran **{agent.executions.count("schedule_meeting")}**
    time(s).

    {decisions or "_No decision yet._"}

    Agent: {chat.text or "…"}
    """
    )
    return


@app.cell(hide_code=True)
def _(mo):
    mo.md(r"""
    ## The picker on its own, the marimo way

    `InterruptPicker` shows any AG-UI interrupt. Instead of awaiting `picker.wait()`, hand
    its `on_submit` a `mo.state` setter: the cell that reads the state runs again when the
    answer arrives.
    """)
    return


@app.cell
def _(mo):
    get_answer, set_answer = mo.state(None)
    return get_answer, set_answer


@app.cell
def _(InterruptPicker, set_answer):
    report = {
        "id": "send-report",
        "reason": "tool_call",
        "message": "Send the weekly report to the team?",
        "metadata": {"tool_name": "send_report", "tool_input": {"to": "team"}},
        "responseSchema": {
            "type": "object",
            "properties": {"approved": {"type": "boolean"}},
            "required": ["approved"],
        },
    }
    picker = InterruptPicker([report], on_submit=set_answer)
    return (picker,)


@app.cell
def _(mo, picker):
    mo.ui.anywidget(picker)
    return


@app.cell
def _(get_answer, mo):
    entries = get_answer()
    mo.md(
        "_Waiting for your answer._"
        if entries is None
        else "Answered: "
        + ", ".join(f"{e.interrupt_id} {e.status} {e.payload}" for e in entries)
    )
    return


if __name__ == "__main__":
    app.run()
