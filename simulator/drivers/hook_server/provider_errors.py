"""A provider's raw error never crosses the wire, judged in a scenario over every frame the server sent (spec
slack-hook-protocol.md "turn.delivery 可靠性与兼容": "provider 的原始响应正文不得上 wire"; §5 turn.delivery "retrying/failed
的 error 仅含安全结构化 code/message/retryable,不得透传 provider 原始响应、凭证或用户内容").

The harness makes the provider fail with a raw response it made up (``simulator.drivers.hook_server.raw_errors.new_raw_error``) through the
control API: ``fail-publishes {rawError}`` (the channel) and ``fail-tool-calls {rawError, deviceId}`` (the Slack API of
the gateway tools; docs/control-api.md "Queries, gateway tools, group relay and message operations (hook-server)"). The
texts judged are those the scenario's control requests carried (read from the wire log, as the run-wide rule of
``simulator.drivers.emitted_frames`` reads them), so the two judge the same thing. No frame, or no raw error given, leaves
nothing to judge: a failure, never a pass.
"""

from __future__ import annotations

from dataclasses import dataclass

from .raw_errors import new_raw_error, raw_error_leaks, raw_errors_given
from .privacy import PrivacyChecks
from .scenario import HookServerScenario

__all__ = ["ProviderErrorChecks"]

_SHOWN = 5


@dataclass(eq=False)
class ProviderErrorChecks:
    """A provider's raw error in no frame the server sends (spec turn.delivery 可靠性与兼容), judged over the
    scenario (``scenario``) and the frames the server sent (``privacy``)."""

    scenario: HookServerScenario
    privacy: PrivacyChecks

    def fail_publishes_raw(self, count: int, name: str) -> None:
        """The channel fails the next ``count`` publishes of ``name``, answering a raw provider response each time."""
        self.scenario.ctl("fail-publishes", {"count": count, "requestId": self.scenario.rid(name),
                                             "rawError": new_raw_error("chat.update")})

    def fail_slack_calls(self, dev: str, count: int) -> None:
        """The Slack API behind the gateway tools fails the device's next ``count`` calls with a raw response
        (``fail-tool-calls``; without it: not testable)."""
        self.scenario.ctl("fail-tool-calls", {"count": count, "rawError": new_raw_error("slack.api"),
                                              "deviceId": self.scenario.device(dev).role.device_id})

    def raw_errors(self) -> list[str]:
        """The raw provider errors this scenario made the server's far side answer (its control requests)."""
        return raw_errors_given(self.scenario.wire.events())

    def check_no_raw_error(self) -> None:
        """No frame the server sent in this scenario, on any device's connection, carries a raw provider error the
        scenario gave (whole, or a piece of it, in any string of the frame)."""
        self.scenario.barrier()
        raws = self.raw_errors()
        assert raws, "the scenario made the provider answer no raw error: nothing to judge"
        frames = self.privacy.server_frames()
        assert frames, "the server sent no frame at all in this scenario: nothing to judge"
        found = [f"frame #{i + 1}: {text[:300]}" for i, text in enumerate(frames) if raw_error_leaks(text, raws)]
        assert not found, (f"{len(found)} of the {len(frames)} frames the server sent carry a provider's raw "
                           f"response (\"provider 的原始响应正文不得上 wire\"):\n  " + "\n  ".join(found[:_SHOWN]))
