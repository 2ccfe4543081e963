"""Broken variants of the reference hook server's WebSocket shell (docs/hook-server-plan.md "Broken variants", issue
16): the bearer token checked at the upgrade. Each class is the correct ``HookServer`` with its token check
overridden (or the comparison it makes); ``server_class(variant)`` picks it (``start_server``), so the correct server's code knows nothing of
them. Test fixtures: tests/hook_server/test_server_variants.py must catch each one.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Final

from websockets.http11 import Request, Response
from websockets.asyncio.server import ServerConnection

from .server import HookServer
from .variants import Variant

__all__ = ["SERVER_WRAPPED", "server_class"]


class AcceptsAnyToken(HookServer):
    """``accepts-any-token``: a bearer token is required but never compared with the server's. Breaks §7 "base64 内联
    复用已鉴权的 WS 通道" (a wrong token is refused)."""

    def _token_matches(self, given: str) -> bool:
        return True


class AuthRefusalSilent(HookServer):
    """``auth-refusal-silent``: a refused upgrade is a bare 401 whose body names nothing. Breaks §7 "已鉴权的 WS 通道"
    (HOOK-SERVER-AUTH-02, a @should: a refused desktop is told why)."""

    def _check_token(self, connection: ServerConnection, request: Request) -> Response | None:
        refused = super()._check_token(connection, request)
        return None if refused is None else connection.respond(HTTPStatus.UNAUTHORIZED, "\n")


SERVER_WRAPPED: Final[dict[Variant, type[HookServer]]] = {
    Variant.ACCEPTS_ANY_TOKEN: AcceptsAnyToken,
    Variant.AUTH_REFUSAL_SILENT: AuthRefusalSilent,
}


def server_class(variant: Variant | None) -> type[HookServer]:
    """The shell to run for ``variant`` (None, or a variant of the machine: the correct shell)."""
    return SERVER_WRAPPED.get(variant, HookServer) if variant is not None else HookServer
