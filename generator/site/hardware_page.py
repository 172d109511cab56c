"""What a hardware page shows: every model on it in the format a person would pick, grouped by size
with the models that fit well first, and related accelerators."""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Generic, TypeVar

from generator.content.catalog import Catalog
from generator.content.schema import Hardware, Model, Price
from generator.site.model_page import RELATED
from generator.site.pair_page import FormatRow, PairData, best_of, quant_matrix
from generator.site.setups import CANDIDATES
from generator.sizing.estimate import ScenarioError, estimate, hosts, standard_setup
from generator.sizing.params import count_params
from generator.sizing.scenario import Scenario, facts_of

T = TypeVar("T")

# Size groups of a hardware page, by total parameters (upper bounds, in billions).
SIZE_GROUPS: tuple[float, ...] = (4, 16, 40, 100, 300, math.inf)
# The order of verdicts on a hardware page: fits well, then tight, then does not fit.
VERDICT_ORDER = {"comfortable": 0, "tight": 1, "oom": 2}


# The contexts a hardware page's control offers besides the default (capped at each model's maximum).
ROW_CONTEXTS = (32768, 131072)
# Shares of the weights in system RAM a hardware page tries, smallest first, for a model no format fits
# on the device (llama.cpp's layer offload of the page's common setup).
OFFLOAD_STEPS = (0.1, 0.2, 0.3, 0.4, 0.5)


@dataclasses.dataclass(frozen=True)
class HardwareRow:
    """One model on a hardware page: its best fitting format, or no format when nothing fits.

    Plain values only, so a build can keep rows of unchanged models in its manifest.
    """

    model_slug: str
    model_name: str
    # The accelerator whose page lists the row.
    hardware: str = ""
    params_total: int = 0
    quant: str | None = None
    engine: str | None = None
    engine_label: str | None = None
    total_bytes: int | None = None
    verdict: str | None = None
    decode_tok_s: float | None = None
    decode_low: float | None = None
    decode_high: float | None = None
    max_context: int | None = None
    # What the page's task control filters on: the model's domain and whether it reads images.
    domain: str = "general"
    vision: bool = False
    # The pick at each of ROW_CONTEXTS the model reaches: [context, quant, engine label, total bytes, verdict,
    # decode tok/s, low, high, max context] (quant and the rest None where no format fits).
    at: tuple[tuple[Any, ...], ...] = ()
    # Where no format fits: the least share of the weights in system RAM (OFFLOAD_STEPS) with which the model
    # page's common setup fits, the bytes that puts in RAM and the decode speed then.
    offload: float | None = None
    offload_bytes: int | None = None
    offload_tok_s: float | None = None

    def to_json(self) -> dict[str, Any]:
        """The row as plain JSON data (a build keeps the rows of unchanged models in its manifest). Its fields
        are plain values already: a shallow copy (``dataclasses.asdict`` copies deeply, ten times slower)."""
        return {**vars(self), "at": [list(a) for a in self.at]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> HardwareRow:
        """A row back from :meth:`to_json`."""
        return cls(**{**data, "at": tuple(tuple(a) for a in data.get("at", ()))})

    @classmethod
    def of(cls, pair: PairData, catalog: Catalog) -> HardwareRow:
        """The row a pair contributes to its hardware page."""
        return cls.from_pick(pair.model, pick_of(pair.model, pair.matrix), catalog, pair.hardware)

    @classmethod
    def from_pick(cls, model: Model, best: FormatRow | None, catalog: Catalog, hw: Hardware) -> HardwareRow:
        """The row for a model whose picked format at the default context is ``best`` (None: no format fits),
        with its picks at the other contexts and, where nothing fits, the offload that makes it fit."""
        params = count_params(model).total
        base = cls(model.slug, model.name, hw.slug, params, domain=model.domain, vision=model.vision is not None)
        at = tuple(_pick_at(catalog, model, hw, c) for c in _row_contexts(catalog, model))
        if best is None or best.est is None:
            return dataclasses.replace(base, at=at, **_offload(catalog, model, hw))
        return dataclasses.replace(base, at=at, **_pick_fields(best))


def _pick_fields(best: FormatRow) -> dict[str, Any]:
    """A picked format's row fields (quant … max_context); ``best`` has an estimate."""
    e = best.est
    assert e is not None
    return {
        "quant": best.fmt.name,
        "engine": best.engine.name,
        "engine_label": best.engine.label,
        "total_bytes": e.memory.total_bytes,
        "verdict": e.memory.verdict,
        "decode_tok_s": e.speed.decode_tok_s,
        "decode_low": e.speed_range.decode_low,
        "decode_high": e.speed_range.decode_high,
        "max_context": e.max_context,
    }


def _row_contexts(catalog: Catalog, model: Model) -> list[int]:
    """ROW_CONTEXTS capped at the model's maximum, without the default context."""
    default = catalog.assumptions.default_context
    return sorted({min(c, model.max_context) for c in ROW_CONTEXTS} - {default})


def _pick_at(catalog: Catalog, model: Model, hw: Hardware, context: int) -> tuple[Any, ...]:
    """The row's pick at ``context`` as a plain list (see HardwareRow.at)."""
    best = pick_of(model, quant_matrix(catalog, model, hw, context))
    if best is None or best.est is None:
        return (context, None, None, None, "oom", None, None, None, None)
    f = _pick_fields(best)
    keys = (
        "quant",
        "engine_label",
        "total_bytes",
        "verdict",
        "decode_tok_s",
        "decode_low",
        "decode_high",
        "max_context",
    )
    return (context, *(f[k] for k in keys))


def _offload(catalog: Catalog, model: Model, hw: Hardware) -> dict[str, Any]:
    """The least OFFLOAD_STEPS share of the weights in system RAM with which the model page's common setup
    fits on one device of ``hw`` (an engine that offloads layers only), or nothing."""
    fmt, engine = standard_setup(catalog, model)
    if engine.split != "layer" or not engine.runs(hw, fmt.name):
        return {}
    facts = facts_of(catalog)
    kv = catalog.kv_dtype(engine.default_kv_dtype)
    sc = Scenario(fmt=fmt, kv=kv, engine=engine, context=catalog.assumptions.default_context, gpus=hw.chips)
    for share in OFFLOAD_STEPS:
        try:
            est = estimate(model, hw, sc.with_(offload=share), facts)
        except ScenarioError:
            return {}
        if est.memory.verdict != "oom":
            return {
                "offload": share,
                "offload_bytes": est.memory.offload_bytes,
                "offload_tok_s": est.speed.decode_tok_s,
            }
    return {}


def pick_of(model: Model, matrix: tuple[FormatRow, ...]) -> FormatRow | None:
    """The format a person would run: the finder's order of formats (``setups.CANDIDATES``: quality
    first, only formats with a published checkpoint), taking a comfortable fit over a tight one; when
    none of those fits, the highest precision that does."""
    by_name = {r.fmt.name: r for r in matrix}
    for wanted in ("comfortable", "tight"):
        for name, engine in CANDIDATES:
            r = by_name.get(name)
            if (
                r is not None
                and r.est is not None
                and r.engine.name == engine
                and r.est.memory.verdict == wanted
                and model.has_checkpoint(name, r.fmt.family)
            ):
                return r
    return best_of(matrix)


def hardware_rows(catalog: Catalog, model: Model) -> list[HardwareRow]:
    """A model's rows for the pages of the accelerators it runs on (estimate.hosts), from the quantization
    matrices alone (no pages rendered)."""
    context = catalog.assumptions.default_context
    return [
        HardwareRow.from_pick(model, pick_of(model, quant_matrix(catalog, model, hw, context)), catalog, hw)
        for hw in hosts(catalog, model)
    ]


@dataclasses.dataclass(frozen=True)
class Group(Generic[T]):
    """Items whose measure is in (``low``, ``high``] (``high`` None: no bound), in a page's order."""

    low: int
    high: int | None
    items: tuple[T, ...]


def grouped(
    items: Sequence[T], bounds: Sequence[float], unit: float, measure: Callable[[T], float], order: Callable[[T], Any]
) -> tuple[Group[T], ...]:
    """``items`` in ranges of ``measure`` (upper ``bounds`` in ``unit``, the last may be infinite), each
    range sorted by ``order``; empty ranges are left out."""
    groups = []
    low = 0.0
    for high in bounds:
        mine = sorted((x for x in items if low * unit < measure(x) <= high * unit), key=order)
        if mine:
            groups.append(Group(round(low * unit), None if math.isinf(high) else round(high * unit), tuple(mine)))
        low = high
    return tuple(groups)


def size_groups(rows: Sequence[HardwareRow], current: frozenset[str] = frozenset()) -> tuple[Group[HardwareRow], ...]:
    """Rows grouped by size, smallest group first; in each, the models that fit well first, then the
    tight fits, then those that fit on no single device; current models (:func:`current_models`) before
    older ones, larger models first within each."""
    return grouped(
        rows,
        SIZE_GROUPS,
        1e9,
        lambda r: r.params_total,
        lambda r: (VERDICT_ORDER[r.verdict or "oom"], r.model_slug not in current, -r.params_total, r.model_name),
    )


def row_data(rows: Sequence[HardwareRow]) -> dict[str, Any]:
    """What the hardware page's controls need (static/hardware-page.js): per model, its task (domain, images),
    and its pick at each of ROW_CONTEXTS it reaches: [quant, engine label, total bytes,
    verdict, decode, low, high, max context] (quant None where no format fits; the default context's is the
    page's own table)."""
    out = {}
    for r in rows:
        at = {str(a[0]): list(a[1:]) for a in r.at}
        out[r.model_slug] = {"domain": r.domain, "vision": r.vision, "at": at}
    return out


def related_hardware(hw: Hardware, everything: Sequence[Hardware]) -> list[Hardware]:
    """Up to 12 other accelerators of the same kind, nearest in memory first (for a pair page's links)."""
    same = [h for h in everything if h.slug != hw.slug and h.kind is hw.kind]
    return sorted(same, key=lambda h: (abs(h.memory_bytes - hw.memory_bytes), h.slug))[:RELATED]


# The home page's memory groups, in GiB (upper bounds; the last has none).
MEMORY_GROUPS_GIB: tuple[float, ...] = (12, 16, 24, 48, 96, 192, math.inf)
# The home page's budgets (US$) and the decode speed a setup must reach there.
BUDGETS_USD: tuple[int, ...] = (500, 1000, 2000, 5000, 10000, 50000)
BUDGET_TOK_S = 10.0
# Formats a budget answer may recommend: the finder's (4-bit and up), not the 2- and 3-bit fallbacks.
QUALITY_FORMATS = frozenset(name for name, _ in CANDIDATES)


def memory_groups(hardware: Sequence[Hardware]) -> tuple[Group[Hardware], ...]:
    """The catalog's accelerators grouped by memory, least first (the home page's "what runs on my card")."""
    return grouped(hardware, MEMORY_GROUPS_GIB, 1024**3, lambda h: h.memory_bytes, lambda h: (h.memory_bytes, h.name))


@dataclasses.dataclass(frozen=True)
class DeviceGroup:
    """One memory range of the catalog's accelerators, split by vendor (the cross-links to every device)."""

    memory: Group[Hardware]
    vendors: tuple[tuple[str, tuple[Hardware, ...]], ...]

    @property
    def count(self) -> int:
        """How many accelerators the range holds."""
        return len(self.memory.items)


def device_groups(hardware: Sequence[Hardware]) -> tuple[DeviceGroup, ...]:
    """Every accelerator once: by memory range (the home page's), then by vendor (alphabetical), each
    vendor's devices by memory, then name."""
    out = []
    for g in memory_groups(hardware):
        by_vendor: dict[str, list[Hardware]] = {}
        for h in g.items:
            by_vendor.setdefault(h.vendor, []).append(h)
        out.append(DeviceGroup(g, tuple((v, tuple(by_vendor[v])) for v in sorted(by_vendor, key=str.casefold))))
    return tuple(out)


@dataclasses.dataclass(frozen=True)
class BudgetPick:
    """The single device a budget buys (new or used) that runs the best current model it can comfortably,
    in a format of the finder's (4-bit or more), at ``BUDGET_TOK_S`` or more at the default context, and
    that model's row on it."""

    hardware: Hardware
    price: Price
    row: HardwareRow


# A model is current when released at most this long before the catalog's newest model.
CURRENT_DAYS = 365


def current_models(models: Sequence[Model]) -> frozenset[str]:
    """The models released within CURRENT_DAYS of the catalog's newest release (every model when none has
    a date)."""
    dated = [m.release_date for m in models if isinstance(m.release_date, dt.date)]
    if not dated:
        return frozenset(m.slug for m in models)
    since = max(dated) - dt.timedelta(days=CURRENT_DAYS)
    return frozenset(m.slug for m in models if isinstance(m.release_date, dt.date) and m.release_date >= since)


def budget_pick(
    hardware: Sequence[Hardware],
    rows: Mapping[str, Sequence[HardwareRow]],
    budget: float,
    used: bool,
    current: frozenset[str] = frozenset(),
) -> BudgetPick | None:
    """The best buy within ``budget``: the device that runs the best model well (a current model before an
    older one, then the largest), then the fastest, then the cheapest."""
    best: tuple[tuple[bool, float, float, float, str], BudgetPick] | None = None
    for hw in hardware:
        price = hw.used_price if used else hw.price
        if price is None or price.usd > budget:
            continue
        good = [
            r
            for r in rows.get(hw.slug, ())
            if r.verdict == "comfortable"
            and r.quant in QUALITY_FORMATS
            and r.decode_tok_s is not None
            and r.decode_tok_s >= BUDGET_TOK_S
        ]
        if not good:
            continue
        top = max(good, key=lambda r: (r.model_slug in current, r.params_total, r.decode_tok_s or 0.0, r.model_slug))
        key = (top.model_slug in current, top.params_total, top.decode_tok_s or 0.0, -price.usd, hw.slug)
        if best is None or key > best[0]:
            best = (key, BudgetPick(hw, price, top))
    return best[1] if best else None


@dataclasses.dataclass(frozen=True)
class BudgetRow:
    """One budget of the home page: the best new and used buys within it."""

    budget: int
    new: BudgetPick | None
    used: BudgetPick | None


def budget_rows(
    hardware: Sequence[Hardware], rows: Mapping[str, Sequence[HardwareRow]], current: frozenset[str]
) -> tuple[BudgetRow, ...]:
    """The home page's "what can I run for my budget" table: per budget, the best current model (``current``:
    :func:`current_models`) a new and a used device within it run well."""
    return tuple(
        BudgetRow(
            b,
            budget_pick(hardware, rows, b, used=False, current=current),
            budget_pick(hardware, rows, b, True, current),
        )
        for b in BUDGETS_USD
    )
