"""The buyer's answer: every setup that runs a model at a context and speed, cheapest first.

A question names the context per user, the decode speed each user needs, how many users at once,
whether the hardware is bought new, bought used or rented, the most devices, a budget and an
optional engine. A setup is an accelerator, how many of its devices, the format, the KV cache type
and the engine, with what it costs. For each accelerator the answer takes the cheapest devices that
hold the model and reach the speed, and at that cost the best format a person would pick: the
highest precision with a published checkpoint that meets the question, else one the user quantizes
(said on the answer), with the engine's default KV cache, or its 8-bit one when only that fits. The
browser's finder runs the same rules (``static/finder.js``); the parity vectors check it.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterator
from typing import Literal

from generator.content.catalog import Catalog
from generator.content.schema import CloudOffer, Hardware, HardwareKind, Model, Price
from generator.site.accuracy import batched_checks, batched_rows
from generator.site.quality import model_quality
from generator.sizing.cost import ANY_BILLING, RENT_BILLING, RigCost, bought, rental
from generator.sizing.estimate import Estimate, ScenarioError, estimate, fit_and_decode
from generator.sizing.memory import tp_valid
from generator.sizing.scenario import Scenario, facts_of

Mode = Literal["buy", "used", "rent"]
# Formats a person would run for quality, best first, with the engine that loads each.
CANDIDATES: tuple[tuple[str, str], ...] = (
    ("BF16", "vllm"),
    ("Q8_0", "llama.cpp"),
    ("FP8", "vllm"),
    ("Q6_K", "llama.cpp"),
    ("Q5_K_M", "llama.cpp"),
    ("MLX 4-bit", "mlx"),
    ("AWQ", "vllm"),
    ("Q4_K_M", "llama.cpp"),
)
# The 8-bit KV cache each engine offers when its default does not fit.
KV8 = {"llama.cpp": "q8_0", "vllm": "fp8", "sglang": "fp8"}
# A median error over this, on the accuracy page's batched checks of an engine on a vendor's devices, makes
# an answer resting on that cell "poorly measured" (ranked after sure answers, and said).
POOR_CELL_ERROR = 0.5
# Machines that are one device and do not combine (a Mac, an APU box).
SINGLE = (HardwareKind.apple_unified, HardwareKind.unified_apu)


@dataclasses.dataclass(frozen=True)
class Question:
    """What a buyer asks for one model."""

    context: int
    min_tok_s: float
    users: int = 1
    mode: Mode = "buy"
    max_devices: int = 8
    budget_usd: float | None = None
    engine: str | None = None
    # The worst quality label accepted (content/quality.yaml's order); unmeasured formats fail a floor.
    min_quality: str | None = None
    # Rentals: on-demand instances only, or also spot and marketplace ones (labelled on the answer).
    interruptible: bool = False


@dataclasses.dataclass(frozen=True)
class Setup:
    """One way to run the model that meets a question, and what it costs."""

    hardware: Hardware
    devices: int
    units: int
    fmt: str
    engine: str
    kv_dtype: str
    est: Estimate
    cost_usd: float
    price: Price | None
    usd_per_hour: float | None
    # The instance rented (its billing says whether it is on demand, spot or a marketplace host).
    offer: CloudOffer | None = None
    # The rig bought with several cards or modules (its parts are in the cost).
    rig: RigCost | None = None
    # Whether the decode range's low end is under the question's speed: the setup may fall short of it.
    may_fall_short: bool = False
    # Whether the format has a published checkpoint of the model (False: the user quantizes it).
    published: bool = True
    # The median error the accuracy page measures for this engine on this vendor's devices (split over
    # several or not) where it is over POOR_CELL_ERROR: the speed rests on a poorly measured cell.
    poor_cell: float | None = None

    @property
    def usd_per_tok_s(self) -> float:
        """Cost per token per second of aggregate decode (all users together)."""
        return self.cost_usd / self.est.speed.decode_tok_s_aggregate


@dataclasses.dataclass(frozen=True)
class Option:
    """One way a device count could run the model at one context: it holds it, at this decode speed."""

    hardware: Hardware
    devices: int
    fmt: str
    engine: str
    kv_dtype: str
    # The format's place in CANDIDATES, then the KV cache's (default first), from UNPUBLISHED_RANK for a
    # format with no published checkpoint: lower is better.
    rank: int
    decode_tok_s: float
    # The low end of the decode range (None without a calibration).
    decode_low: float | None = None

    @property
    def published(self) -> bool:
        """Whether the format has a published checkpoint of the model (else the user quantizes it)."""
        return self.rank < UNPUBLISHED_RANK


@dataclasses.dataclass(frozen=True)
class Priced:
    """What a question's mode costs for some devices of an accelerator ($, or $/hour to rent): the unit
    price used, the instance rented, or the rig bought with the cards."""

    usd: float
    price: Price | None = None
    offer: CloudOffer | None = None
    rig: RigCost | None = None

    @property
    def cards(self) -> int | None:
        """The cards a rig buys (a baseboard of modules is bought whole), None without a rig."""
        return self.rig.cards if self.rig else None


def setup_cost(hw: Hardware, devices: int, q: Question, catalog: Catalog) -> Priced | None:
    """What the question's mode costs for ``devices`` devices of ``hw``, or None without a price or a rig
    that takes them: renting takes one instance that holds them (cost.rental), on demand unless the
    question accepts spot and marketplace offers; buying adds the rig several cards need (cost.bought)."""
    units = math.ceil(devices / hw.chips)
    if q.mode == "rent":
        billing = ANY_BILLING if q.interruptible else RENT_BILLING
        offer = rental(catalog.offers_for(hw.slug), hw.slug, units, billing)
        return Priced(offer.usd_per_hour, offer=offer) if offer else None
    price = hw.used_price if q.mode == "used" else hw.price
    got = bought(hw, units, price.usd, catalog.assumptions.rigs) if price else None
    return Priced(got[0], price, rig=got[1]) if got else None


def _device_counts(model: Model, hw: Hardware, engine: str, catalog: Catalog, max_devices: int) -> Iterator[int]:
    """Device counts to try, fewest first: whole cards of a multi-chip entry, one machine of a single one."""
    if hw.kind in SINGLE:
        yield hw.chips
        return
    profile = catalog.engine(engine)
    for n in range(hw.chips, max_devices + 1, hw.chips):
        if tp_valid(model, profile, n):
            yield n


# Formats with no published checkpoint rank after every format with one: a person quantizes the model
# themselves only when that saves money (the answer says so).
UNPUBLISHED_RANK = 2 * len(CANDIDATES)


def _candidates(catalog: Catalog, model: Model, hw: Hardware) -> Iterator[tuple[int, str, str, bool]]:
    """(rank, format, engine, whether a checkpoint is published) a person would run on ``hw``, best first."""
    for rank, (fmt, engine) in enumerate(CANDIDATES):
        qf = catalog.formats.get(fmt)
        profile = catalog.engines.get(engine)
        if qf is None or profile is None or not profile.runs(hw, fmt):
            continue
        yield rank, fmt, engine, model.has_checkpoint(fmt, qf.family)


def options(
    catalog: Catalog,
    model: Model,
    context: int,
    users: int = 1,
    max_devices: int = 8,
    enough_tok_s: float = math.inf,
) -> list[Option]:
    """Every (accelerator, devices, format, KV cache) that holds ``model`` at ``context`` for ``users``.

    Under layer split more devices add capacity, not speed, so the fewest that hold it is the only
    count kept; under tensor parallelism every valid count up to ``max_devices`` is kept (each faster),
    or up to the first that reaches ``enough_tok_s``: a question asking for at most that speed takes the
    cheapest count that reaches it, so the counts beyond are never chosen (the answers stay the same).
    """
    facts = facts_of(catalog)
    out = []
    for hw in catalog.hardware.values():
        for rank, fmt, engine, published in _candidates(catalog, model, hw):
            profile = catalog.engine(engine)
            kvs = [profile.default_kv_dtype] + ([KV8[engine]] if engine in KV8 else [])
            for k, kv in enumerate(kvs):
                for devices in _device_counts(model, hw, engine, catalog, max_devices):
                    sc = Scenario(
                        fmt=catalog.format(fmt),
                        kv=catalog.kv_dtype(kv),
                        engine=profile,
                        context=context,
                        batch=users,
                        gpus=devices,
                    )
                    try:
                        fd = fit_and_decode(model, hw, sc, facts)
                    except ScenarioError:
                        break
                    if fd.decode_tok_s is None:
                        continue
                    order = rank * 2 + k + (0 if published else UNPUBLISHED_RANK)
                    out.append(Option(hw, devices, fmt, engine, kv, order, fd.decode_tok_s, fd.decode_low))
                    if profile.split != "tensor" or fd.decode_tok_s >= enough_tok_s:
                        break
    return out


def quality_names(catalog: Catalog, model: Model, floor: str | None) -> frozenset[str] | None:
    """The formats whose quality for ``model`` is ``floor`` or better (None: no floor)."""
    if floor is None:
        return None
    order = [lab.name for lab in catalog.quality_labels]
    limit = order.index(floor) if floor in order else len(order)
    return frozenset(name for name, q in model_quality(catalog, model).items() if order.index(q.label) <= limit)


def poor_cells(catalog: Catalog) -> dict[tuple[str, str, bool], float]:
    """The cells of the accuracy page's batched checks (engine, vendor, split over several devices) whose
    median error is over POOR_CELL_ERROR, with that error (computed once per catalog)."""
    cells: dict[tuple[str, str, bool], float] | None = catalog.derived.get("poor_cells")
    if cells is None:
        rows = batched_rows(batched_checks(catalog))
        cells = {(r.engine, r.vendor, r.several): r.median for r in rows if r.median > POOR_CELL_ERROR}
        catalog.derived["poor_cells"] = cells
    return cells


@dataclasses.dataclass(frozen=True)
class _Priced:
    """An option with what it costs in the question's mode and whether its speed is sure."""

    option: Option
    priced: Priced
    short: bool
    poor: float | None

    def key(self) -> tuple[bool, float, int, float, str]:
        """The answer's order: well measured first, cheapest, fewest cards bought (one box before a rig
        at equal cost), fastest, by slug."""
        o = self.option
        cards = self.priced.cards or math.ceil(o.devices / o.hardware.chips)
        return (self.unsure, self.priced.usd, cards, -o.decode_tok_s, o.hardware.slug)

    def choice(self) -> tuple[bool, float, int, float]:
        """The order of one accelerator's options: well measured first, cheapest, best format, fastest."""
        return (self.unsure, self.priced.usd, self.option.rank, -self.option.decode_tok_s)

    @property
    def unsure(self) -> bool:
        """Whether the speed rests on a poorly measured engine cell (such answers come after the others)."""
        return self.poor is not None


def answer_from(
    catalog: Catalog, model: Model, q: Question, found: list[Option], limit: int | None = None
) -> list[Setup]:
    """The answer to ``q`` from the options at its context: per accelerator the cheapest option that meets
    the question, the best format at that cost; cheapest first, then faster (the first ``limit`` of them,
    each with its full estimate). Options whose speed rests on a poorly measured engine cell
    (:func:`poor_cells`) come after the others, on each accelerator and in the list; an option whose decode
    range's low end is under the question's speed keeps its place and is flagged (``may_fall_short``)."""
    good = quality_names(catalog, model, q.min_quality)
    cells = poor_cells(catalog)
    costs: dict[tuple[str, int], Priced | None] = {}
    best: dict[str, _Priced] = {}
    for o in found:
        if o.decode_tok_s < q.min_tok_s or o.devices > q.max_devices or (q.engine and o.engine != q.engine):
            continue
        if good is not None and o.fmt not in good:
            continue
        key = (o.hardware.slug, o.devices)
        if key not in costs:
            costs[key] = setup_cost(o.hardware, o.devices, q, catalog)
        priced = costs[key]
        if priced is None or (q.budget_usd is not None and priced.usd > q.budget_usd):
            continue
        short = o.decode_low is not None and o.decode_low < q.min_tok_s
        p = _Priced(o, priced, short, cells.get((o.engine, o.hardware.vendor, o.devices > 1)))
        current = best.get(o.hardware.slug)
        if current is None or p.choice() < current.choice():
            best[o.hardware.slug] = p
    ranked = sorted(best.values(), key=_Priced.key)
    facts = facts_of(catalog)
    setups = []
    for p in ranked[:limit]:
        o = p.option
        sc = Scenario(
            fmt=catalog.format(o.fmt),
            kv=catalog.kv_dtype(o.kv_dtype),
            engine=catalog.engine(o.engine),
            context=q.context,
            batch=q.users,
            gpus=o.devices,
        )
        est = estimate(model, o.hardware, sc, facts)
        units = math.ceil(o.devices / o.hardware.chips)
        pr = p.priced
        setups.append(
            Setup(
                o.hardware,
                o.devices,
                units,
                o.fmt,
                o.engine,
                o.kv_dtype,
                est,
                pr.usd,
                pr.price,
                usd_per_hour=pr.usd if pr.offer else None,
                offer=pr.offer,
                rig=pr.rig,
                may_fall_short=p.short,
                published=o.published,
                poor_cell=p.poor,
            )
        )
    return setups


def answer(catalog: Catalog, model: Model, q: Question) -> list[Setup]:
    """Every accelerator's cheapest setup that meets ``q``, cheapest first (then faster, then by slug)."""
    return answer_from(catalog, model, q, options(catalog, model, q.context, q.users, q.max_devices))


# The questions every model page answers without JavaScript (and /api/v1/models/{model}/setups.json).
COMMON_CONTEXTS = (8192, 32768, 131072)
COMMON_SPEEDS = (10.0, 20.0, 40.0)
COMMON_MODES: tuple[Mode, ...] = ("buy", "rent")
# How many setups setups.json lists per question.
TOP = 5


@dataclasses.dataclass(frozen=True)
class Answer:
    """A question and its cheapest setups (at most TOP)."""

    question: Question
    setups: tuple[Setup, ...]


def common_contexts(model: Model) -> tuple[int, ...]:
    """The common contexts the model reaches (its maximum stands in for those it does not)."""
    top = model.max_context
    return tuple(sorted({min(c, top) for c in COMMON_CONTEXTS}))


def common_answers(catalog: Catalog, model: Model) -> tuple[tuple[Answer, ...], tuple[Pick, ...]]:
    """Answers to the common questions (each common context × speed × buy or rent, one user) and the
    buyer's picks, from one search per context."""
    enough = max(*COMMON_SPEEDS, PICK_TOK_S)
    found = {context: options(catalog, model, context, enough_tok_s=enough) for context in common_contexts(model)}
    out = []
    for context, at in found.items():
        for speed in COMMON_SPEEDS:
            for mode in COMMON_MODES:
                q = Question(context=context, min_tok_s=speed, mode=mode)
                out.append(Answer(q, tuple(answer_from(catalog, model, q, at, TOP))))
    return tuple(out), picks(catalog, model, found)


# The buyer's picks are for one user reading as fast as text appears: this decode speed.
PICK_TOK_S = 10.0


@dataclasses.dataclass(frozen=True)
class Pick:
    """A recommendation: the cheapest setup of one kind (new card, used card, Mac, cloud, long context)."""

    key: Literal["new", "used", "apple", "cloud", "long"]
    setup: Setup


def picks(catalog: Catalog, model: Model, found: dict[int, list[Option]]) -> tuple[Pick, ...]:
    """The cheapest new single card, used single card, Mac, rental, and buy at the longest common
    context, each reaching PICK_TOK_S for one user; at the first common context unless said."""
    contexts = sorted(found)
    short, long = contexts[0], contexts[-1]

    def card(o: Option) -> bool:
        return o.devices == o.hardware.chips and o.hardware.kind not in SINGLE

    def mac(o: Option) -> bool:
        return o.hardware.kind is HardwareKind.apple_unified

    wanted: tuple[tuple[Literal["new", "used", "apple", "cloud", "long"], int, Mode, Callable[[Option], bool]], ...] = (
        ("new", short, "buy", card),
        ("used", short, "used", card),
        ("apple", short, "buy", mac),
        ("cloud", short, "rent", lambda _o: True),
        ("long", long, "buy", lambda _o: True),
    )
    out = []
    for key, context, mode, keep in wanted:
        if key == "long" and long == short:
            continue
        q = Question(context=context, min_tok_s=PICK_TOK_S, mode=mode)
        best = answer_from(catalog, model, q, [o for o in found[context] if keep(o)], 1)
        if best:
            out.append(Pick(key, best[0]))
    return tuple(out)
