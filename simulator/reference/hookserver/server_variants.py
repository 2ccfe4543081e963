"""Broken variants of the reference hook server's WebSocket shell (docs/hook-server-plan.md "Broken variants", issue
16): the bearer token checked at the upgrade. Each class is the correct ``HookServer`` with its token check
overridden (or the comparison it makes); ``server_class(variant)`` picks it (``start_server``), so the correct server's code knows nothing of
them. Test fixtures: tests/hook_server/test_server_variants.py must catch each one.
"""

from __future__ import annotations

import asyncio
from http import HTTPStatus
from typing import Final

from websockets.http11 import Request, Response
from websockets.asyncio.server import ServerConnection

from .machine import Effect, Persist
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


class AcceptedBeforeCommit(HookServer):
    """``accepted-before-commit``: the rows of an input that accepts or publishes a result (one with a ``deliveries``
    row) are not committed with it: they wait in memory ``DEFER_S`` seconds, while its frames go at once — ``turn.delivery(accepted)`` leaves before the result is durable. A SIGKILL in between
    loses a result the desktop was told is accepted. Breaks "accepted 不是“WebSocket 收到”或“写入本机 socket”,而是最终结果
    已进入 server 的持久交接/恢复边界" (FAULT-HOOK-SERVER-KILL-ACCEPTED-01)."""

    DEFER_S = 1.5

    def _apply(self, effects: list[Effect]):  # type: ignore[override]
        deferred: list[Persist] = self.__dict__.setdefault("_deferred", [])
        if not any(type(e) is Persist and e.table == "deliveries" for e in effects):
            return super()._apply(effects)
        if not deferred:
            asyncio.get_running_loop().call_later(self.DEFER_S, self._commit_deferred)
        deferred.extend(e for e in effects if type(e) is Persist)
        return super()._apply([e for e in effects if type(e) is not Persist])

    def _commit_deferred(self) -> None:
        rows = list(self.__dict__.get("_deferred", []))
        self.__dict__["_deferred"] = []
        if rows:
            HookServer._apply(self, rows)


SERVER_WRAPPED: Final[dict[Variant, type[HookServer]]] = {
    Variant.ACCEPTS_ANY_TOKEN: AcceptsAnyToken,
    Variant.AUTH_REFUSAL_SILENT: AuthRefusalSilent,
    Variant.ACCEPTED_BEFORE_COMMIT: AcceptedBeforeCommit,
}


def server_class(variant: Variant | None) -> type[HookServer]:
    """The shell to run for ``variant`` (None, or a variant of the machine: the correct shell)."""
    return SERVER_WRAPPED.get(variant, HookServer) if variant is not None else HookServer
