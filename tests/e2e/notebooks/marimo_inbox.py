import marimo

__generated_with = "0.25.2"
app = marimo.App()


@app.cell
def _():
    import uuid

    import marimo as mo

    from interrupt_widget import AgentBatch
    from interrupt_widget.examples import bank_agent

    rows = [{"invoice": f"INV-{n}", "amount": 300 + n} for n in range(10)]
    batch = AgentBatch(
        bank_agent(journal=mo.cli_args().get("journal")),
        rows,
        name=f"marimo-{uuid.uuid4().hex[:8]}",
        prompt="transfer_funds amount={amount} to_account=ACME-1 memo={invoice}",
        key="invoice",
    )
    return batch, mo


@app.cell
async def _(batch, mo):
    batch.start()
    mo.ui.anywidget(batch.inbox)
    return


if __name__ == "__main__":
    app.run()
