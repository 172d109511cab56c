"""Building blocks of the catalog schema: the frozen record base and the bounded number types."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

# Characters no catalog text may hold: C0/C1 controls (tab and newline only in prose fields), and the
# bidirectional overrides, isolates and invisible marks that make text read differently than it is.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_CONTROL_PROSE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_INVISIBLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]")
# Fields that may span lines (Markdown-free prose shown as text).
PROSE_FIELDS = frozenset({"notes", "description", "derivation", "method"})


def _check_text(text: str, prose: bool) -> None:
    bad = (_CONTROL_PROSE if prose else _CONTROL).search(text) or _INVISIBLE.search(text)
    if bad:
        raise ValueError(f"character U+{ord(bad.group()):04X} is not allowed in catalog text")


class Frozen(BaseModel):
    """Base for catalog records: immutable, unknown keys rejected, no type coercion, no inf/NaN,
    and no control or bidirectional-override characters in any text."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, allow_inf_nan=False)

    @field_validator("*", mode="after")
    @classmethod
    def _safe_text(cls, value: object, info: ValidationInfo) -> object:
        prose = info.field_name in PROSE_FIELDS
        items = [value]
        while items:
            item = items.pop()
            if isinstance(item, str):
                _check_text(item, prose)
            elif isinstance(item, tuple):
                items += item
            elif isinstance(item, dict):
                items += [*item.keys(), *item.values()]
        return value


# Every number has a range a real record stays far inside: a typo (1e12 layers) is an error, not a hang.
Layers = Annotated[int, Field(ge=1, le=1024)]
Width = Annotated[int, Field(ge=1, le=1_048_576)]
Heads = Annotated[int, Field(ge=1, le=65_536)]
Tokens = Annotated[int, Field(ge=1, le=1_000_000_000)]
