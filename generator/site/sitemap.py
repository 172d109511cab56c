"""Sitemaps: an index at /sitemap.xml pointing to per-locale sitemaps of at most 50,000 URLs, and
robots.txt pointing to the index. The language alternates are in each page's head (one method is
enough for search engines; in the sitemaps as well they would add 13 MB to the site)."""

from __future__ import annotations

from collections.abc import Iterator
from xml.sax.saxutils import escape

from generator.content.catalog import Catalog
from generator.site.pages import routes

MAX_URLS = 50_000
NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


def outputs(
    catalog: Catalog, base_url: str, langs: tuple[str, ...], max_urls: int = MAX_URLS
) -> Iterator[tuple[str, bytes]]:
    """The sitemap index, the per-locale chunks and robots.txt."""
    chunks: list[str] = []
    for lang in langs:
        pages = [r for r in routes(catalog, (lang,))]
        for start in range(0, len(pages), max_urls):
            name = f"sitemaps/{lang}-{start // max_urls + 1}.xml"
            chunks.append(name)
            lines = ['<?xml version="1.0" encoding="UTF-8"?>', f"<urlset {NS}>"]
            lines += [f"<url><loc>{escape(base_url + r.path)}</loc></url>" for r in pages[start : start + max_urls]]
            lines.append("</urlset>")
            yield name, ("\n".join(lines) + "\n").encode()
    index = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    ]
    index += [f"<sitemap><loc>{escape(f'{base_url}/{c}')}</loc></sitemap>" for c in chunks]
    index.append("</sitemapindex>")
    yield "sitemap.xml", ("\n".join(index) + "\n").encode()
    yield "robots.txt", f"User-agent: *\nAllow: /\nSitemap: {base_url}/sitemap.xml\n".encode()
