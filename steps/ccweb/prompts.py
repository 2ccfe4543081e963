"""ccweb steps: the prompts of the target run and of the source continuation run (ccweb-reply-mode-prd.md §4, §5):
what they must contain, and the wording only a reader can judge."""

from __future__ import annotations

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.ccweb import CcwebDriver, PromptedRun, PromptItem

_WHICH = r"(?P<which>target run|source continuation run)"


@bdd.then(parsers.re(rf"the prompt of the {_WHICH} contains the (?P<item>.+)$"))
def then_prompt_contains(ccweb: CcwebDriver, which: str, item: str) -> None:
    ccweb.expect_prompt_contains(PromptedRun(which), PromptItem(item))


@bdd.then(parsers.re(rf'a reader must judge that the prompt of the {_WHICH} says "(?P<asks>[^"]+)"$'))
def then_reader_prompt(ccweb: CcwebDriver, which: str, asks: str) -> None:
    ccweb.judge_prompt(PromptedRun(which), asks)
