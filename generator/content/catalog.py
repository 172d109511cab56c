"""The validated catalog: every record, sorted, with lookups by slug or name. Immutable."""

from __future__ import annotations

import dataclasses
import datetime as dt
import difflib
import functools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar

from generator.content.schema import (
    LAUNCH_PRICE_MAX_AGE_DAYS,
    ApiPrice,
    Assumptions,
    Calibration,
    CliProgram,
    CloudOffer,
    EngineProfile,
    FileSize,
    Hardware,
    KVDtype,
    MemoryLog,
    Model,
    Provider,
    QualityLabel,
    QualityMeasurement,
    QuantFormat,
    Throughput,
    Wanted,
)

# A price older than this is flagged on the pages and warned about by check-content.
PRICE_MAX_AGE_DAYS = LAUNCH_PRICE_MAX_AGE_DAYS


class UnknownName(LookupError):
    """A slug or name that is not in the catalog; carries the closest matches."""

    def __init__(self, what: str, name: str, choices: Iterable[str]) -> None:
        self.what = what
        self.name = name
        self.closest = difflib.get_close_matches(name, list(choices), n=3, cutoff=0.4)
        hint = f"; did you mean {', '.join(self.closest)}?" if self.closest else ""
        super().__init__(f"unknown {what} {name!r}{hint}")


T = TypeVar("T")


def _prices_as_of(
    hardware: Sequence[Hardware], offers: Sequence[CloudOffer], api_prices: Sequence[ApiPrice]
) -> dt.date | None:
    """The newest date of any hardware, cloud or API price."""
    dates = [p.date for h in hardware for p in h.prices]
    dates += [o.date_seen for o in offers] + [p.date_seen for p in api_prices]
    return max(dates, default=None)


def _index(items: Iterable[T], key: str) -> Mapping[str, T]:
    # A plain dict (typed read-only) so the catalog pickles into build workers.
    return {getattr(i, key): i for i in items}


@dataclasses.dataclass(frozen=True)
class Catalog:
    """Everything under content/, validated and cross-referenced."""

    models: Mapping[str, Model]
    hardware: Mapping[str, Hardware]
    formats: Mapping[str, QuantFormat]
    kv_dtypes: Mapping[str, KVDtype]
    engines: Mapping[str, EngineProfile]
    assumptions: Assumptions
    calibration: Calibration | None
    offers: tuple[CloudOffer, ...]
    api_prices: tuple[ApiPrice, ...]
    throughput: tuple[Throughput, ...]
    file_sizes: tuple[FileSize, ...]
    memory_logs: tuple[MemoryLog, ...] = ()
    # Other names people type for an organization or vendor (search-aliases.yaml), by the name they match.
    search_aliases: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    # Markdown pages by language and name: pages["fr"]["methodology"].
    pages: Mapping[str, Mapping[str, str]] = dataclasses.field(default_factory=dict)
    quality: tuple[QualityMeasurement, ...] = ()
    quality_labels: tuple[QualityLabel, ...] = ()
    # What people ask for that the catalog lacks (content/wanted.yaml).
    wanted: tuple[Wanted, ...] = ()
    # The launch programs' command lines (content/cli.yaml), by program ("vllm serve").
    programs: Mapping[str, CliProgram] = dataclasses.field(default_factory=dict)
    # Cloud providers' pricing pages (cloud.yaml's providers), by the name their offers use.
    providers: Mapping[str, Provider] = dataclasses.field(default_factory=dict)

    @classmethod
    def create(
        cls,
        *,
        models: Iterable[Model],
        hardware: Iterable[Hardware],
        formats: Iterable[QuantFormat],
        kv_dtypes: Iterable[KVDtype],
        engines: Iterable[EngineProfile],
        assumptions: Assumptions,
        calibration: Calibration | None,
        offers: Iterable[CloudOffer] = (),
        api_prices: Iterable[ApiPrice] = (),
        throughput: Iterable[Throughput] = (),
        file_sizes: Iterable[FileSize] = (),
        memory_logs: Iterable[MemoryLog] = (),
        search_aliases: Mapping[str, tuple[str, ...]] | None = None,
        pages: Mapping[str, Mapping[str, str]] | None = None,
        quality: Iterable[QualityMeasurement] = (),
        quality_labels: Iterable[QualityLabel] = (),
        wanted: Iterable[Wanted] = (),
        programs: Iterable[CliProgram] = (),
        providers: Iterable[Provider] = (),
    ) -> Catalog:
        """Build a catalog with a deterministic order (slugs sorted; formats as listed). Each hardware entry
        learns the day the prices describe (:func:`prices_as_of`), which decides whether its launch price
        is still a new price."""
        offers, api_prices, hardware = tuple(offers), tuple(api_prices), tuple(hardware)
        as_of = _prices_as_of(hardware, offers, api_prices)
        return cls(
            models=_index(sorted(models, key=lambda m: m.slug), "slug"),
            hardware=_index(
                sorted((h.model_copy(update={"prices_as_of": as_of}) for h in hardware), key=lambda h: h.slug), "slug"
            ),
            formats=_index(formats, "name"),
            kv_dtypes=_index(kv_dtypes, "name"),
            engines=_index(engines, "name"),
            assumptions=assumptions,
            calibration=calibration,
            offers=tuple(sorted(offers, key=lambda o: (o.hardware, o.usd_per_gpu_hour, o.provider, o.instance))),
            api_prices=tuple(sorted(api_prices, key=lambda p: (p.model, p.output_usd_per_mtok, p.provider))),
            throughput=tuple(throughput),
            file_sizes=tuple(file_sizes),
            memory_logs=tuple(memory_logs),
            search_aliases=dict(sorted((search_aliases or {}).items())),
            pages={lang: dict(sorted(p.items())) for lang, p in sorted((pages or {}).items())},
            quality=tuple(quality),
            quality_labels=tuple(quality_labels),
            wanted=tuple(sorted(wanted, key=lambda w: (w.kind, w.name.lower()))),
            programs=_index(programs, "program"),
            providers=_index(sorted(providers, key=lambda p: p.name), "name"),
        )

    @functools.cached_property
    def prices_as_of(self) -> dt.date | None:
        """The newest date of any price in the catalog (hardware, cloud, API): the day the catalog's
        prices describe, from which the site counts how old a price is (the same input gives the
        same pages on any day)."""
        return _prices_as_of(tuple(self.hardware.values()), self.offers, self.api_prices)

    @functools.cached_property
    def stale_before(self) -> dt.date:
        """Prices seen before this day are over PRICE_MAX_AGE_DAYS old (relative to :attr:`prices_as_of`)."""
        newest = self.prices_as_of or dt.date.min + dt.timedelta(days=PRICE_MAX_AGE_DAYS)
        return newest - dt.timedelta(days=PRICE_MAX_AGE_DAYS)

    def page(self, lang: str, name: str) -> str:
        """The Markdown text of page ``name`` in ``lang`` (the loader checks that it exists)."""
        return self.pages[lang][name]

    def model(self, slug: str) -> Model:
        """The model with this slug, or UnknownName with the closest slugs."""
        try:
            return self.models[slug]
        except KeyError:
            raise UnknownName("model", slug, self.models) from None

    def hw(self, slug: str) -> Hardware:
        """The hardware entry with this slug, or UnknownName with the closest slugs."""
        try:
            return self.hardware[slug]
        except KeyError:
            raise UnknownName("hardware", slug, self.hardware) from None

    def format(self, name: str) -> QuantFormat:
        """The weight format by name or alias, case-insensitive."""
        fmt = self._formats_by_name.get(name.strip().lower())
        if fmt is None:
            raise UnknownName("format", name, self.formats)
        return fmt

    @functools.cached_property
    def _formats_by_name(self) -> dict[str, QuantFormat]:
        """Every format under its lower-case name and aliases (the first format listed wins a clash)."""
        index: dict[str, QuantFormat] = {}
        for fmt in self.formats.values():
            for key in (fmt.name, *fmt.aliases):
                index.setdefault(key.lower(), fmt)
        return index

    @functools.cached_property
    def derived(self) -> dict[str, Any]:
        """Values other modules compute from this catalog once and keep for its lifetime (the sizing
        model's facts): a frozen catalog never changes under them."""
        return {}

    def kv_dtype(self, name: str) -> KVDtype:
        """The KV-cache dtype by name."""
        try:
            return self.kv_dtypes[name.strip().lower()]
        except KeyError:
            raise UnknownName("KV cache dtype", name, self.kv_dtypes) from None

    def engine(self, name: str) -> EngineProfile:
        """The engine profile by name."""
        try:
            return self.engines[name.strip().lower()]
        except KeyError:
            raise UnknownName("engine", name, self.engines) from None

    def offers_for(self, hardware_slug: str) -> tuple[CloudOffer, ...]:
        """Cloud offers for one accelerator, cheapest per GPU-hour first."""
        return tuple(o for o in self.offers if o.hardware == hardware_slug)

    def api_prices_for(self, model_slug: str) -> tuple[ApiPrice, ...]:
        """Serverless API prices for one model, cheapest output first."""
        return tuple(p for p in self.api_prices if p.model == model_slug)

    def subset(self, models: Iterable[str], hardware: Iterable[str]) -> Catalog:
        """A catalog restricted to some models and hardware (prices and measurements follow)."""
        keep_m = {self.model(m).slug for m in models}
        keep_h = {self.hw(h).slug for h in hardware}
        return dataclasses.replace(
            self,
            models={k: v for k, v in self.models.items() if k in keep_m},
            hardware={k: v for k, v in self.hardware.items() if k in keep_h},
            offers=tuple(o for o in self.offers if o.hardware in keep_h),
            api_prices=tuple(p for p in self.api_prices if p.model in keep_m),
            throughput=tuple(
                r for r in self.throughput if r.hardware in keep_h and (r.model is None or r.model in keep_m)
            ),
            file_sizes=tuple(f for f in self.file_sizes if f.model is None or f.model in keep_m),
            memory_logs=tuple(log for log in self.memory_logs if log.model in keep_m),
        )
