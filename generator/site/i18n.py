"""Locales: gettext catalogs compiled in memory from locales/*.po, and Babel formatting per locale.

Numbers reach this module as raw engine values (bytes, seconds, tok/s, dollars) and leave as
text in the reader's conventions: French decimal comma, narrow no-break space grouping and
"Gio"; Chinese grouping and units.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import gettext
import io
import math
import re
from functools import cache
from pathlib import Path
from typing import Any

from babel import Locale
from babel.dates import format_date
from babel.messages.catalog import Catalog as PoCatalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_compact_decimal

LOCALES_DIR = Path(__file__).resolve().parents[2] / "locales"
BABEL_LOCALE = {"en": "en", "fr": "fr", "zh": "zh_Hans_CN"}
HREFLANG = {"en": "en", "fr": "fr", "zh": "zh-Hans"}
HTML_LANG = HREFLANG
LANG_NAMES = {"en": "English", "fr": "Français", "zh": "简体中文"}
GIB = 1024**3
# Binary units as each language writes them (French: octet → Gio, Mio).
UNITS = {"en": ("KiB", "MiB", "GiB", "TiB"), "fr": ("Kio", "Mio", "Gio", "Tio"), "zh": ("KiB", "MiB", "GiB", "TiB")}


class TranslationError(ValueError):
    """A translation the pages cannot use (its %-placeholders do not format)."""


_PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def catalog_problems(catalog: PoCatalog, where: str) -> list[str]:
    """One line per translation of ``catalog`` (read from ``where``) that does not %-format with its
    English text's placeholders, as every translation is formatted: a lone ``%`` ("100 % open") must be
    written ``%%``, and a placeholder must be one the English text has."""
    problems = []
    for message in catalog:
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple | list) else (message.id,)
        names = {name: "x" for text in ids for name in _PLACEHOLDER.findall(text)} | {"num": 1}
        strings = message.string if isinstance(message.string, tuple | list) else (message.string,)
        for text in strings:
            if not text:
                continue
            try:
                text % names
            except (ValueError, TypeError, KeyError) as exc:
                problems.append(
                    f"{where}:{message.lineno}: the translation of {ids[0]!r} is not valid %-format text "
                    f"({type(exc).__name__}: {exc}); write a percent sign as %% and use only the English "
                    "text's placeholders"
                )
    return problems


@cache
def translations(lang: str) -> gettext.NullTranslations:
    """The compiled catalog for ``lang`` (English: the identity); TranslationError if a translation
    cannot be formatted."""
    po = LOCALES_DIR / lang / "LC_MESSAGES" / "messages.po"
    if lang == "en" or not po.exists():
        return gettext.NullTranslations()
    with po.open("rb") as fh:
        catalog = read_po(fh, locale=BABEL_LOCALE[lang])
    problems = catalog_problems(catalog, str(po.relative_to(LOCALES_DIR.parent)))
    if problems:
        raise TranslationError("\n".join(problems))
    buf = io.BytesIO()
    write_mo(buf, catalog)
    buf.seek(0)
    return gettext.GNUTranslations(buf)


def _affixes(pattern: str, symbol: str = "") -> tuple[str, str]:
    """(prefix, suffix) around the digits of a CLDR number pattern, ``¤`` replaced by ``symbol``."""
    positive = pattern.split(";")[0]
    first = min(positive.index(c) for c in "#0" if c in positive)
    last = positive.rindex("0") + 1
    return positive[:first].replace("¤", symbol), positive[last:].replace("¤", symbol)


@cache
def number_spec(lang: str) -> dict[str, Any]:
    """How ``lang`` writes numbers, from CLDR through Babel: grouping and decimal symbols, the affixes
    of percentages and US dollars, binary units. Python and the browser (``static/format.js``) format
    from this same data, so a page reads the same before and after JavaScript runs."""
    locale = Locale.parse(BABEL_LOCALE[lang])
    symbols = locale.number_symbols["latn"]
    return {
        "group": symbols["group"],
        "decimal": symbols["decimal"],
        "minus": symbols["minusSign"],
        "percent": _affixes(locale.percent_formats[None].pattern),
        "usd": _affixes(locale.currency_formats["standard"].pattern, locale.currency_symbols.get("USD", "US$")),
        "units": UNITS[lang],
    }


def _is_tie(value: float, digits: int) -> bool:
    """Whether ``value`` lies exactly halfway between two numbers of ``digits`` decimals."""
    n, d = value.as_integer_ratio()  # exact; d is a power of two
    return bool((2 * n * 10**digits) % (2 * d) == d)


def _fixed(value: float, digits: int) -> str:
    """``value`` with ``digits`` decimals, ties rounded away from zero on the exact binary value (as
    JavaScript's ``toFixed`` does), ASCII grouping commas. Python's own formatting rounds ties to
    even, so only exact ties take the slower decimal path."""
    if isinstance(value, float) and _is_tie(value, digits):
        rounded = decimal.Decimal(value).quantize(decimal.Decimal(1).scaleb(-digits), rounding=decimal.ROUND_HALF_UP)
        return f"{rounded:,.{digits}f}"
    return f"{value:,.{digits}f}"


@dataclasses.dataclass(frozen=True)
class NumberFormat:
    """Formatting for one locale; every method takes a raw sizing value. ``static/format.js`` is the
    same code for the browser (the parity vectors check every method)."""

    lang: str
    # compact()'s answers by (value, digits): Babel is slow, and the same sizes recur on many pages.
    _compact: dict[tuple[float, int], str] = dataclasses.field(default_factory=dict, compare=False, repr=False)

    @property
    def locale(self) -> str:
        return BABEL_LOCALE[self.lang]

    @property
    def spec(self) -> dict[str, Any]:
        """The locale's number conventions (see :func:`number_spec`)."""
        return number_spec(self.lang)

    def num(self, value: float | None, digits: int = 0) -> str:
        """A grouped decimal number with the locale's symbols (3-digit groups in en, fr and zh)."""
        if value is None or (isinstance(value, float) and not math.isfinite(value)):
            return "—"
        spec = self.spec
        text = _fixed(abs(value), digits)
        text = text.replace(",", "\x00").replace(".", spec["decimal"]).replace("\x00", spec["group"])
        negative = value < 0 and text.strip("0.,\u202f\u00a0") != ""
        return spec["minus"] + text if negative else text

    def sig(self, value: float | None) -> str:
        """A number with about three significant digits (1.23, 12.3, 123, 1,234)."""
        if value is None or not math.isfinite(value):
            return "—"
        digits = 2 if abs(value) < 10 else 1 if abs(value) < 100 else 0
        return self.num(value, digits)

    def bytes(self, n: float | None) -> str:
        """Bytes in binary units: KiB below 1 MiB, MiB below 1 GiB, GiB below 1 TiB."""
        if n is None:
            return "—"
        kib, mib, gib, tib = UNITS[self.lang]
        if abs(n) < 1024**2:
            return f"{self.num(n / 1024, 1)}\u00a0{kib}"
        if abs(n) < GIB:
            return f"{self.num(n / 1024**2, 0)}\u00a0{mib}"
        if abs(n) < 1024 * GIB:
            return f"{self.num(n / GIB, 1)}\u00a0{gib}"
        return f"{self.num(n / 1024**4, 2)}\u00a0{tib}"

    def pct(self, fraction: float | None, digits: int = 0) -> str:
        """A percentage in the locale's pattern (French: no-break space before %)."""
        if fraction is None:
            return "—"
        prefix, suffix = self.spec["percent"]
        return f"{prefix}{self.num(fraction * 100, digits)}{suffix}"

    def usd(self, value: float | None, digits: int | None = None) -> str:
        """US dollars; two decimals by default, three below ten cents, none when ``digits`` is 0."""
        if value is None:
            return "—"
        if digits is None:
            digits = 2 if abs(value) >= 0.1 or value == 0 else 3
        prefix, suffix = self.spec["usd"]
        text = self.num(abs(value), digits)
        sign = self.spec["minus"] if value < 0 and text != self.num(0, digits) else ""
        return f"{sign}{prefix}{text}{suffix}"

    def compact(self, n: float | None, digits: int = 1) -> str:
        """A large number in the locale's short form: 32.8B, 32,8 Md, 327.6亿 (``digits`` decimals at most)."""
        if n is None:
            return "—"
        # Babel takes ~0.1 ms a number, and a build writes each model's size on 267 hardware pages.
        key = (n, digits)
        text = self._compact.get(key)
        if text is None:
            text = self._compact[key] = format_compact_decimal(n, locale=self.locale, fraction_digits=digits)
        return text

    def date(self, value: dt.date | str | None) -> str:
        """A date in the locale's medium form."""
        if value is None or isinstance(value, str):
            return "—" if value in (None, "unknown") else str(value)
        return format_date(value, format="medium", locale=self.locale)

    def tokens(self, n: int | None) -> str:
        """A token count: 8K, 128K, 1M style where exact, else grouped."""
        if n is None:
            return "—"
        if n >= 1024 and n % 1024 == 0:
            k = n // 1024
            return f"{self.num(k)}K" if k < 1024 or k % 1024 else f"{self.num(k // 1024)}M"
        return self.num(n)
