"""The Jinja environment per locale: autoescaping, gettext from the locale's catalog, Babel formatting."""

from __future__ import annotations

import functools
import json
import re
import types
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import quote
from xml.etree import ElementTree

import jinja2
import markdown
import markdown.extensions
import markdown.treeprocessors
import minify_html
from babel.lists import format_list
from markupsafe import Markup, escape

from generator.site import routes
from generator.site.csp import NOSCRIPT_CSS, meta_policy
from generator.site.i18n import BABEL_LOCALE, HREFLANG, HTML_LANG, LANG_NAMES, NumberFormat, translations
from generator.site.routes import LANGS

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
# Compiled templates, reused across builds and worker processes (keyed by template source).
CACHE = Path(__file__).resolve().parents[2] / ".cache" / "jinja"


# The class of a verdict badge (site.css; workbench.js and finder-page.js use the same).
VERDICT_CLASS = {"comfortable": "ok", "tight": "tight", "oom": "oom"}


def json_script(data: Any) -> Markup:
    """JSON safe inside a <script type="application/...json"> element."""
    text = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


# Link targets a content page may use: web URLs, mail, and paths or fragments on this site.
_SAFE_URL = re.compile(r"^(?:https?://|mailto:|/(?!/)|#|\.{1,2}/|[\w.-]+(?:[/#?]|$))", re.IGNORECASE)


class _SafeLinks(markdown.treeprocessors.Treeprocessor):
    """Drops link and image targets that are not web URLs or site paths (``javascript:``, ``data:``)."""

    def run(self, root: ElementTree.Element) -> None:
        for element in root.iter():
            for attribute in ("href", "src"):
                value = element.get(attribute)
                if value is not None and not _SAFE_URL.match(value.strip()):
                    element.set(attribute, "#")


class _SafeLinksExtension(markdown.extensions.Extension):
    def extendMarkdown(self, md: markdown.Markdown) -> None:  # noqa: N802 - Markdown's API name
        md.treeprocessors.register(_SafeLinks(md), "safe_links", 0)


def render_markdown(text: str) -> Markup:
    """Markdown to HTML with raw HTML escaped (content is data, never markup) and only safe link targets."""
    md = markdown.Markdown(extensions=["tables", "toc", _SafeLinksExtension()], output_format="html")
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
    fmt = NumberFormat(lang)
    # Translations are escaped once here; the numbers NumberFormat writes are digits and separators only.
    badges = {
        v: Markup(f'<span class="{VERDICT_CLASS[v]}">{escape(tr.gettext(word))}</span>')
        for v, word in (("comfortable", N_("fits")), ("tight", N_("tight")), ("oom", N_("does not fit")))
    }
    tok = str(escape(tr.gettext(N_("%(n)s tok/s"))))
    sec = str(escape(tr.gettext(N_("%(n)s s"))))
    dash = Markup("—")

    def verdict_badge(verdict: str) -> Markup:
        return badges[verdict]

    def tok_s(value: float | None) -> Markup:
        return dash if value is None else Markup(tok % {"n": fmt.sig(value)})

    def seconds(value: float | None) -> Markup:
        return dash if value is None else Markup(sec % {"n": fmt.sig(value)})

    # "(low–high)", saying so where no measurement of the engine on the device's class backs it.
    range_patterns = {False: "(%(low)s–%(high)s)", True: tr.gettext(N_("(%(low)s–%(high)s, extrapolated)"))}

    def range_span(low: str, high: str) -> Markup:
        return Markup(' <span class="range">{}</span>').format(range_patterns[False] % {"low": low, "high": high})

    def span(low: float | None, high: float | None) -> Markup:
        """The out-of-sample range after a speed, or nothing when there is none."""
        return Markup("") if low is None or high is None else range_span(fmt.sig(low), fmt.sig(high))

    def tok_s_range(value: float | None, low: float | None, high: float | None) -> Markup:
        return dash if value is None else tok_s(value) + span(low, high)

    def seconds_range(value: float | None, low: float | None, high: float | None) -> Markup:
        return dash if value is None else seconds(value) + span(low, high)

    def field(key: str, shown: str) -> Markup:
        """A value the workbench updates in place: ``data-field`` names the estimate key (the browser adds
        the exact value as ``data-value``)."""
        return Markup('<span data-field="{}">{}</span>').format(key, shown)

    def field_range(
        key: str, low: float | None, high: float | None, extrapolated: bool = False, shown: bool = True
    ) -> Markup:
        """The range of a speed the workbench updates in place: ``data-range`` names the speed, whose
        ``key_low`` and ``key_high`` estimate keys it shows (empty when not ``shown``)."""
        if low is None or high is None:
            return Markup("")
        text = range_patterns[extrapolated] % {"low": fmt.sig(low), "high": fmt.sig(high)} if shown else ""
        return Markup(' <span class="range" data-range="{}">{}</span>').format(key, text)

    return {
        "field": field,
        "field_range": field_range,
        "verdict_badge": verdict_badge,
        "verdict_class": VERDICT_CLASS.__getitem__,
        "tok_s": tok_s,
        "seconds": seconds,
        "tok_s_range": tok_s_range,
        "seconds_range": seconds_range,
    }


def _translated(text: str, variables: dict[str, Any]) -> str:
    """A translation %-formatted with ``variables``, as text: the translation is never markup (a catalog
    cannot add elements or attributes to a page). Plain text when every variable is text (autoescaping
    escapes it where it lands in HTML; JSON data keeps it as is); markup, with the translation and the
    text variables escaped, when a variable is markup (a formatted value with its own elements)."""
    if any(isinstance(v, Markup) for v in variables.values()):
        return escape(text) % variables
    return text % variables


def gettext_functions(lang: str) -> dict[str, Any]:
    """``_`` and ``ngettext`` for templates, as plain functions (the i18n extension's context-passing
    wrappers cost a third of a page's rendering). Like its ``newstyle`` gettext the translation is always
    %-formatted and the variables escaped, but the translation itself is text, never markup."""
    tr = translations(lang)
    plain: dict[str, str] = {}

    def gettext(message: str, **variables: Any) -> str:
        if variables:
            return _translated(tr.gettext(message), variables)
        rv = plain.get(message)
        if rv is None:
            rv = plain[message] = tr.gettext(message) % {}
        return rv

    def ngettext(singular: str, plural: str, num: int, **variables: Any) -> str:
        variables.setdefault("num", num)
        return _translated(tr.ngettext(singular, plural, num), variables)

    return {"_": gettext, "gettext": gettext, "ngettext": ngettext}


_PLAIN_CALLABLES = (types.FunctionType, types.MethodType, types.BuiltinFunctionType, types.BuiltinMethodType)


class _Context(jinja2.runtime.Context):
    """Jinja's context with a short path for calling plain functions and methods (the number formats,
    gettext and the helpers above: several hundred calls a page). Jinja's own ``call`` probes every
    callable three times for a ``pass_context``-style marker; a plain function can only carry one as an
    attribute, which is checked once here. Everything else takes Jinja's path."""

    def call(__self, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805 - Jinja's signature
        if type(__obj) in _PLAIN_CALLABLES and getattr(__obj, "jinja_pass_arg", None) is None:
            kwargs.pop("_block_vars", None)
            kwargs.pop("_loop_vars", None)
            return __obj(*args, **kwargs)
        return super().call(__obj, *args, **kwargs)


@cache
def environment(lang: str) -> jinja2.Environment:
    """A sandbox-free but autoescaping Jinja environment with the locale's translations."""
    CACHE.mkdir(parents=True, exist_ok=True)
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        bytecode_cache=jinja2.FileSystemBytecodeCache(str(CACHE)),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    env.context_class = _Context
    # |tojson (HTML-safe: it escapes < > & and ') writes compact JSON.
    env.policies["json.dumps_kwargs"] = {"sort_keys": True, "separators": (",", ":")}
    env.globals.update(
        gettext_functions(lang),
        fmt=NumberFormat(lang),
        lang=lang,
        langs=LANGS,
        lang_names=LANG_NAMES,
        hreflang=HREFLANG,
        html_lang=HTML_LANG[lang],
        urls=routes,
        json_script=json_script,
        noscript_css=NOSCRIPT_CSS,
        csp_meta=meta_policy(),
        # Items joined as the language writes a list ("A, B and C", "A、B和C").
        list_of=functools.partial(format_list, locale=BABEL_LOCALE[lang]),
        source_url=source_url,
        **helpers(lang),
    )
    return env


def render(template: str, lang: str, **context: Any) -> str:
    """Render ``template`` in ``lang``."""
    return environment(lang).get_template(template).render(**context)


def minify(html: str) -> str:
    """Minified HTML that stays valid: attribute quotes only where needed, optional end tags left out
    (``</li>``, ``</td>``, ``</p>`` … as the HTML standard allows; the Nu checker validates the output)."""
    return minify_html.minify(
        html,
        keep_closing_tags=False,
        keep_html_and_head_opening_tags=True,
        minify_css=False,  # the only inline CSS is the one-rule <noscript> style, already minimal
        minify_js=False,
    )
