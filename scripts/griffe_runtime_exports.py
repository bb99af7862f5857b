"""A griffe extension for the API reference: each public name is documented as the object a
user imports.

The reference reads the source without running it, and a name bound twice in a module (say, an
import inside `try` and a stand-in under `except` for when an optional extra is missing) reads as
its last binding. Importing the documented modules says where each name in their `__all__` really
lives; where the source reading points elsewhere, the name is pointed there.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

import griffe

DOCUMENTED = ("interrupt_widget", "interrupt_widget.responders", "interrupt_widget.examples")
"""By the path a user writes: `interrupt_widget.responders` is the asking package's module,
imported from the root."""


def runtime_module(module_path: str) -> ModuleType:
    """The module `module_path` names, as `from <parent> import <name>` gives it."""
    try:
        return importlib.import_module(module_path)
    except ModuleNotFoundError:
        parent, _, name = module_path.rpartition(".")
        module = getattr(runtime_module(parent), name)
        assert isinstance(module, ModuleType), module_path
        return module


class RuntimeExports(griffe.Extension):
    """Point each documented public name at the object the import gives."""

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        if pkg.path != "interrupt_widget":
            return
        for module_path in DOCUMENTED:
            module = runtime_module(module_path)
            static = loader.modules_collection[module.__name__]
            for name in getattr(module, "__all__", ()):
                value = getattr(module, name)
                owner = getattr(value, "__module__", None)
                qualname = getattr(value, "__qualname__", None)
                if not isinstance(owner, str) or not isinstance(qualname, str):
                    continue  # a constant: where it was read is where it lives
                if name not in static.members:
                    continue
                real = f"{owner}.{qualname}"
                member = static.members[name]
                try:
                    read = member.final_target.path if member.is_alias else member.path
                except (griffe.AliasResolutionError, griffe.CyclicAliasError):
                    read = None
                if read != real:
                    static.set_member(name, griffe.Alias(name, real, parent=static))
