"""Batches: one agent run per row of a table, many at once (`AgentBatch`), each row's
conversation and answers, and what a row has got to, kept in the call ledger.

Users import from `interrupt_widget`; these modules are the kit's own.
"""
