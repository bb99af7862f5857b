"""A Jupyter identity provider for tests: each of several tokens signs in one named person,
as JupyterHub's users each sign in as themselves (the shared token stays anonymous)."""

from __future__ import annotations

from typing import Any

from jupyter_server.auth.identity import IdentityProvider, User
from traitlets import Dict, Unicode


class NamedTokens(IdentityProvider):  # type: ignore[misc]
    """`c.NamedTokens.names = {"token-of-ann": "ann"}`: that token signs in as ann."""

    names = Dict(value_trait=Unicode(), config=True)

    async def get_user_token(self, handler: Any) -> User | None:
        name = self.names.get(self.get_token(handler))
        if name:
            return User(username=name, name=name, display_name=name)
        found: User | None = await super().get_user_token(handler)
        return found
