"""Probe-kit elicitation: what the server asked the client, and the text fallback
(``simulator.drivers.probekit.elicitation``)."""

from __future__ import annotations

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.probekit import (
    ProbeKitDriver, check_form_sent, check_no_elicitation, check_no_form, check_no_secret_in_forms,
    check_numbered_options, check_url_only, check_url_sent,
)


@bdd.when(parsers.parse('the harness asks the user "{question}" through the subject'))
def when_ask(probekit: ProbeKitDriver, question: str) -> None:
    probekit.ask_for_form(question)


@bdd.then("the server sent no elicitation request")
def then_no_elicit(probekit: ProbeKitDriver) -> None:
    check_no_elicitation(probekit.elicitations)


@bdd.then("the result text asks the question with numbered options")
def then_numbered(probekit: ProbeKitDriver) -> None:
    check_numbered_options(probekit.call)


@bdd.then("the server sent a form elicitation with a requested schema")
def then_form_sent(probekit: ProbeKitDriver) -> None:
    check_form_sent(probekit.elicitations, probekit.asked)


@bdd.then("the server sent no form elicitation")
def then_no_form(probekit: ProbeKitDriver) -> None:
    check_no_form(probekit.elicitations)


@bdd.then("the server sent a url elicitation with a url and an elicitation id")
def then_url_sent(probekit: ProbeKitDriver) -> None:
    check_url_sent(probekit.elicitations, probekit.call)


@bdd.then("every elicitation sent is in url mode with a url and an elicitation id")
def then_url_only(probekit: ProbeKitDriver) -> None:
    check_url_only(probekit.elicitations)


@bdd.then("no form elicitation asks for a token, a password or a key")
def then_no_secret(probekit: ProbeKitDriver) -> None:
    check_no_secret_in_forms(probekit.elicitations)
