"""Broken variants of the reference hook server's WebSocket shell: the bearer token checked at the upgrade, and the
commit order of an accepted result. Each class is the correct ``HookServer`` with one method overridden; each is
registered with the requirements that catch it (tests/hook_server/test_server_variants.py,
tests/faults/test_faults_kill_falsified.py read them).
"""

from __future__ import annotations

import asyncio
from http import HTTPStatus

from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request, Response

from ...hookserver.effects import Effect, Persist
from ...hookserver.server import HookServer, _Batch
from ..registry import broken


@broken("accepts-any-token", subject="hook-server", breaks=["HOOK-SERVER-AUTH-01"], clause='§7 "复用已鉴权的 WS 通道"')
class AcceptsAnyToken(HookServer):
    """``accepts-any-token``: a bearer token is required but never compared with the server's. Breaks §7 "base64 内联
    复用已鉴权的 WS 通道" (a wrong token is refused)."""

    def _token_matches(self, given: str) -> bool:
        return True


@broken("auth-refusal-silent", subject="hook-server", breaks=["HOOK-SERVER-AUTH-02"],
        clause='§7 "复用已鉴权的 WS 通道" (a refused desktop is told why)')
class AuthRefusalSilent(HookServer):
    """``auth-refusal-silent``: a refused upgrade is a bare 401 whose body names nothing. Breaks §7 "已鉴权的 WS 通道"
    (HOOK-SERVER-AUTH-02, a @should: a refused desktop is told why)."""

    def _check_token(self, connection: ServerConnection, request: Request) -> Response | None:
        refused = super()._check_token(connection, request)
        return None if refused is None else connection.respond(HTTPStatus.UNAUTHORIZED, "\n")


@broken("accepted-before-commit", subject="hook-server", run="kill", breaks=["FAULT-HOOK-SERVER-KILL-ACCEPTED-01"],
        clause='"accepted … 是最终结果已进入 server 的持久交接/恢复边界 "')
class AcceptedBeforeCommit(HookServer):
    """``accepted-before-commit``: the rows of an input that accepts or publishes a result (one with a ``deliveries``
    row) are not committed with it: they wait in memory ``DEFER_S`` seconds, while its frames go at once — ``turn.delivery(accepted)`` leaves before the result is durable. A SIGKILL in between
    loses a result the desktop was told is accepted. Breaks "accepted 不是“WebSocket 收到”或“写入本机 socket”,而是最终结果
    已进入 server 的持久交接/恢复边界" (FAULT-HOOK-SERVER-KILL-ACCEPTED-01)."""

    DEFER_S = 1.5

    def _apply(self, effects: list[Effect]) -> _Batch | None:
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

