import marimo

__generated_with = "0.25.2"
app = marimo.App()


@app.cell
def _():
    import marimo as mo

    from interrupt_widget import AgentChat
    from interrupt_widget.examples import meeting_agent

    agent = meeting_agent(journal=mo.cli_args().get("journal"))
    chat = AgentChat(agent)
    return chat, mo


@app.cell
def _(chat, mo):
    mo.ui.anywidget(chat)
    return


@app.cell
async def _(chat):
    run = chat.send("Book a call with Alice about the Q3 roadmap")
    await run  # marimo cannot deliver the click while this cell waits: refused at once
    return


if __name__ == "__main__":
    app.run()
