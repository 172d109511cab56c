"""The pages' Content-Security-Policy, in one place for the two ways it reaches a browser.

A host that honours ``_headers`` (Cloudflare Pages, Netlify) sends it as a header; every page also
carries it in a ``<meta http-equiv>`` so that hosts that send no headers of ours (GitHub Pages,
GitLab Pages, a plain bucket) still enforce it. A meta policy cannot carry ``frame-ancestors``,
``report-uri``, ``report-to`` or ``sandbox`` (browsers ignore them there), so the meta copy is the
header minus those: framing protection exists only where headers do.
"""

from __future__ import annotations

import base64
import hashlib

# The one inline style of every page (inside <noscript>); the policy allows it by hash.
NOSCRIPT_CSS = ".js-only{display:none!important}"
# Directives a <meta> policy may not carry (CSP Level 3, section 'meta'): ignored there by browsers.
HEADER_ONLY = frozenset({"frame-ancestors", "report-uri", "report-to", "sandbox"})


def csp_hash(text: str) -> str:
    """A CSP source expression allowing exactly this inline text: 'sha256-<base64>'."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def page_directives() -> tuple[tuple[str, str], ...]:
    """The page policy as (directive, value) pairs: only our own scripts (no inline script at all),
    the one inline <noscript> style by hash, fetches from our origin only, and no framing."""
    return (
        ("default-src", "'none'"),
        ("script-src", "'self'"),
        ("style-src", "'self' " + csp_hash(NOSCRIPT_CSS)),
        ("img-src", "'self' data:"),
        ("font-src", "'self'"),
        ("connect-src", "'self'"),
        ("manifest-src", "'self'"),
        ("base-uri", "'none'"),
        ("form-action", "'self'"),
        ("frame-ancestors", "'none'"),
    )


def _policy(directives: tuple[tuple[str, str], ...]) -> str:
    return "; ".join(f"{name} {value}" for name, value in directives)


def header_policy() -> str:
    """The Content-Security-Policy header value of every page (``_headers``)."""
    return _policy(page_directives())


def meta_policy() -> str:
    """The same policy as a page's <meta http-equiv> can carry it (the header minus HEADER_ONLY)."""
    return _policy(tuple(d for d in page_directives() if d[0] not in HEADER_ONLY))
