"""elicitation.py: mode choice, sensitive detection, the design's text fallback."""

import mcp.types as types

from simulator.reference.probekit.elicitation import (Mode, choose_mode, fallback_to_text, form_schema, is_sensitive,
                                                      supported_modes)


def test_supported_modes():
    assert supported_modes(None) == set()
    assert supported_modes(types.ClientCapabilities()) == set()
    assert supported_modes(types.ClientCapabilities(elicitation=types.ElicitationCapability())) == {Mode.FORM}
    both = types.ClientCapabilities.model_validate({"elicitation": {"form": {}, "url": {}}})
    assert supported_modes(both) == {Mode.FORM, Mode.URL}


def test_secrets_never_in_a_form():
    assert is_sensitive("What is your GitHub token?") and is_sensitive("请输入数据库密码")
    assert not is_sensitive("Which framework?")
    assert choose_mode("Your API key?", {Mode.FORM, Mode.URL}) is Mode.URL
    assert choose_mode("Your API key?", {Mode.FORM}) is Mode.TEXT
    assert choose_mode("Which framework?", {Mode.FORM}) is Mode.FORM
    assert choose_mode("Which framework?", set()) is Mode.TEXT


def test_fallback_text_is_the_designs():
    assert fallback_to_text("Pick", ["a", "b"]) == "❓ Pick\n\n可选项：\n1. a\n2. b\n\n请回答："
    assert fallback_to_text("Why?") == "❓ Why?\n\n\n请回答："


def test_form_schema_is_flat():
    schema = form_schema([("answer", "Pick")], ["a", "b"])
    assert schema["properties"]["answer"]["enum"] == ["a", "b"] and schema["required"] == ["answer"]
