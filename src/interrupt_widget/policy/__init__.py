"""Approval policies: the rules (`approve`, `deny`, `ask`), the what-if report against
recorded decisions, and its chart.

Users import from `interrupt_widget`; these modules are the kit's own.
"""
