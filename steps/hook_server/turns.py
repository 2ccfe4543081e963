"""What a device answers (task.ack, turn.progress, turn.end, turn.reopen), replays, bad input, and the server's
dropped-frame log (spec §3, §4, §5 阶段 2/4/7/9, 阶段 18)."""

from __future__ import annotations

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.hook_server import HookServerDriver
from simulator.hook import TurnEndStatus

from .gherkin import unescape


@bdd.when(parsers.re(r'device "(?P<dev>[^"]+)" acks "(?P<name>[^"]+)" as (?P<result>accepted|queued|rejected)'
                     r'(?: at position (?P<pos>\d+))?(?: with reason "(?P<reason>[^"]+)")?$'))
def device_acks(hook_srv: HookServerDriver, dev: str, name: str, result: str, pos: str | None,
                reason: str | None) -> None:
    hook_srv.turns.ack(dev, name, result, position=int(pos) if pos else None, reason=reason)


@bdd.when(parsers.re(r'device "(?P<dev>[^"]+)" reports progress "(?P<text>(?:[^"\\]|\\.)*)" for "(?P<name>[^"]+)"$'))
def device_progress(hook_srv: HookServerDriver, dev: str, text: str, name: str) -> None:
    hook_srv.turns.progress(dev, name, unescape(text))


@bdd.when(parsers.re(r'device "(?P<dev>[^"]+)" ends "(?P<name>[^"]+)" '
                     r'(?:ok with "(?P<final>[^"]*)"|with the error "(?P<error>[^"]+)"|(?P<cancelled>cancelled))$'))
def device_ends(hook_srv: HookServerDriver, dev: str, name: str, final: str | None, error: str | None,
                cancelled: str | None) -> None:
    status = TurnEndStatus.CANCELLED if cancelled else TurnEndStatus.OK if error is None else TurnEndStatus.ERROR
    hook_srv.turns.end(dev, name, status, final or "", error)


@bdd.when(parsers.parse('device "{dev}" ends the round "{round_}" of "{orig}" ok with "{final}"'))
def device_ends_round_early(hook_srv: HookServerDriver, dev: str, round_: str, orig: str, final: str) -> None:
    hook_srv.turns.end_round_early(dev, round_, orig, final)


@bdd.when(parsers.parse('device "{dev}" reports progress "{text}" for the unregistered request "{name}"'))
def progress_unregistered(hook_srv: HookServerDriver, dev: str, text: str, name: str) -> None:
    hook_srv.turns.progress_unregistered(dev, name, text)


@bdd.when(parsers.parse('device "{dev}" ends the unregistered request "{name}" ok with "{final}"'))
def end_unregistered(hook_srv: HookServerDriver, dev: str, name: str, final: str) -> None:
    hook_srv.turns.end_unregistered(dev, name, final)


@bdd.when(parsers.re(r'device "(?P<dev>[^"]+)" reopens "(?P<orig>[^"]+)" as "(?P<round_>[^"]+)"(?P<again> again)?$'))
def device_reopens(hook_srv: HookServerDriver, dev: str, orig: str, round_: str, again: str | None) -> None:
    hook_srv.turns.reopen(dev, orig, round_)  # "again": the round's name is known already, its requestId is sent again


@bdd.when(parsers.parse('device "{dev}" reopens an unknown task as "{round_}"'))
def device_reopens_unknown(hook_srv: HookServerDriver, dev: str, round_: str) -> None:
    hook_srv.turns.reopen_unknown(dev, round_)


@bdd.when(parsers.parse('device "{dev}" sends its last frame again, byte for byte'))
def device_duplicate(hook_srv: HookServerDriver, dev: str) -> None:
    hook_srv.turns.send_last_again(dev)


@bdd.when(parsers.parse('device "{dev}" replays its turn.end of "{name}", byte for byte'))
def device_replays_end(hook_srv: HookServerDriver, dev: str, name: str) -> None:
    hook_srv.turns.replay_end(dev, name)


# -- bad input ---------------------------------------------------------------------------------------------------------


@bdd.when(parsers.parse('device "{dev}" sends a frame of the unknown type "{type_}"'))
def send_unknown_type(hook_srv: HookServerDriver, dev: str, type_: str) -> None:
    hook_srv.bad_input.send_unknown_type(dev, type_)


@bdd.when(parsers.parse('device "{dev}" sends a turn.progress for a request the server never dispatched'))
def send_stray_progress(hook_srv: HookServerDriver, dev: str) -> None:
    hook_srv.bad_input.send_stray_progress(dev)


@bdd.when(parsers.re(r'device "(?P<dev>[^"]+)" sends the raw text (?P<text>.+)$'))
def send_raw_text(hook_srv: HookServerDriver, dev: str, text: str) -> None:
    hook_srv.bad_input.send_raw_text(dev, text)


@bdd.when(parsers.parse('device "{dev}" sends an invalid turn.end for "{name}" (status ok with an errorMessage)'))
def send_invalid_end(hook_srv: HookServerDriver, dev: str, name: str) -> None:
    hook_srv.bad_input.send_invalid_end(dev, name)


@bdd.when(parsers.parse('device "{dev}" sends a turn.progress for "{name}" longer than the frame limit'))
def send_oversized(hook_srv: HookServerDriver, dev: str, name: str) -> None:
    hook_srv.bad_input.send_oversized(dev, name)


# -- Then: the dropped-frame log ---------------------------------------------------------------------------------------


@bdd.then(parsers.parse('the server logged the dropped frame of type "{type_}" from device "{dev}"'))
def logged_unknown(hook_srv: HookServerDriver, type_: str, dev: str) -> None:
    hook_srv.records.expect_dropped_type(dev, type_)


@bdd.then(parsers.re(r'the server logged a dropped invalid frame from device "(?P<dev>[^"]+)"'
                     r'(?: at "(?P<path>[^"]*)")?$'))
def logged_invalid(hook_srv: HookServerDriver, dev: str, path: str | None) -> None:
    hook_srv.records.expect_dropped_invalid(dev, path)
