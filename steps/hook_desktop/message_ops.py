"""Message operations at the desktop: the desktop's agent asks for an operation (control ``message-op``), the harness
as the server answers msg.op.result; the judgements read the msg.op frames and what the desktop's state shows of
each op (``DesktopDriver`` message operations, simulator/drivers/hook_desktop/message_ops.py; UPSTREAM-FACTS.md msg.op,
slack-hook-protocol.md §3)."""

from __future__ import annotations

import json

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.hook_desktop import DesktopDriver

__all__: list[str] = []


@bdd.when(parsers.re(r'the agent of "(?P<name>[^"]+)" asks for the message operation "(?P<op>[^"]+)" '
                     r'(?P<action>\{.*\})$'))
def ask(desk: DesktopDriver, name: str, op: str, action: str) -> None:
    desk.message_ops.ask_message_op(op, name, json.loads(action))


@bdd.when(parsers.parse('the harness answers msg.op "{op}" with ok and message id "{message_id}"'))
def answer_ok(desk: DesktopDriver, op: str, message_id: str) -> None:
    desk.message_ops.answer_op(op, ok=True, message_id=message_id)


@bdd.when(parsers.parse('the harness answers msg.op "{op}" with the error "{error}"'))
def answer_error(desk: DesktopDriver, op: str, error: str) -> None:
    desk.message_ops.answer_op(op, ok=False, error=error)


@bdd.when("the harness answers a msg.op the desktop never sent")
def answer_unknown(desk: DesktopDriver) -> None:
    desk.message_ops.answer_unknown_op()


@bdd.when(parsers.parse('the harness sends the malformed msg.op.result frames of "{op}"'))
def malformed_results(desk: DesktopDriver, op: str) -> None:
    desk.message_ops.send_malformed_results(op)


@bdd.then(parsers.re(r'the desktop sends msg\.op "(?P<op>[^"]+)"$'))
def msg_op_frame(desk: DesktopDriver, op: str) -> None:
    desk.message_ops.check_msg_op_sent(op)


@bdd.then(parsers.parse('the desktop sends msg.op "{op}" for "{name}" with its action'))
def msg_op_sent(desk: DesktopDriver, op: str, name: str) -> None:
    desk.message_ops.check_msg_op(op, name)


@bdd.then(parsers.parse('the desktop\'s state shows message operation "{op}" ok with message id "{message_id}"'))
def op_ok(desk: DesktopDriver, op: str, message_id: str) -> None:
    desk.message_ops.check_op_ok(op, message_id)


@bdd.then(parsers.parse('the desktop\'s state shows message operation "{op}" failed with the error "{error}"'))
def op_error(desk: DesktopDriver, op: str, error: str) -> None:
    desk.message_ops.check_op_error(op, error)


@bdd.then(parsers.parse('the desktop\'s state shows message operation "{op}" pending'))
def op_pending(desk: DesktopDriver, op: str) -> None:
    desk.message_ops.check_op_pending(op)


@bdd.then(parsers.parse('the desktop answers message operation "{op}" as unavailable'))
def op_unavailable(desk: DesktopDriver, op: str) -> None:
    desk.message_ops.check_op_unavailable(op)
