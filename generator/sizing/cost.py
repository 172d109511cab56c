"""Cost: renting, buying and powering the hardware, per hour, per month and per million tokens."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

from generator.content.schema import ApiPrice, Assumptions, CloudOffer, Hardware, Rig, RigsFile


@dataclasses.dataclass(frozen=True)
class RigCost:
    """The rig that holds a setup's cards (rigs.yaml): how many cards it takes (a baseboard of modules is
    bought whole), its power supplies, what its parts cost, what it all draws at full load and how many
    household circuits that takes (None for a datacenter server)."""

    rig: Rig
    cards: int
    psus: int
    usd: float
    draw_w: float | None
    circuits: int | None


def needs_rig(hw: Hardware, units: int) -> bool:
    """Whether ``units`` cards of ``hw`` need a rig: a module always (it is sold on a baseboard), plug-in
    cards from two (one goes into the buyer's PC), a whole machine never."""
    return hw.bought_as == "module" or (hw.bought_as == "card" and units > 1)


def rig_for(hw: Hardware, units: int, rigs: RigsFile | None, chips: int = 1) -> RigCost | None:
    """The first rig of ``rigs`` that takes ``units`` cards of ``hw`` (its form factor, its kind, that many,
    and power supplies enough for their power with the headroom, within the rig's most); None where none
    does. ``hw`` may be one device of a card of ``chips`` devices (its power is then the card's share)."""
    if rigs is None:
        return None
    card_w = hw.tdp_w * chips if hw.tdp_w is not None else None
    for rig in rigs.rigs:
        if rig.form_factor != hw.bought_as or hw.kind not in rig.kinds:
            continue
        if not rig.min_cards <= units <= rig.max_cards:
            continue
        cards = max(units, rig.sold_with or 0)
        draw = cards * card_w + rig.host_w if card_w is not None else None
        psus = 0
        if rig.psu_w is not None and rig.max_psus is not None:
            if draw is None:
                continue
            psus = math.ceil(draw * (1 + rigs.psu_headroom) / rig.psu_w)
            if psus > rig.max_psus:
                continue
        count = {"rig": 1, "card": cards, "psu": psus}
        usd = sum(part.usd * count[part.per] for part in rig.parts)
        circuits = math.ceil(draw / rigs.circuit_w) if draw is not None and rig.psu_w is not None else None
        return RigCost(rig, cards, psus, usd, draw, circuits)
    return None


def bought(
    hw: Hardware, units: int, unit_usd: float, rigs: RigsFile | None, chips: int = 1
) -> tuple[float, RigCost | None] | None:
    """What buying ``units`` cards at ``unit_usd`` each costs with the rig they need, and that rig; None
    where they need one and no rig takes them."""
    if not needs_rig(hw, units):
        return unit_usd * units, None
    rig = rig_for(hw, units, rigs, chips)
    if rig is None:
        return None
    return unit_usd * rig.cards + rig.usd, rig


@dataclasses.dataclass(frozen=True)
class Cost:
    """Money for one scenario; None where no price is known."""

    offer: CloudOffer | None
    # The cards (or machines) the devices are: devices ÷ chips per card, rounded up.
    units: int
    # The rig bought with the devices (None: one card, a machine, or no rig takes them: then no buy price).
    rig: RigCost | None
    cloud_usd_per_gpu_hour: float | None
    cloud_usd_per_hour: float | None
    usd_per_mtok: float | None
    monthly_usd: float | None
    buy_usd: float | None
    power_usd_per_hour: float | None
    breakeven_months: float | None
    api: ApiPrice | None


# Offers rented by default: on demand, by the hour, from the provider itself, with no commitment and no
# risk of being pre-empted.
RENT_BILLING: tuple[str, ...] = ("on_demand",)
# Offers a buyer may choose to include, labelled as such: spot (pre-emptible) and marketplace hosts
# (community). Reserved prices need a commitment of a year or more and are never a rental.
ANY_BILLING: tuple[str, ...] = ("on_demand", "spot", "community")


def rental(
    offers: Sequence[CloudOffer], hw_slug: str, units: int, billing: Sequence[str] = RENT_BILLING
) -> CloudOffer | None:
    """The cheapest instance that rents ``units`` cards of ``hw_slug`` at once: an offer of the billing
    kinds with at least that many GPUs, at its whole price (an instance is rented whole; several small
    instances are not one machine). None where no such instance is listed."""
    fit = [o for o in offers if o.hardware == hw_slug and o.billing in billing and o.gpus >= units]
    return min(fit, key=lambda o: (o.usd_per_hour, o.gpus, o.provider, o.instance), default=None)


def cost(
    hw: Hardware,
    model: str,
    gpus: int,
    aggregate_tok_s: float,
    offers: tuple[CloudOffer, ...],
    api_prices: tuple[ApiPrice, ...],
    a: Assumptions,
    chips: int = 1,
) -> Cost:
    """The cheapest on-demand instance that holds the devices (:func:`rental`), $ per 1M output tokens,
    monthly at ``hours_per_day``, the purchase with the rig the cards need (:func:`bought`), and break-even
    months of buying instead of renting (rent saved minus electricity); and the cheapest serverless API
    price of ``model`` (a slug) for comparison. ``hw`` is one device and ``gpus`` counts devices; an offer
    rents, and a purchase buys, whole cards of ``chips`` devices each."""
    units = math.ceil(gpus / chips)
    offer = rental(offers, hw.slug, units)
    per_gpu = offer.usd_per_hour / (offer.gpus * chips) if offer else None
    hourly = offer.usd_per_hour if offer else None
    hours_month = a.hours_per_day * a.days_per_month
    per_mtok = hourly / (aggregate_tok_s * 3600) * 1e6 if hourly is not None and aggregate_tok_s > 0 else None
    got = bought(hw, units, hw.price.usd * chips, a.rigs, chips) if hw.price else None
    buy, rig = got if got else (None, None)
    host_w = rig.rig.host_w if rig else 0.0
    power = (hw.tdp_w * gpus + host_w) / 1000 * a.electricity_usd_per_kwh if hw.tdp_w else None
    breakeven = None
    if buy is not None and hourly is not None:
        saved = (hourly - (power or 0.0)) * hours_month
        breakeven = buy / saved if saved > 0 else None
    api = min(
        (p for p in api_prices if p.model == model), key=lambda p: (p.output_usd_per_mtok, p.provider), default=None
    )
    return Cost(
        offer=offer,
        units=units,
        rig=rig,
        cloud_usd_per_gpu_hour=per_gpu,
        cloud_usd_per_hour=hourly,
        usd_per_mtok=per_mtok,
        monthly_usd=hourly * hours_month if hourly is not None else None,
        buy_usd=buy,
        power_usd_per_hour=power,
        breakeven_months=breakeven,
        api=api,
    )


def offer_monthly(offer: CloudOffer, gpus: int, chips: int, a: Assumptions) -> float | None:
    """Renting ``offer``'s instance for a month of ``hours_per_day`` to run ``gpus`` devices (an offer rents
    whole cards of ``chips`` devices), as :func:`cost` prices it; None where the instance has too few."""
    if offer.gpus < math.ceil(gpus / chips):
        return None
    return offer.usd_per_hour * a.hours_per_day * a.days_per_month


@dataclasses.dataclass(frozen=True)
class BudgetUse:
    """What ``budget`` US$ gets with one setup: whether it buys the setup's devices, with what is left
    and the months of electricity that pays for at the hours a day; the months of renting them at those
    hours and the million output tokens that is at the setup's speed; and the million output tokens of
    the cheapest hosted API. None where a price is unknown."""

    budget: float
    buys: bool | None
    left_usd: float | None
    power_months: float | None
    rent_months: float | None
    rent_mtok: float | None
    api_mtok: float | None

    def to_dict(self) -> dict[str, float | bool | None]:
        """Every field, prefixed ``budget_`` (as sizing.js budgetUse returns them)."""
        return {f"budget_{k}" if k != "budget" else k: v for k, v in dataclasses.asdict(self).items()}


def budget_use(c: Cost, budget: float, a: Assumptions) -> BudgetUse:
    """What ``budget`` gets with the setup whose cost is ``c`` (see :class:`BudgetUse`)."""
    hours_month = a.hours_per_day * a.days_per_month
    buys = None if c.buy_usd is None else budget >= c.buy_usd
    left = budget - c.buy_usd if buys and c.buy_usd is not None else None
    power = c.power_usd_per_hour
    api = c.api.output_usd_per_mtok if c.api else None
    return BudgetUse(
        budget=budget,
        buys=buys,
        left_usd=left,
        power_months=left / (power * hours_month) if left is not None and power else None,
        rent_months=budget / c.monthly_usd if c.monthly_usd else None,
        rent_mtok=budget / c.usd_per_mtok if c.usd_per_mtok else None,
        api_mtok=budget / api if api else None,
    )
