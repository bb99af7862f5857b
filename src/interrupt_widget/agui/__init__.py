"""The AG-UI protocol side, free of the Agents SDK: interrupts and their answers, resume
checks, messages, the wire format, run handles, and the agreement of a call with its record.

Users import from `interrupt_widget`; these modules are the kit's own.
"""
