"""The record of approved calls already run, so each runs once: the once-only core, the
in-memory, SQLite and PostgreSQL ledgers, and choosing one from a spec.

Users import from `interrupt_widget`; these modules are the kit's own.
"""
