"""The base of the references' broken-variant enums: each reference can run with one deliberately broken behaviour
(``--variant NAME`` or its environment variable), kept as a test fixture that the features must catch."""

from __future__ import annotations

from enum import StrEnum
from typing import TypeVar

__all__ = ["BrokenVariant"]

V = TypeVar("V", bound="BrokenVariant")


class BrokenVariant(StrEnum):
    """Subclasses list the variants as members and name their reference in ``subject()``."""

    @classmethod
    def subject(cls) -> str:
        return "reference"

    @classmethod
    def parse(cls: type[V], value: str | None) -> V | None:
        """``None``, empty, ``none`` or ``correct`` → the correct reference (None); an unknown name raises
        ``ValueError`` naming the known ones."""
        if value is None or value.strip() in ("", "none", "correct"):
            return None
        try:
            return cls(value.strip())
        except ValueError:
            known = ", ".join(v.value for v in cls)
            raise ValueError(f"unknown {cls.subject()} variant {value!r} (known: {known})") from None
