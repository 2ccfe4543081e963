"""What the channel shows, judged: the message of a task (state, text, unchanged, closed out, publish count) and
the messages of a chat. A positive check polls up to the step limit after a barrier; a "nothing changed" or
"there is none" check looks once after the barrier and ``SETTLE_S``, or the server's ``settle``
(``HookServerScenario.settle``)."""

from __future__ import annotations

from dataclasses import dataclass

from .channel import ChannelOps
from .scenario import HookServerScenario

__all__ = ["ChannelChecks"]

#: The fields of a message that an unchanged message keeps (``revision`` and ``publishes`` are required fields of a
#: message, schema-checked, so a message that omits them fails instead of looking unchanged).
UNCHANGED_FIELDS = ("state", "text", "revision", "publishes")


@dataclass(eq=False)
class ChannelChecks:
    """What the channel shows, judged (spec §5 阶段 2/4/7/9), over the scenario (``scenario``) and the channel's
    readers (``channel``)."""

    scenario: HookServerScenario
    channel: ChannelOps

    def expect_message_state(self, name: str, state: str, text: str | None = None) -> None:
        """The message of ``name`` reaches ``state`` (and reads exactly ``text`` when given)."""
        self.scenario.barrier()

        def check() -> None:
            m = self.channel.message(name)
            assert m.get("state") == state, f"the message of {name!r} is {m.get('state')!r}, expected {state!r}: " \
                                            f"text {m.get('text')!r}"[:600]
            if text is not None:
                assert m.get("text") == text, f"the message of {name!r} reads {m.get('text')!r}, expected " \
                                              f"{text!r}"[:600]

        self.scenario.eventually(check)

    def expect_message_shows(self, name: str, text: str) -> None:
        """The message of ``name`` comes to contain ``text``."""
        self.scenario.barrier()

        def check() -> None:
            m = self.channel.message(name)
            assert text in (m.get("text") or ""), f"the message of {name!r} reads {m.get('text')!r}, which does " \
                                                  f"not show {text!r}"[:600]

        self.scenario.eventually(check)

    def expect_message_hides(self, name: str, text: str) -> None:
        """Once settled, the message of ``name`` does not contain ``text``."""
        self.scenario.settle()
        m = self.channel.message(name)
        assert text not in m["text"], f"the message of {name!r} reads {m['text']!r}"[:600]

    def expect_message_unchanged(self, name: str) -> None:
        """Once settled, the message of ``name`` is as it was last observed (``UNCHANGED_FIELDS``)."""
        before = dict(self.scenario.seen.get(self.scenario.root(name)) or {})
        assert before, f"the message of {name!r} was not observed before"
        self.scenario.settle()
        after = self.channel.message(name)
        for key in UNCHANGED_FIELDS:
            assert after.get(key) == before.get(key), \
                f"the message of {name!r} changed its {key}: {before.get(key)!r} → {after.get(key)!r}"[:600]

    def expect_closed_out(self, name: str, *states: str) -> None:
        """After a disconnect the message of ``name`` comes to one of ``states`` (waiting out a delayed clean-up)."""
        def check() -> None:
            m = self.channel.message(name)
            assert m.get("state") in states, \
                f"after the disconnect the message of {name!r} is {m.get('state')!r} ({m.get('text')!r}), " \
                f"expected {' or '.join(repr(s) for s in states)}"[:600]

        self.scenario.eventually(check, max(self.scenario.step_timeout, self.scenario.cleanup_latency_ms / 1000 + 2.0))

    def expect_chat_count(self, chat: str, n: int) -> None:
        """Once settled, ``chat`` holds exactly ``n`` messages."""
        self.scenario.settle()
        messages = self.channel.messages_of_chat(chat)
        assert len(messages) == n, f"chat {chat!r} holds {len(messages)} messages, expected {n}: " \
                                   f"{[(m.get('requestId'), m.get('state'), m.get('text')) for m in messages]!r}"[:800]

    def expect_no_message_for(self, name: str) -> None:
        """Once settled, no channel message belongs to (or routes) the requestId of ``name``."""
        self.scenario.settle()
        rid = self.scenario.rid(name)
        found = self.scenario.rows("list-messages", {}, keep=lambda m: m["requestId"] == rid or rid in m["routes"])
        assert not found, f"the channel holds a message for the ignored requestId {rid}: {found!r}"[:600]

    def expect_published(self, name: str, n: int) -> None:
        """The result of ``name`` comes to ``n`` publishes, and still counts ``n`` once settled."""
        self.scenario.barrier()
        self.scenario.eventually(lambda: self._assert_publishes(name, n))
        self.scenario.settled()
        self._assert_publishes(name, n)

    def _assert_publishes(self, name: str, n: int) -> None:
        m = self.channel.message(name)
        assert m.get("publishes") == n, f"the result of {name!r} was published {m.get('publishes')!r} times, " \
                                        f"expected {n}"
