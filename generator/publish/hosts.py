"""How big the output is against our budgets and the limits of the static hosts people deploy to.

Every build prints its size, file count and largest file against the budgets and the host named in
site.toml (``host``), and warns when it is over; ``make bench`` prints every host.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

# Our budgets are per model × accelerator pair (the output grows with the pairs): at most 36 kB and 4.5 files
# each, over every language and the JSON, so a catalog 2.5 times today's (~11,800 pairs) fits GitHub Pages'
# 1 GB and one twice today's fits Cloudflare Pages' 100,000 files.
BUDGET_PAIR_BYTES = 36_000
BUDGET_PAIR_FILES = 4.5
# A pair's JSON: counting them counts the pairs an output holds.
PAIR_JSON = "api/v1/pairs/"


@dataclasses.dataclass(frozen=True)
class Host:
    """What a static host accepts: the whole published site, the number of files, one file (None: no limit)."""

    key: str
    name: str
    site_bytes: int | None
    files: int | None
    file_bytes: int | None


# The hosts' own documentation, read 2026 (GB taken as 10^9 bytes, the stricter reading):
# https://docs.github.com/en/pages/getting-started-with-github-pages/github-pages-limits
#   "Published GitHub Pages sites may be no larger than 1 GB."
# https://developers.cloudflare.com/pages/platform/limits/
#   "up to 20,000 files on the Free plan", "Workers Paid plans can have up to 100,000 files per site"
#   (with PAGES_WRANGLER_MAJOR_VERSION=4), "The maximum file size for a single ... site asset is 25 MiB."
# https://docs.gitlab.com/user/gitlab_com/#gitlab-pages  ("Maximum site size: 1 GB")
# https://docs.gitlab.com/administration/instance_limits/#number-of-files-per-gitlab-pages-website  (200,000)
HOSTS = (
    Host("github-pages", "GitHub Pages", 10**9, None, None),
    Host("cloudflare-pages-free", "Cloudflare Pages, free", None, 20_000, 25 * 2**20),
    Host("cloudflare-pages-paid", "Cloudflare Pages, paid", None, 100_000, 25 * 2**20),
    Host("gitlab-pages", "GitLab Pages (gitlab.com)", 10**9, 200_000, None),
)
HOST_KEYS = tuple(h.key for h in HOSTS)


@dataclasses.dataclass(frozen=True)
class Output:
    """What a deploy uploads: the output folder less its dotfiles (the build's own bookkeeping)."""

    files: int
    bytes: int
    largest: str
    largest_bytes: int
    # Model × accelerator pairs (one JSON each).
    pairs: int = 0

    @classmethod
    def of(cls, files: Iterable[tuple[str, int]]) -> Output:
        """The output made of these (path, size) files; dotfiles are left out as a deploy leaves them."""
        kept = [(p, n) for p, n in files if not any(part.startswith(".") for part in p.split("/"))]
        largest, largest_bytes = max(kept, key=lambda f: (f[1], f[0]), default=("", 0))
        pairs = sum(p.startswith(PAIR_JSON) for p, _ in kept)
        return cls(len(kept), sum(n for _, n in kept), largest, largest_bytes, pairs)

    def per_pair(self) -> tuple[float, float]:
        """(bytes, files) per pair: everything the output holds, shared pages and assets included."""
        n = max(self.pairs, 1)
        return self.bytes / n, self.files / n

    def scaled(self, factor: float) -> Output:
        """This output for a catalog ``factor`` times as many pairs, at the same bytes and files per pair."""
        return dataclasses.replace(
            self, files=round(self.files * factor), bytes=round(self.bytes * factor), pairs=round(self.pairs * factor)
        )

    def summary(self) -> str:
        """'474.8 MB in 37,222 files, the largest assets/finder-data….json (171.3 kB)'."""
        largest = f"{self.largest} ({_size(self.largest_bytes)})"
        return f"{self.bytes / 1e6:,.1f} MB in {self.files:,} files, the largest {largest}"


def _size(n: int) -> str:
    return f"{n / 1e6:,.1f} MB" if n >= 10**6 else f"{n / 1e3:,.1f} kB"


def deployed_files(out: Path) -> Iterator[tuple[str, int]]:
    """(path, size) of every file a deploy uploads, dotfiles and dot-folders left out."""
    for folder, dirs, names in os.walk(out):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            if not name.startswith("."):
                path = os.path.join(folder, name)
                yield os.path.relpath(path, out), os.path.getsize(path)


def measure_output(out: Path) -> Output:
    """Files, bytes and the largest file of the deployable output in ``out``."""
    return Output.of(deployed_files(out))


def _verdict(value: float, limit: float | None) -> str:
    return "no limit" if limit is None else f"{value / limit:.0%} of it, " + ("ok" if value <= limit else "OVER")


def budget_line(output: Output) -> str:
    """The output per pair against our budgets."""
    if not output.pairs:
        return "per pair: no pairs in this output"
    per_bytes, per_files = output.per_pair()
    return (
        f"per pair ({output.pairs:,} pairs): {per_bytes / 1e3:,.1f} kB, budget ≤ {BUDGET_PAIR_BYTES / 1e3:g} kB: "
        f"{_verdict(per_bytes, BUDGET_PAIR_BYTES)}; {per_files:.2f} files, budget ≤ {BUDGET_PAIR_FILES:g}: "
        f"{_verdict(per_files, BUDGET_PAIR_FILES)}"
    )


def host_line(output: Output, host: Host) -> str:
    """The output against one host's limits."""
    parts = []
    if host.site_bytes is not None:
        parts.append(f"site ≤ {host.site_bytes / 1e9:g} GB: {_verdict(output.bytes, host.site_bytes)}")
    if host.files is not None:
        parts.append(f"≤ {host.files:,} files: {_verdict(output.files, host.files)}")
    if host.file_bytes is not None:
        parts.append(f"a file ≤ {host.file_bytes / 2**20:g} MiB: {_verdict(output.largest_bytes, host.file_bytes)}")
    return f"{host.name}: " + "; ".join(parts)


def host_lines(output: Output) -> list[str]:
    """One line for our budgets and one per host: the limit, how much of it the output uses, ok or OVER."""
    return ["  " + budget_line(output), *("  " + host_line(output, h) for h in HOSTS)]


def over(output: Output, host: Host) -> list[str]:
    """The limits of ``host`` the output exceeds, in words (empty when it fits)."""
    problems = []
    if host.site_bytes is not None and output.bytes > host.site_bytes:
        problems.append(f"{output.bytes / 1e6:,.0f} MB is over {host.name}' {host.site_bytes / 1e9:g} GB")
    if host.files is not None and output.files > host.files:
        problems.append(f"{output.files:,} files is over {host.name}' {host.files:,} files")
    if host.file_bytes is not None and output.largest_bytes > host.file_bytes:
        problems.append(f"{output.largest} is over {host.name}' {host.file_bytes / 2**20:g} MiB per file")
    return problems
