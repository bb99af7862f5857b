"""What the HTTP layer serves: an `AGUIAgent` (see `run_handle.py`), or an SDK agent adapted.

The server wraps whatever it is given in the fingerprint layer, so any agent
that follows the adapter's conventions (interrupt info on the gated tool
call's metadata) can be served.
"""

from __future__ import annotations

from typing import Any

from interrupt_widget.agui.run_handle import AGUIAgent

__all__ = ["AGUIAgent", "as_agui_agent"]


def as_agui_agent(agent: Any, **adapter_options: Any) -> AGUIAgent:
    """`agent` itself when it already speaks AG-UI, else an adapter around an SDK agent.

    `adapter_options` (`response_schemas`, `expires_in`, `run_config`) go to the
    adapter; options left at None are not passed, and passing any for an
    object that is already an AG-UI agent is an error.
    """
    options = {k: v for k, v in adapter_options.items() if v is not None}
    if isinstance(agent, AGUIAgent):
        if options:
            raise TypeError(
                f"adapter options {sorted(options)} only apply to an Agents SDK agent, "
                f"not to {type(agent).__name__}, which already speaks AG-UI"
            )
        return agent
    from interrupt_widget.sdk.adapter import OpenAIAgentsAdapter

    adapter: AGUIAgent = OpenAIAgentsAdapter(agent, **options)
    return adapter
