"""The buyer's answer: every setup that runs a model at a context and speed, cheapest first.

A question names the context per user, the decode speed each user needs, how many users at once,
whether the hardware is bought new, bought used or rented, the most devices, a budget and an
optional engine. A setup is an accelerator, how many of its devices, the format, the KV cache type
and the engine, with what it costs. For each accelerator the answer takes the fewest devices that
hold the model and reach the speed, and at that count the best format a person would pick: the
highest precision (among formats with a published checkpoint) that meets the question, with the
engine's default KV cache, or its 8-bit one when only that fits. The browser's finder runs the same
rules (``static/finder.js``); the parity vectors check it.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterator
from typing import Literal

from generator.content.catalog import Catalog
from generator.content.schema import CloudOffer, Hardware, HardwareKind, Model, Price
from generator.site.quality import model_quality
from generator.sizing.cost import ANY_BILLING, RENT_BILLING, rental
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
    # Whether the decode range's low end is under the question's speed: the setup may fall short of it.
    may_fall_short: bool = False

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
    rank: int  # the format's place in CANDIDATES, then the KV cache's (default first): lower is better
    decode_tok_s: float


def _cost(
    hw: Hardware, devices: int, q: Question, catalog: Catalog
) -> tuple[float, Price | None, float | None, CloudOffer | None] | None:
    """(what the question's mode costs for ``devices`` devices of ``hw``, the price used, $/hour, the instance
    rented), or None without a price: renting takes one instance that holds them (cost.rental), on demand
    unless the question accepts spot and marketplace offers."""
    units = math.ceil(devices / hw.chips)
    if q.mode == "rent":
        billing = ANY_BILLING if q.interruptible else RENT_BILLING
        offer = rental(catalog.offers_for(hw.slug), hw.slug, units, billing)
        if offer is None:
            return None
        return offer.usd_per_hour, None, offer.usd_per_hour, offer
    price = hw.used_price if q.mode == "used" else hw.price
    if price is None:
        return None
    return price.usd * units, price, None, None


def _device_counts(model: Model, hw: Hardware, engine: str, catalog: Catalog, max_devices: int) -> Iterator[int]:
    """Device counts to try, fewest first: whole cards of a multi-chip entry, one machine of a single one."""
    if hw.kind in SINGLE:
        yield hw.chips
        return
    profile = catalog.engine(engine)
    for n in range(hw.chips, max_devices + 1, hw.chips):
        if tp_valid(model, profile, n):
            yield n


def _candidates(catalog: Catalog, model: Model, hw: Hardware) -> Iterator[tuple[int, str, str]]:
    """(rank, format, engine) a person would run on ``hw``, best first, where a checkpoint exists."""
    for rank, (fmt, engine) in enumerate(CANDIDATES):
        qf = catalog.formats.get(fmt)
        profile = catalog.engines.get(engine)
        if qf is None or profile is None or not profile.runs(hw, fmt):
            continue
        if model.has_checkpoint(fmt, qf.family):
            yield rank, fmt, engine


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
    fewest devices that reach it, so the counts beyond are never chosen (the answers stay the same).
    """
    facts = facts_of(catalog)
    out = []
    for hw in catalog.hardware.values():
        for rank, fmt, engine in _candidates(catalog, model, hw):
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
                        verdict, tok_s = fit_and_decode(model, hw, sc, facts)
                    except ScenarioError:
                        break
                    if tok_s is None:
                        continue
                    out.append(Option(hw, devices, fmt, engine, kv, rank * 2 + k, tok_s))
                    if profile.split != "tensor" or tok_s >= enough_tok_s:
                        break
    return out


def quality_names(catalog: Catalog, model: Model, floor: str | None) -> frozenset[str] | None:
    """The formats whose quality for ``model`` is ``floor`` or better (None: no floor)."""
    if floor is None:
        return None
    order = [lab.name for lab in catalog.quality_labels]
    limit = order.index(floor) if floor in order else len(order)
    return frozenset(name for name, q in model_quality(catalog, model).items() if order.index(q.label) <= limit)


def answer_from(
    catalog: Catalog, model: Model, q: Question, found: list[Option], limit: int | None = None
) -> list[Setup]:
    """The answer to ``q`` from the options at its context: per accelerator the fewest devices that
    reach the speed, the best format there; priced by the question's mode; cheapest first (the first
    ``limit`` of them, each with its full estimate)."""
    best: dict[str, Option] = {}
    good = quality_names(catalog, model, q.min_quality)
    for o in found:
        if o.decode_tok_s < q.min_tok_s or o.devices > q.max_devices or (q.engine and o.engine != q.engine):
            continue
        if good is not None and o.fmt not in good:
            continue
        current = best.get(o.hardware.slug)
        if current is None or (o.devices, o.rank) < (current.devices, current.rank):
            best[o.hardware.slug] = o
    priced_options = []
    for o in best.values():
        priced = _cost(o.hardware, o.devices, q, catalog)
        if priced is not None and (q.budget_usd is None or priced[0] <= q.budget_usd):
            priced_options.append((priced, o))
    priced_options.sort(key=lambda po: (po[0][0], -po[1].decode_tok_s, po[1].hardware.slug))
    facts = facts_of(catalog)
    setups = []
    for priced, o in priced_options[:limit]:
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
        low = est.speed_range.decode_low
        short = low is not None and low < q.min_tok_s
        setups.append(Setup(o.hardware, o.devices, units, o.fmt, o.engine, o.kv_dtype, est, *priced, short))
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
