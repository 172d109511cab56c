"""Locales: gettext catalogs compiled in memory from locales/*.po, and Babel formatting per locale.

Numbers reach this module as raw engine values (bytes, seconds, tok/s, dollars) and leave as
text in the reader's conventions: French decimal comma, narrow no-break space grouping and
"Gio"; Chinese grouping and units.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import gettext
import io
import math
from functools import cache
from pathlib import Path

from babel import Locale
from babel.dates import format_date
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_currency, format_percent

LOCALES_DIR = Path(__file__).resolve().parents[2] / "locales"
LANGS = ("en", "fr", "zh")
BABEL_LOCALE = {"en": "en", "fr": "fr", "zh": "zh_Hans_CN"}
HREFLANG = {"en": "en", "fr": "fr", "zh": "zh-Hans"}
HTML_LANG = HREFLANG
LANG_NAMES = {"en": "English", "fr": "Français", "zh": "简体中文"}
GIB = 1024**3
# Binary units as each language writes them (French: octet → Gio, Mio).
UNITS = {"en": ("KiB", "MiB", "GiB", "TiB"), "fr": ("Kio", "Mio", "Gio", "Tio"), "zh": ("KiB", "MiB", "GiB", "TiB")}


@cache
def translations(lang: str) -> gettext.NullTranslations:
    """The compiled catalog for ``lang`` (English: the identity)."""
    po = LOCALES_DIR / lang / "LC_MESSAGES" / "messages.po"
    if lang == "en" or not po.exists():
        return gettext.NullTranslations()
    with po.open("rb") as fh:
        catalog = read_po(fh, locale=BABEL_LOCALE[lang])
    buf = io.BytesIO()
    write_mo(buf, catalog)
    buf.seek(0)
    return gettext.GNUTranslations(buf)


@cache
def _symbols(locale: str) -> tuple[str, str]:
    """(group, decimal) symbols of a locale, from CLDR through Babel."""
    symbols = Locale.parse(locale).number_symbols["latn"]
    return symbols["group"], symbols["decimal"]


@dataclasses.dataclass(frozen=True)
class NumberFormat:
    """Formatting for one locale; every method takes a raw engine value."""

    lang: str

    @property
    def locale(self) -> str:
        return BABEL_LOCALE[self.lang]

    def num(self, value: float | None, digits: int = 0) -> str:
        """A grouped decimal number with the locale's symbols (3-digit groups in en, fr and zh)."""
        if value is None or (isinstance(value, float) and not math.isfinite(value)):
            return "—"
        group, decimal = _symbols(self.locale)
        text = f"{value:,.{digits}f}"
        return text.replace(",", "\x00").replace(".", decimal).replace("\x00", group)

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
        """A percentage in the locale's pattern (French: narrow no-break space before %)."""
        if fraction is None:
            return "—"
        pattern = Locale.parse(self.locale).percent_formats[None].pattern.split(";")[0]
        if digits:
            last = pattern.rindex("0") + 1
            pattern = pattern[:last] + "." + "0" * digits + pattern[last:]
        return format_percent(fraction, format=pattern, locale=self.locale)

    def usd(self, value: float | None, digits: int | None = None) -> str:
        """US dollars; two decimals by default, three below ten cents, none when ``digits`` is 0."""
        if value is None:
            return "—"
        if digits is None:
            digits = 2 if abs(value) >= 0.1 or value == 0 else 3
        pattern = Locale.parse(self.locale).currency_formats["standard"].pattern.split(";")[0]
        decimals = "." + "0" * digits if digits else ""
        pattern = pattern.replace(".00", decimals)
        return format_currency(value, "USD", format=pattern, locale=self.locale, currency_digits=False)

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
