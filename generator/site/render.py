"""The Jinja environment per locale: autoescaping, gettext from the locale's catalog, Babel formatting."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

import jinja2
import markdown
import minify_html
from markupsafe import Markup, escape

from generator.site import routes
from generator.site.i18n import HREFLANG, HTML_LANG, LANG_NAMES, LANGS, Fmt, translations

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
# Compiled templates, reused across builds and worker processes (keyed by template source).
CACHE = Path(__file__).resolve().parents[2] / ".cache" / "jinja"


def json_script(data: Any) -> Markup:
    """JSON safe inside a <script type="application/...json"> element."""
    text = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def render_markdown(text: str) -> Markup:
    """Markdown to HTML with raw HTML escaped (content is data, never markup)."""
    md = markdown.Markdown(extensions=["tables", "toc"], output_format="html")
    # Escaping first makes any raw HTML in the source show as text; Markdown syntax is unaffected.
    return Markup(md.convert(str(escape(text))))


URL_SAFE = ":/?#[]@!$&'()*+,;=%~"


def source_url(source: str) -> str:
    """A valid link for a source: a URL with unsafe characters (spaces) percent-encoded, or
    ``owner/repo:path[@commit]`` turned into its GitHub page."""
    if source.startswith(("http://", "https://")):
        return quote(source, safe=URL_SAFE)
    repo, _, rest = source.partition(":")
    path, _, commit = rest.partition("@")
    return f"https://github.com/{quote(repo)}/blob/{quote(commit or 'HEAD')}/{quote(path)}"


def N_(message: str) -> str:  # noqa: N802 - the gettext convention for "mark for extraction only"
    """Mark a message for extraction; it is translated where it is used."""
    return message


def helpers(lang: str) -> dict[str, Any]:
    """Small formatters used in many table cells, as plain functions (Jinja macros cost ~10× more)."""
    tr = translations(lang)
    fmt = Fmt(lang)
    words = {
        "comfortable": tr.gettext(N_("fits")),
        "tight": tr.gettext(N_("tight")),
        "oom": tr.gettext(N_("does not fit")),
    }
    tok = tr.gettext(N_("%(n)s tok/s"))
    sec = tr.gettext(N_("%(n)s s"))

    def verdict_badge(verdict: str) -> Markup:
        return Markup('<span class="verdict v-{}">{}</span>').format(verdict, words[verdict])

    def tok_s(value: float | None) -> str:
        return "—" if value is None else tok % {"n": fmt.sig(value)}

    def seconds(value: float | None) -> str:
        return "—" if value is None else sec % {"n": fmt.sig(value)}

    return {"verdict_badge": verdict_badge, "tok_s": tok_s, "seconds": seconds}


@cache
def environment(lang: str) -> jinja2.Environment:
    """A sandbox-free but autoescaping Jinja environment with the locale's translations."""
    CACHE.mkdir(parents=True, exist_ok=True)
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        bytecode_cache=jinja2.FileSystemBytecodeCache(str(CACHE)),
        autoescape=True,
        extensions=["jinja2.ext.i18n"],
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    env.install_gettext_translations(translations(lang), newstyle=True)  # type: ignore[attr-defined]
    env.globals.update(
        f=Fmt(lang),
        lang=lang,
        langs=LANGS,
        lang_names=LANG_NAMES,
        hreflang=HREFLANG,
        html_lang=HTML_LANG[lang],
        urls=routes,
        json_script=json_script,
        source_url=source_url,
        **helpers(lang),
    )
    return env


def render(template: str, lang: str, **context: Any) -> str:
    """Render ``template`` in ``lang``."""
    return environment(lang).get_template(template).render(**context)


def minify(html: str) -> str:
    """Minified HTML that stays valid (quotes kept, optional tags kept)."""
    return minify_html.minify(
        html,
        keep_closing_tags=True,
        keep_html_and_head_opening_tags=True,
        minify_css=True,
        minify_js=False,
    )
