"""The OpenAI Agents SDK side: the adapter that runs an agent as an AG-UI agent, its event
translation, what the model sees, the offline model, edited calls, response schemas declared
on tools, and the answer as a tool reads it.

Users import from `interrupt_widget`; these modules are the kit's own.
"""
