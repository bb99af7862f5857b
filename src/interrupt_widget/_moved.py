"""Old module paths kept as deprecated aliases, so a rename breaks no one's imports.

Each old module defines `__getattr__` through `moved_attribute`: a name read from
it (`from interrupt_widget.client import AGUIClient`) warns with a
`DeprecationWarning` that says where it lives now, then comes from there.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Collection, Mapping


def moved_attribute(
    old: str,
    new: str,
    name: str,
    *,
    names: Collection[str] | None = None,
    renamed: Mapping[str, object] | None = None,
) -> object:
    """`name` read from the old module `old`: warn, then take it from `new`.

    `names` are the names the old module had (default: the new one's `__all__`);
    `renamed` maps those that the new one spells otherwise to their values.
    """
    if renamed is not None and name in renamed:
        value = renamed[name]
    else:
        target = importlib.import_module(new)
        had = names if names is not None else getattr(target, "__all__", ())
        if name not in had:
            raise AttributeError(f"module {old!r} has no attribute {name!r}")
        value = getattr(target, name)
    warnings.warn(
        f"{old} moved to {new}: import {name} from {new} (the old path will be removed)",
        DeprecationWarning,
        stacklevel=3,
    )
    return value
