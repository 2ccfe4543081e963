"""Message operations of the reference hook server: the bot's posts and the results of ``msg.op`` (UPSTREAM-FACTS.md
"msg.op / msg.op.result (feature msg-op-v1: server-resolved message operations send/edit/delete/react/typing/media
scoped by externalKey)"; contract: docs/control-api.md "Queries, gateway tools, group relay and message operations
(hook-server)", "Message operations").

Theory of operation. A ``msg.op`` names its target by ``scope.externalKey`` only (the core refuses a scope carrying
``chatId`` / ``threadId``: the server resolves the target). The machine resolves the scope to the lane of a task
dispatched to the device (``None`` when no such lane: "unknown scope"); ``PostBook.apply`` then carries out the
action on that lane's **posts** (the bot's messages the ops created) and answers one ``OpResult``. A ``messageId``
that is not a post of that lane is refused (``ok: false``) and nothing changes. The same ``opId`` from the same device
is answered with its first result and does nothing again (``opId`` is the idempotency key). Posts and results are
kept in memory only.

Sans-I/O: ids are an argument; the actions are a table keyed by ``MessageOpKind``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from ...hook import MessageOpKind

__all__ = ["OP_RESULTS_LIMIT", "OpResult", "Post", "PostBook", "UNKNOWN_MESSAGE", "UNKNOWN_SCOPE"]

#: The lane a scope resolved to: (provider, chatId, threadId).
Lane = tuple[str, str, str | None]
#: The results remembered for idempotency (the oldest are forgotten past this many).
OP_RESULTS_LIMIT: Final = 20_000
UNKNOWN_SCOPE: Final = "unknown scope"
UNKNOWN_MESSAGE: Final = "unknown message"
DELETED_MESSAGE: Final = "message deleted"


@dataclass(slots=True)
class Post:
    """One message the bot posted in a lane through ``msg.op`` (``send``, or one item of ``media``)."""

    message_id: str
    provider: str
    chat_id: str
    thread_id: str | None
    device_id: str
    op_id: str
    text: str
    media: list[str] = field(default_factory=list)
    reactions: list[str] = field(default_factory=list)
    deleted: bool = False
    edits: int = 0

    @property
    def lane(self) -> Lane:
        return self.provider, self.chat_id, self.thread_id

    def public(self) -> dict[str, Any]:
        """A ``list-posts`` row."""
        return {"messageId": self.message_id, "provider": self.provider, "chatId": self.chat_id,
                "threadId": self.thread_id, "deviceId": self.device_id, "opId": self.op_id, "text": self.text,
                "media": list(self.media), "reactions": list(self.reactions), "deleted": self.deleted,
                "edits": self.edits}


@dataclass(frozen=True, slots=True)
class OpResult:
    """The answer to one ``msg.op``: ``messageId`` the post created or acted on (null for typing and refusals; media:
    the first item's), ``messageIds`` the posts created (send: one, media: one per item, else none)."""

    op_id: str
    ok: bool
    message_id: str | None = None
    message_ids: tuple[str, ...] = ()
    error: str | None = None

    def wire(self) -> dict[str, Any]:
        """The ``msg.op.result`` payload."""
        return {"opId": self.op_id, "ok": self.ok, "messageId": self.message_id, "messageIds": list(self.message_ids),
                "error": self.error}


@dataclass(slots=True)
class PostBook:
    posts: dict[str, Post] = field(default_factory=dict)
    results: OrderedDict[tuple[str, str], OpResult] = field(default_factory=OrderedDict)

    def apply(self, device_id: str, op_id: str, lane: Lane | None, action: Mapping[str, Any],
              ids: Callable[[], str]) -> tuple[OpResult, bool]:
        """Carry out one ``msg.op`` of ``device_id`` in ``lane`` (None: the scope named no lane of the device):
        its result and whether it is a repeat (the same opId from the same device: the first result, nothing done)."""
        key = (device_id, op_id)
        first = self.results.get(key)
        if first is not None:
            return first, True
        if lane is None:
            result = OpResult(op_id, False, error=UNKNOWN_SCOPE)
        else:
            result = _ACTIONS[MessageOpKind(action["kind"])](self, device_id, op_id, lane, action, ids)
        self.results[key] = result
        while len(self.results) > OP_RESULTS_LIMIT:
            self.results.popitem(last=False)
        return result, False

    def listing(self, provider: str | None = None, chat_id: str | None = None) -> list[dict[str, Any]]:
        """``list-posts``: the posts in creation order (of ``provider`` / ``chatId`` when given)."""
        return [p.public() for p in self.posts.values()
                if (provider is None or p.provider == provider) and (chat_id is None or p.chat_id == chat_id)]

    # -- the actions (one per MessageOpKind) ----------------------------------------------------------------------

    def _post(self, device_id: str, op_id: str, lane: Lane, text: str, media: list[str],
              ids: Callable[[], str]) -> Post:
        post = Post(ids(), *lane, device_id, op_id, text, media)
        self.posts[post.message_id] = post
        return post

    def _target(self, lane: Lane, message_id: Any) -> Post | str:
        """The live post ``message_id`` of ``lane``, else the refusal's error."""
        post = self.posts.get(message_id) if isinstance(message_id, str) else None
        if post is None or post.lane != lane:
            return UNKNOWN_MESSAGE
        if post.deleted:
            return DELETED_MESSAGE
        return post

    def _send(self, device_id: str, op_id: str, lane: Lane, action: Mapping[str, Any],
              ids: Callable[[], str]) -> OpResult:
        post = self._post(device_id, op_id, lane, action["text"], [], ids)
        return OpResult(op_id, True, post.message_id, (post.message_id,))

    def _edit(self, device_id: str, op_id: str, lane: Lane, action: Mapping[str, Any],
              ids: Callable[[], str]) -> OpResult:
        post = self._target(lane, action["messageId"])
        if isinstance(post, str):
            return OpResult(op_id, False, error=post)
        self._edit_text(post, action["text"])
        return OpResult(op_id, True, post.message_id)

    def _edit_text(self, post: Post, text: str) -> None:
        post.text = text
        post.edits += 1

    def _delete(self, device_id: str, op_id: str, lane: Lane, action: Mapping[str, Any],
                ids: Callable[[], str]) -> OpResult:
        post = self._target(lane, action["messageId"])
        if isinstance(post, str):
            return OpResult(op_id, False, error=post)
        post.deleted = True
        return OpResult(op_id, True, post.message_id)

    def _react(self, device_id: str, op_id: str, lane: Lane, action: Mapping[str, Any],
               ids: Callable[[], str]) -> OpResult:
        """The bot's reaction becomes ``emoji``; ``""`` clears it."""
        post = self._target(lane, action["targetMessageId"])
        if isinstance(post, str):
            return OpResult(op_id, False, error=post)
        emoji = action["emoji"]
        post.reactions = [emoji] if emoji else []
        return OpResult(op_id, True, post.message_id)

    def _typing(self, device_id: str, op_id: str, lane: Lane, action: Mapping[str, Any],
                ids: Callable[[], str]) -> OpResult:
        return OpResult(op_id, True)

    def _media(self, device_id: str, op_id: str, lane: Lane, action: Mapping[str, Any],
               ids: Callable[[], str]) -> OpResult:
        """One post per item; the item's name is kept, never its data."""
        created = tuple(self._post(device_id, op_id, lane, "", [item["name"]], ids).message_id
                        for item in action["items"])
        return OpResult(op_id, True, created[0], created)


_ACTIONS: Final[dict[MessageOpKind, Callable[..., OpResult]]] = {
    MessageOpKind.SEND: PostBook._send,
    MessageOpKind.EDIT: PostBook._edit,
    MessageOpKind.DELETE: PostBook._delete,
    MessageOpKind.REACT: PostBook._react,
    MessageOpKind.TYPING: PostBook._typing,
    MessageOpKind.MEDIA: PostBook._media,
}
