"""No English in French and Chinese pages: the visible text of every page type (and the titles, alt
texts, labels and placeholders people see) is scanned for common English words. Names (models,
accelerators, vendors, engines), units and code are not words of this list; text a page marks
lang="en" (catalog notes kept in English, engine calibration notes) is skipped."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

# Common English words that are not French words (nor parts of catalog names).
ENGLISH = frozenset(
    line.strip()
    for line in (Path(__file__).with_name("english-words.txt")).read_text(encoding="utf-8").splitlines()
    if line.strip() and not line.startswith("#")
)
# Terms French writing takes from English as they are ("fine-tuning" is what French ML practitioners
# and courses call it).
LOANWORDS = {"fr": frozenset({"fine", "tuning"}), "zh": frozenset()}
SKIP_TAGS = {"script", "style", "code", "pre", "svg"}
VISIBLE_ATTRS = ("title", "alt", "aria-label", "placeholder", "data-label", "data-placeholder", "data-none")


def prose_words(text: str) -> list[str]:
    """The words of ``text`` that read as prose: identifiers (URLs, repository paths, file names, keys
    such as ``kyuz0/…/results.log`` or ``LICENSE-MODEL``) are not."""
    out = []
    for token in text.split():
        if re.search(r"[/:@_=]|\.\w", token) or re.fullmatch(r"[A-Z0-9-]+", token.strip("(),;.")):
            continue
        out += re.findall(r"[A-Za-z']+", token)
    return out


class Visible(HTMLParser):
    """Collects the text a reader sees, outside code, scripts and elements marked lang="en"."""

    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, bool]] = []  # (tag, skipped)
        self.words: list[str] = []

    def skipped(self) -> bool:
        return any(s for _, s in self.stack)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        skip = tag in SKIP_TAGS or (a.get("lang") or "").startswith("en") and tag != "html"
        if not self.skipped() and not skip:
            for name in VISIBLE_ATTRS:
                if a.get(name):
                    self.words += prose_words(a[name] or "")
        if tag not in self.VOID:
            self.stack.append((tag, skip))

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                break

    def handle_data(self, data: str) -> None:
        if not self.skipped():
            self.words += prose_words(data)


def english_words(html: str, lang: str = "") -> list[str]:
    v = Visible()
    v.feed(html)
    allowed = LOANWORDS.get(lang, frozenset())
    return sorted({w for w in v.words if w.lower() in ENGLISH and w.lower() not in allowed})


def page_types(root: Path, lang: str) -> dict[str, Path]:
    """One page of every type in ``lang``."""
    models = sorted(p for p in (root / lang / "models").iterdir() if p.is_dir())
    pairs = sorted(p for p in models[0].iterdir() if p.is_dir())
    hardware = sorted(p for p in (root / lang / "hardware").iterdir() if p.is_dir())
    return {
        "home": root / lang / "index.html",
        "models": root / lang / "models" / "index.html",
        "model": models[0] / "index.html",
        "pair": pairs[0] / "index.html",
        "pair-no-fit": next(
            (
                p / "index.html"
                for m in models
                for p in m.iterdir()
                if p.is_dir() and "id=ctx-h" not in (p / "index.html").read_text()
            ),
            pairs[-1] / "index.html",
        ),
        "hardware-index": root / lang / "hardware" / "index.html",
        "hardware": hardware[0] / "index.html",
        "methodology": root / lang / "methodology" / "index.html",
        "accuracy": root / lang / "accuracy" / "index.html",
    }


@pytest.mark.parametrize("lang", ["fr", "zh"])
def test_no_english_in_translated_pages(sample: Path, lang: str) -> None:
    leaks = {}
    for kind, path in page_types(sample, lang).items():
        found = english_words(path.read_text(encoding="utf-8"), lang)
        if found:
            leaks[kind] = found
    assert not leaks, leaks


@pytest.mark.parametrize("lang", ["fr", "zh"])
def test_no_english_in_the_workbench_controls(sample: Path, lang: str) -> None:
    ui = next((sample / "assets").glob(f"workbench-ui-{lang}.*.html"))
    assert not english_words(ui.read_text(encoding="utf-8"), lang)


def test_the_scan_finds_english() -> None:
    """The test can fail: an English sentence outside lang="en" is caught, one inside is not."""
    assert english_words("<p>This model does not fit</p>") == ["This", "does", "fit", "model", "not"]
    assert english_words('<p lang="en">This model does not fit</p><p>Ce modèle ne tient pas</p>') == []


class Text(Visible):
    """The visible text itself (same rules as the word scan)."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []

    def handle_data(self, data: str) -> None:
        if not self.skipped():
            self.texts.append(data)


# French: a narrow no-break space (or a no-break space) before : ; ? ! and %, never a plain space or none.
FRENCH = re.compile(r"\S[ ]?[;?!%]|[^\s\d\u202f\u00a0]:(?=\s)|[ ][:;?!%]")
# Chinese: full-width punctuation next to Chinese text.
CHINESE = re.compile(r"[\u4e00-\u9fff][,;:?!]|[,;:?!]\s*[\u4e00-\u9fff]")


def typography(html: str, lang: str) -> list[str]:
    t = Text()
    t.feed(html)
    bad = []
    for text in t.texts:
        # Split at ASCII white space only: the narrow no-break spaces are what is checked.
        prose = " ".join(w for w in re.split(r"[ \t\r\n]+", text) if not re.search(r"[/@_=]|://|\.\w", w))
        if lang == "fr":
            bad += [m.group(0) for m in FRENCH.finditer(prose) if m.group(0)[-1:] != "%" or m.group(0)[0] == " "]
        else:
            bad += [m.group(0) for m in CHINESE.finditer(prose)]
    return bad


@pytest.mark.parametrize("lang", ["fr", "zh"])
def test_locale_typography(sample: Path, lang: str) -> None:
    problems = {}
    for kind, path in page_types(sample, lang).items():
        found = typography(path.read_text(encoding="utf-8"), lang)
        if found:
            problems[kind] = found[:5]
    assert not problems, problems


def test_the_typography_scan_finds_mistakes() -> None:
    assert typography("<p>Prix : 3 $</p>", "fr") == [" :"]
    assert typography("<p>Prix\u202f: 3 $</p>", "fr") == []
    assert typography("<p>价格, 日期</p>", "zh") == ["格,"]


# Words of our own research that must not reach readers (catalog notes are printed on pages).
INTERNAL = ("stored corpus", "make calibrate", "verbatim quotation", "please verify", "linkable from here")


def test_no_research_notes_on_public_pages(sample: Path) -> None:
    found = {}
    for lang in ("en", "fr", "zh"):
        for kind, path in page_types(sample, lang).items():
            text = path.read_text(encoding="utf-8").lower()
            hits = [phrase for phrase in INTERNAL if phrase in text]
            if hits:
                found[f"{lang} {kind}"] = hits
    assert not found, found
