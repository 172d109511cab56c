"""Command line: ``python -m generator build|merge|estimate|list|check-content|calibrate``.

The imperative shell: it reads the catalog, calls the engine, prints or writes, and turns every
user mistake into a one-line message and exit code 2, never a stack trace.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import re
import signal
import sys
import time
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generator.publish import stamp
from generator.publish.manifest import STAMP
from generator.site.routes import LANGS

if TYPE_CHECKING:
    from generator.content.catalog import Catalog
    from generator.content.schema import Hardware, Model
    from generator.sizing.scenario import Scenario

# The command line imports what a command needs when it runs it: a no-op build answers before pydantic,
# Jinja or the catalog are loaded (publish/stamp.py).

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CONTENT = ROOT / "content"
USER_ERROR = 2


class UserError(Exception):
    """A mistake in the command line or the input files; printed without a traceback."""


def resolve_model(catalog: Catalog, ref: str) -> Model:
    """A catalog slug, or a path to a Hugging Face config.json."""
    from generator.content.hfconfig import load_config

    path = Path(ref)
    if ref.endswith(".json") or path.is_file():
        if not path.is_file():
            raise UserError(f"config file not found: {ref}")
        return load_config(path)
    return catalog.model(ref)


def resolve_hardware(catalog: Catalog, ref: str, content: Path) -> Hardware:
    """A catalog slug, or a path to a hardware YAML in the catalog schema."""
    from generator.content.loader import ContentErrors, parse_file
    from generator.content.schema import Hardware

    path = Path(ref)
    if ref.endswith((".yaml", ".yml")) or path.is_file():
        if not path.is_file():
            raise UserError(f"hardware file not found: {ref}")
        problems: list[Any] = []
        parsed = parse_file(path, Hardware, content, problems)
        if parsed is None:
            raise ContentErrors(problems)
        hw: Hardware = parsed.value
        return hw
    return catalog.hw(ref)


def build_scenario(catalog: Catalog, hw: Hardware, args: argparse.Namespace) -> Scenario:
    """The scenario named by the command-line options, with engine-aware defaults (devices: one card)."""
    from generator.sizing.scenario import FAMILY_ENGINE, Scenario

    fmt = catalog.format(args.quant)
    engine = catalog.engine(args.engine or FAMILY_ENGINE[fmt.family.value])
    kv = catalog.kv_dtype(args.kv_dtype or engine.default_kv_dtype)
    context = args.context if args.context is not None else catalog.assumptions.default_context
    try:
        return Scenario(
            fmt=fmt,
            kv=kv,
            engine=engine,
            context=context,
            batch=args.batch,
            gpus=hw.chips if args.gpus is None else args.gpus,
            offload=args.offload,
            vision=args.vision,
        )
    except ValueError as exc:
        raise UserError(str(exc)) from None


def _gib(n: int | float | None) -> str:
    return "—" if n is None else f"{n / 1024**3:,.2f} GiB"


def _num(v: float | None, unit: str, digits: int = 1) -> str:
    return "—" if v is None else f"{v:,.{digits}f} {unit}"


def human(keys: dict[str, Any], model: Model, hw: Hardware) -> str:
    """A small aligned table of the estimate."""
    rows = [
        (
            "model",
            f"{model.name} ({keys['params_total'] / 1e9:,.2f} B params, {keys['params_active'] / 1e9:,.2f} B active)",
        ),
        ("hardware", f"{hw.name} × {keys['gpus']}"),
        (
            "scenario",
            f"{keys['quant']} on {keys['engine']}, {keys['context']:,} tokens × {keys['batch']} seq, "
            f"KV {keys['kv_dtype']}" + (f", {keys['offload']:.0%} offloaded" if keys["offload"] else ""),
        ),
        ("weights", _gib(keys["weights_bytes"])),
        ("KV cache", _gib(keys["kv_cache_bytes"])),
        ("runtime", _gib(keys["overhead_bytes"])),
        ("total", f"{_gib(keys['total_bytes'])} of {_gib(keys['usable_bytes'])} usable"),
        ("verdict", f"{keys['verdict']} ({keys['utilization']:.0%} used, headroom {_gib(keys['headroom_bytes'])})"),
        ("max context", f"{keys['max_context']:,} tokens"),
        ("min GPUs", "—" if keys["min_gpus"] is None else str(keys["min_gpus"])),
        ("decode", _num(keys["decode_tok_s"], "tok/s")),
        ("prefill", _num(keys["prefill_tok_s"], "tok/s", 0)),
        ("TTFT", _num(keys["ttft_s"], f"s ({keys['ttft_prompt_tokens']:,}-token prompt)", 2)),
        ("$ / 1M tokens", _num(keys["usd_per_mtok"], "USD", 2)),
        ("calibration", keys["calibration"]),
    ]
    width = max(len(k) for k, _ in rows)
    lines = [f"{k.ljust(width)}  {v}" for k, v in rows]
    lines += [f"warning: {w}" for w in keys["warnings"]]
    return "\n".join(lines)


def cmd_estimate(args: argparse.Namespace, catalog: Catalog) -> int:
    from generator.sizing.estimate import estimate
    from generator.sizing.scenario import facts_of

    model = resolve_model(catalog, args.model)
    hw = resolve_hardware(catalog, args.hardware, args.content)
    sc = build_scenario(catalog, hw, args)
    est = estimate(model, hw, sc, facts_of(catalog))
    keys = est.to_dict()
    print(json.dumps(keys, indent=2, ensure_ascii=False) if args.json else human(keys, model, hw))
    return 0


def cmd_list(args: argparse.Namespace, catalog: Catalog) -> int:
    from generator.site.api import hardware_summaries, model_summaries

    if args.what == "models":
        items, cols = model_summaries(catalog), ("slug", "hf_id")
    else:
        items, cols = hardware_summaries(catalog), ("slug", "vendor")
    if args.json:
        print(json.dumps(items, indent=2, ensure_ascii=False))
    else:
        for item in items:
            print("  ".join(str(item[c]) for c in cols).ljust(60), item["name"])
    return 0


def _unfinished_scaffolds(content: Path) -> list[str]:
    """One error per TODO line left in a model or hardware file by ``new-model``."""
    errors: list[str] = []
    for folder in ("models", "hardware"):
        for path in sorted((content / folder).glob("*.yaml")):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if "TODO" in line:
                    errors.append(f"content/{folder}/{path.name}:{number}: unfinished scaffold (TODO): {line.strip()}")
    return errors


def _param_mismatches(catalog: Catalog) -> list[str]:
    """One error per model whose declared params_total is more than 2% off its architecture's count."""
    from generator.sizing.params import compared_total, count_params, declared_mismatch

    errors: list[str] = []
    for m in catalog.models.values():
        mismatch = declared_mismatch(m, count_params(m))
        if mismatch is not None and abs(mismatch) > 0.02:
            errors.append(
                f"content/models/{m.slug}.yaml: params_total {m.params_total:,} differs from the "
                f"architecture's {compared_total(m, count_params(m)):,} by {mismatch:+.1%} (over 2%)"
            )
    return errors


def _stale_prices(catalog: Catalog, today: dt.date, max_price_age_days: int) -> list[str]:
    """One warning per cloud or API price last seen more than ``max_price_age_days`` before ``today``."""
    limit = today - dt.timedelta(days=max_price_age_days)
    warnings = [
        f"content/prices/cloud.yaml: {o.provider} {o.instance} price seen {o.date_seen} "
        f"is older than {max_price_age_days} days"
        for o in catalog.offers
        if o.date_seen < limit
    ]
    warnings += [
        f"content/prices/api.yaml: {p.provider} {p.model} price seen {p.date_seen} "
        f"is older than {max_price_age_days} days"
        for p in catalog.api_prices
        if p.date_seen < limit
    ]
    # A launch price is history by nature; what a unit sells for today (street, list, used) goes stale,
    # unless a newer price of the same kind replaces it (older ones stay as history).
    for h in catalog.hardware.values():
        for kind in ("street", "list", "used"):
            newest = max((p.date for p in h.prices if p.kind == kind), default=None)
            if newest is not None and newest < limit:
                warnings.append(
                    f"content/hardware/{h.slug}.yaml: newest {kind} price seen {newest} "
                    f"is older than {max_price_age_days} days"
                )
    return warnings


def price_ages(catalog: Catalog, today: dt.date) -> list[str]:
    """One line per kind of price: how many there are and how old (median and oldest, in days)."""

    def ages(dates: list[dt.date]) -> str:
        if not dates:
            return "none"
        days = sorted((today - d).days for d in dates)
        return f"{len(days)}, median age {days[len(days) // 2]} days, oldest {days[-1]} days"

    hardware = list(catalog.hardware.values())
    lines = [
        f"{kind} prices: {ages([p.date for h in hardware for p in h.prices if p.kind == kind])}"
        for kind in ("launch_msrp", "street", "list", "used", "estimate")
    ]
    lines.append(f"accelerators with a new-unit price: {sum(h.price is not None for h in hardware)} of {len(hardware)}")
    lines.append(f"cloud offers: {ages([o.date_seen for o in catalog.offers])}")
    lines.append(f"API prices: {ages([p.date_seen for p in catalog.api_prices])}")
    return lines


def content_warnings(
    catalog: Catalog, today: dt.date, max_price_age_days: int, content: Path = DEFAULT_CONTENT
) -> tuple[list[str], list[str]]:
    """(errors, warnings) beyond schema validation: unfinished scaffolds, parameter mismatches, stale prices."""
    errors = _unfinished_scaffolds(content) + _param_mismatches(catalog) + _tensor_mismatches(catalog, content)
    return errors, _stale_prices(catalog, today, max_price_age_days)


def _tensor_mismatches(catalog: Catalog, content: Path) -> list[str]:
    """Each checkpoint tensor summary (content/tensors/) against its model's block list."""
    from generator.content.loader import parse_file
    from generator.content.tensors import TensorSummary, mismatches

    folder = content / "tensors"
    if not folder.is_dir():
        return []
    out = []
    for path in sorted(folder.glob("*.yaml")):
        problems: list[Any] = []
        parsed = parse_file(path, TensorSummary, content, problems)
        if parsed is None:
            out += [str(p) for p in problems]
            continue
        summary: TensorSummary = parsed.value
        where = f"content/tensors/{path.name}"
        if path.stem != summary.model:
            out.append(f"{where}: model: {summary.model!r} does not match the file name")
            continue
        model = catalog.models.get(summary.model)
        if model is None:
            out.append(f"{where}: model: {summary.model!r} is not in the catalog")
            continue
        out += [f"{where}: {m}" for m in mismatches(model, summary, catalog.formats)]
    return out


def cmd_check_content(args: argparse.Namespace, catalog: Catalog) -> int:
    from generator.content.catalog import PRICE_MAX_AGE_DAYS

    max_age = PRICE_MAX_AGE_DAYS if args.max_price_age_days is None else args.max_price_age_days
    errors, warnings = content_warnings(catalog, dt.date.today(), max_age, args.content)
    for w in warnings:
        print(f"warning: {w}", file=sys.stderr)
    for e in errors:
        print(f"error: {e}", file=sys.stderr)
    for line in price_ages(catalog, dt.date.today()):
        print(line)
    print(
        f"{len(catalog.models)} models, {len(catalog.hardware)} hardware, {len(catalog.offers)} cloud offers, "
        f"{len(catalog.throughput)} measurements: {len(errors)} errors, {len(warnings)} warnings"
    )
    return USER_ERROR if errors else 0


def _without_fit_date(text: str) -> str:
    """The calibration file's text less its ``fitted_on:`` line, which changes every day."""
    return "\n".join(line for line in text.splitlines() if not line.startswith("fitted_on:"))


def cmd_calibrate(args: argparse.Namespace, catalog: Catalog) -> int:
    from generator.publish.calibration import calibration_file, render_calibration

    new = render_calibration(catalog, dt.date.today())
    path = calibration_file(args.content)
    if args.check:
        old = path.read_text(encoding="utf-8") if path.exists() else ""
        if _without_fit_date(old) != _without_fit_date(new):
            print(f"{path} is out of date: run `make calibrate`", file=sys.stderr)
            return 1
        print(f"{path} matches the measurements")
        return 0
    path.write_text(new, encoding="utf-8")
    print(new, end="")
    return 0


def site_config() -> dict[str, Any]:
    """Settings from site.toml at the repository root."""
    path = ROOT / "site.toml"
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        return {}
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{path}: {exc}") from None


# Scheme, host (name, IPv4 or [IPv6]), optional port and path: what may precede every URL of the site.
_BASE_URL = re.compile(
    r"https?://(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}\.?)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?(?:/[\w.~%-]*)*"
)
_ORIGIN = re.compile(r"https?://[^/]+/?")


def check_base_url(url: str) -> str:
    """The site's absolute base URL without a trailing slash; UserError unless it is a plain http(s) URL
    of a host's root.

    Every link, asset, fetch, search result and workbench request of the site is root-absolute
    (``/en/``, ``/assets/...``), so the site works only at the root of its host; a URL with a path
    (a GitHub project site, ``https://owner.github.io/sizewise``) would build pages whose links all
    miss, and is refused instead.
    """
    if not _BASE_URL.fullmatch(url) or len(url) > 200:
        raise UserError(
            f"--base-url must be an absolute http(s) URL such as https://example.org "
            f"(no spaces, quotes, query or fragment), got {url!r}"
        )
    if not _ORIGIN.fullmatch(url):
        origin = _ORIGIN.match(url)
        raise UserError(
            f"--base-url {url} has a path: the site links from the root of its host (/en/, /assets/…), so it "
            f"must be served at {origin.group().rstrip('/') if origin else 'a root'}/ itself; use a custom "
            "domain or a user or organization site (https://owner.github.io) rather than a project site"
        )
    return url.rstrip("/")


@dataclasses.dataclass(frozen=True)
class BuildOptions:
    """What `build`'s options and site.toml ask for, checked."""

    langs: tuple[str, ...]
    base_url: str
    shard: tuple[int, int] | None
    host: str | None

    def settings(self) -> list[str]:
        """The options that change what a build writes, for the fingerprint of its inputs."""
        return [self.base_url, " ".join(self.langs), "minified"]


def build_options(args: argparse.Namespace) -> BuildOptions:
    """The checked options of `build`; UserError for a bad --base-url, --shard or site.toml host."""
    from generator.publish.hosts import HOST_KEYS

    langs = (args.locale,) if args.locale else LANGS
    base_url = check_base_url(str(args.base_url or site_config().get("base_url", "")))
    shard = None
    if args.shard:
        try:
            k, n = (int(x) for x in args.shard.split("/"))
        except ValueError:
            raise UserError(f"--shard takes K/N such as 1/4, got {args.shard!r}") from None
        if not 1 <= k <= n:
            raise UserError(f"--shard {args.shard}: K must be between 1 and N")
        shard = (k, n)
    host = site_config().get("host")
    if host is not None and host not in HOST_KEYS:
        raise UserError(f"site.toml: host must be one of {', '.join(HOST_KEYS)}, got {host!r}")
    return BuildOptions(langs, base_url, shard, host)


def up_to_date(args: argparse.Namespace, start: float) -> str | None:
    """The summary of a build with nothing to do, found before anything else is imported or read: the
    inputs are those the output was built from and no file of it changed since (publish/stamp.py). None
    when there may be work. Records the checked options and the inputs' fingerprint in ``args`` for the
    build, which stamps its output with them."""
    from generator.publish import outdir

    args.options = build_options(args)
    args.inputs = stamp.inputs(args.content, args.options.settings())
    out = args.out.resolve()
    if args.force or args.options.shard or not (out / STAMP).is_file():
        return None
    outdir.check_not_mount(out)
    outdir.check_not_nested(out)
    with outdir.locked(out):
        files = stamp.up_to_date(out, args.inputs)
        if files is None:
            return None
        outdir.write_atomic(out.with_name(out.name + ".changed.txt"), "")
    return f"{out} is up to date ({files:,} files) in {time.perf_counter() - start:.1f} s"


def cmd_build(args: argparse.Namespace, catalog: Catalog) -> int:
    from generator.publish.writer import build

    options: BuildOptions = args.options
    summary = build(
        catalog,
        args.out,
        jobs=args.jobs,
        base_url=options.base_url,
        content=args.content,
        langs=options.langs,
        force=args.force,
        shard=options.shard,
        host=options.host,
        inputs=args.inputs,
    )
    print(summary)
    return 0


def cmd_merge(args: argparse.Namespace, catalog: Catalog) -> int:
    from generator.publish import incremental, writer
    from generator.publish.merge import MergeError, merge

    langs = (args.locale,) if args.locale else LANGS
    base_url = check_base_url(str(args.base_url or site_config().get("base_url", "")))
    # The keys a build of this checkout gives every group: shards built from anything else are refused.
    urls = {name: url for name, (url, _) in writer.assets(catalog).items()}
    expected = incremental.keys(catalog, base_url, langs, urls)
    try:
        print(merge(args.shards, args.out, expected))
    except MergeError as exc:
        raise UserError(str(exc)) from None
    return 0


def cmd_serve(args: argparse.Namespace, _catalog: Catalog | None) -> int:
    from generator.publish.serve import serve

    base_url = f"http://127.0.0.1:{args.port}"
    return serve(args.content, args.out, args.port, base_url)


def cmd_tensors(args: argparse.Namespace, catalog: Catalog) -> int:
    """Summarise a published safetensors index or header by role into content/tensors/<slug>.yaml."""
    import yaml
    from pydantic import ValidationError

    from generator.content.tensors import mismatches, summarise

    model = catalog.model(args.model)
    path = Path(args.file)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UserError(f"{path}: not a readable JSON safetensors index or header ({exc})") from None
    if not isinstance(data, dict):
        raise UserError(f"{path}: expected a JSON object (an index's weight_map, or a header)")
    try:
        stored = catalog.format(args.stored_as).name if args.stored_as else None
        summary = summarise(data, model, args.source, args.revision, args.bytes_per_param, stored)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first["loc"])
        raise UserError(f"--{where.replace('_', '-')}: {first['msg'].removeprefix('Value error, ')}") from None
    except (KeyError, TypeError, ValueError) as exc:
        raise UserError(f"{path}: not a safetensors index or header: {exc}") from None
    text = yaml.safe_dump(summary.model_dump(mode="json", exclude_none=True), sort_keys=False, allow_unicode=True)
    if args.stdout:
        print(text, end="")
    else:
        out = args.content / "tensors" / f"{model.slug}.yaml"
        out.parent.mkdir(exist_ok=True)
        out.write_text(text, encoding="utf-8")
        print(f"wrote {out}")
    for problem in mismatches(model, summary, catalog.formats):
        print(f"mismatch: {problem}", file=sys.stderr)
    return 0


def cmd_new_model(args: argparse.Namespace, _catalog: Catalog | None) -> int:
    """Scaffold a model file; it reads no catalog, so it works while other files are half-written."""
    from generator.content.hfconfig import load_config
    from generator.content.scaffold import scaffold

    model = load_config(Path(args.config))
    if args.hf_id:
        from generator.content.hfconfig import slugify

        model = model.model_copy(update={"slug": slugify(args.hf_id.split("/")[-1]), "hf_id": args.hf_id})
    text = scaffold(model, args.hf_id, args.config)
    if args.stdout:
        print(text, end="")
        return 0
    path = args.content / "models" / f"{model.slug}.yaml"
    if path.exists() and not args.force:
        raise UserError(f"{path} exists (use --force to overwrite)")
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path}: replace every TODO, then run `make check-content`")
    return 0


def positive(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected at least 1, got {value}")
    return value


def port(text: str) -> int:
    """An argparse type: a TCP port from 1 to 65535."""
    value = positive(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"expected a port from 1 to 65535, got {value}")
    return value


def parser() -> argparse.ArgumentParser:
    """The argument parser with one sub-command per use case."""
    p = argparse.ArgumentParser(prog="python -m generator", description=__doc__.splitlines()[0])
    p.add_argument("--content", type=Path, default=DEFAULT_CONTENT, help="catalog folder (default: content/)")
    sub = p.add_subparsers(dest="command", required=True)

    e = sub.add_parser(
        "estimate",
        help="size one model on one accelerator",
        description="Memory, fit, speed and cost of MODEL on HARDWARE.",
    )
    e.add_argument("model", help="catalog slug, or path to a Hugging Face config.json")
    e.add_argument("hardware", help="catalog slug, or path to a hardware YAML")
    e.add_argument("--quant", default="Q4_K_M", help="weight format (default Q4_K_M)")
    e.add_argument("--context", type=int, default=None, help="tokens per sequence (default 8192)")
    e.add_argument("--batch", type=int, default=1, help="concurrent sequences (default 1)")
    e.add_argument("--kv-dtype", default=None, help="bf16, fp16, fp8, q8_0 or q4_0 (default: the engine's)")
    e.add_argument("--engine", default=None, help="llama.cpp, vllm, ollama, mlx or sglang (default: by format)")
    e.add_argument("--gpus", type=int, default=None, help="devices the engine sees (default: one card, i.e. its chips)")
    e.add_argument("--offload", type=float, default=0.0, help="fraction of layers in system RAM (llama.cpp)")
    e.add_argument(
        "--vision",
        action="store_true",
        help="load a multimodal model's vision encoder where the engine makes it optional (llama.cpp's mmproj)",
    )
    e.add_argument("--json", action="store_true", help="print the estimate keys as JSON")
    e.set_defaults(func=cmd_estimate)

    ls = sub.add_parser("list", help="list catalog models or hardware", description="List catalog entries.")
    ls.add_argument("what", choices=("models", "hardware"))
    ls.add_argument("--json", action="store_true", help="print JSON")
    ls.set_defaults(func=cmd_list)

    c = sub.add_parser(
        "check-content",
        help="validate the catalog",
        description="Validate every content file and report mismatches and stale prices.",
    )
    c.add_argument(
        "--max-price-age-days", type=int, default=None, help="warn on prices older than this (default: a year)"
    )
    c.set_defaults(func=cmd_check_content)

    k = sub.add_parser(
        "calibrate",
        help="fit speed constants to the measurements",
        description="Fit the engine's efficiency constants and write content/calibration.yaml.",
    )
    k.add_argument("--check", action="store_true", help="fail if the committed file differs from a new fit")
    k.set_defaults(func=cmd_calibrate, needs_calibration=False)

    b = sub.add_parser("build", help="build the site into dist/", description="Build every output into dist/.")
    b.add_argument("--out", type=Path, default=ROOT / "dist", help="output folder (default dist/)")
    b.add_argument("--jobs", type=positive, default=None, help="worker processes (default: all cores)")
    b.add_argument("--base-url", default=None, help="absolute URL of the site root (default: site.toml)")
    b.add_argument("--locale", choices=LANGS, default=None, help="build one language only")
    b.add_argument("--force", action="store_true", help="render everything, ignoring the previous build")
    b.add_argument("--shard", default=None, help="K/N: build the K-th of N disjoint slices (CI job matrix)")
    b.set_defaults(func=cmd_build)

    m = sub.add_parser(
        "merge",
        help="merge the folders of build --shard K/N into one output folder",
        description="Merge the outputs of `build --shard K/N` (all N of them) into one folder, exactly what a "
        "single build writes, with its manifest and <out>.changed.txt. Shards must come from this checkout "
        "with the same --base-url and --locale.",
    )
    m.add_argument("shards", nargs="+", type=Path, metavar="SHARD_DIR", help="a folder written by build --shard")
    m.add_argument("--out", type=Path, default=ROOT / "dist", help="output folder (default dist/)")
    m.add_argument("--base-url", default=None, help="the base URL the shards were built with (default: site.toml)")
    m.add_argument("--locale", choices=LANGS, default=None, help="the one language the shards were built with")
    m.set_defaults(func=cmd_merge)

    n = sub.add_parser(
        "new-model",
        help="scaffold a model YAML from a config.json",
        description="Write content/models/<slug>.yaml from a Hugging Face config.json, with TODOs.",
    )
    n.add_argument("config", help="path to config.json")
    n.add_argument("--hf-id", default=None, help="the Hugging Face repo id (owner/name)")
    n.add_argument("--stdout", action="store_true", help="print instead of writing")
    n.add_argument("--force", action="store_true", help="overwrite an existing file")
    n.set_defaults(func=cmd_new_model, needs_calibration=False, needs_catalog=False)

    t = sub.add_parser(
        "tensors",
        help="summarise a checkpoint's safetensors index or header by role",
        description="Write content/tensors/<slug>.yaml from a published copy of a model's safetensors index or header.",
    )
    t.add_argument("file", help="model.safetensors.index.json, or a shard's header as JSON")
    t.add_argument("--model", required=True, help="the catalog model it belongs to")
    t.add_argument("--source", required=True, help="where the copy was published (URL, or repo:path@commit)")
    t.add_argument("--revision", default="unknown", help="the Hugging Face revision it is of (40 hex digits)")
    t.add_argument(
        "--bytes-per-param", type=float, default=None, help="an index's storage per parameter (BF16: 2), if uniform"
    )
    t.add_argument("--stored-as", default=None, help="the catalog format the checkpoint is stored in (BF16, MXFP4...)")
    t.add_argument("--stdout", action="store_true", help="print instead of writing")
    t.set_defaults(func=cmd_tensors, needs_calibration=False)

    v = sub.add_parser(
        "serve",
        help="build, serve dist/ on localhost and rebuild on changes",
        description="Serve dist/ on 127.0.0.1 and rebuild when content, templates or locales change.",
    )
    v.add_argument("--port", type=port, default=8000, help="port (default 8000)")
    v.add_argument("--out", type=Path, default=ROOT / "dist", help="output folder (default dist/)")
    v.set_defaults(func=cmd_serve, needs_catalog=False)
    return p


def _terminate(_signum: int, _frame: object) -> None:
    """SIGTERM unwinds like Ctrl-C, so a killed build removes its temporary folder and its workers."""
    raise KeyboardInterrupt


def _run(args: argparse.Namespace) -> int:
    """Load the catalog (where the command needs it) and run the command; content mistakes return 2."""
    from generator.content.catalog import UnknownName
    from generator.content.hfconfig import ConfigError
    from generator.content.loader import ContentErrors, load_catalog
    from generator.site.i18n import TranslationError
    from generator.sizing.estimate import ScenarioError

    try:
        catalog = (
            load_catalog(args.content, require_calibration=getattr(args, "needs_calibration", True))
            if getattr(args, "needs_catalog", True)
            else None
        )
        return int(args.func(args, catalog))
    except ContentErrors as exc:
        for problem in exc.problems:
            print(f"error: {problem}", file=sys.stderr)
        print(f"{len(exc.problems)} problem(s) in the content; nothing was written", file=sys.stderr)
        return USER_ERROR
    except (UnknownName, ScenarioError, ConfigError, TranslationError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return USER_ERROR


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; user mistakes print a message and return 2."""
    from generator.publish.outdir import OutputError

    start = time.perf_counter()
    args = parser().parse_args(argv)
    if argv is None:  # the real command line, not a test calling main() in its own process
        signal.signal(signal.SIGTERM, _terminate)
    try:
        if args.func is cmd_build and (summary := up_to_date(args, start)) is not None:
            print(summary)
            return 0
        return _run(args)
    except (UserError, OutputError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return USER_ERROR
    except OSError as exc:
        # A full disk, a read-only folder, a missing permission: the build wrote nothing it kept.
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"error: {where}{exc.strerror or exc}; the previous output is unchanged", file=sys.stderr)
        return USER_ERROR
    except KeyboardInterrupt:
        print("interrupted; the previous output is unchanged", file=sys.stderr)
        return 130
