"""Cost: renting, buying and powering the hardware, per hour, per month and per million tokens."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

from generator.content.schema import ApiPrice, Assumptions, CloudOffer, Hardware


@dataclasses.dataclass(frozen=True)
class Cost:
    """Money for one scenario; None where no price is known."""

    offer: CloudOffer | None
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
    monthly at ``hours_per_day``, and break-even months of buying instead of renting (rent saved minus
    electricity); and the cheapest serverless API price of ``model`` (a slug) for comparison. ``hw`` is
    one device and ``gpus`` counts devices; an offer rents whole cards of ``chips`` devices each."""
    offer = rental(offers, hw.slug, math.ceil(gpus / chips))
    per_gpu = offer.usd_per_hour / (offer.gpus * chips) if offer else None
    hourly = offer.usd_per_hour if offer else None
    hours_month = a.hours_per_day * a.days_per_month
    per_mtok = hourly / (aggregate_tok_s * 3600) * 1e6 if hourly is not None and aggregate_tok_s > 0 else None
    power = hw.tdp_w * gpus / 1000 * a.electricity_usd_per_kwh if hw.tdp_w else None
    buy = hw.price.usd * gpus if hw.price else None
    breakeven = None
    if buy is not None and hourly is not None:
        saved = (hourly - (power or 0.0)) * hours_month
        breakeven = buy / saved if saved > 0 else None
    api = min(
        (p for p in api_prices if p.model == model), key=lambda p: (p.output_usd_per_mtok, p.provider), default=None
    )
    return Cost(
        offer=offer,
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
