"""interrupt-widget: human-in-the-loop agent runs as a native notebook experience.

An OpenAI Agents SDK run pauses on a tool that needs a human; a widget in the
notebook cell asks; the run resumes in the kernel with the answer. Everything
speaks the AG-UI protocol 1.0.
"""

from __future__ import annotations

from .picker import InterruptPicker

__version__ = "0.1.0"

__all__: list[str] = ["InterruptPicker", "__version__"]
