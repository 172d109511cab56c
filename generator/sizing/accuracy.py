"""The engine checked against real artifacts: published GGUF file sizes and engines' logged KV buffers."""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Iterable, Mapping, Sequence

from generator.content.schema import EngineProfile, FileSize, KVDtype, MemoryLog, Model, QuantFormat
from generator.sizing.kv import kv_cache
from generator.sizing.params import count_params
from generator.sizing.weights import weight_bytes

MIB = 1024**2
GIB = 1024**3


def file_bytes(row: FileSize) -> float:
    """The published size in bytes (a printed GiB or GB figure converted exactly)."""
    if row.bytes is not None:
        return float(row.bytes)
    if row.gib is not None:
        return row.gib * GIB
    assert row.gb is not None
    return row.gb * 1e9


@dataclasses.dataclass(frozen=True)
class SizeCheck:
    """A real weight file against the engine's weight bytes for the same architecture and format."""

    row: FileSize
    model: Model
    fmt: QuantFormat
    actual: float
    predicted: int

    @property
    def error(self) -> float:
        """(predicted − actual) / actual: positive when the engine overestimates."""
        return (self.predicted - self.actual) / self.actual


def size_checks(
    rows: Iterable[FileSize], models: Mapping[str, Model], formats: Mapping[str, QuantFormat]
) -> list[SizeCheck]:
    """Every file size whose architecture is a catalog model's and whose format the catalog knows."""
    out = []
    for row in rows:
        model = models.get(row.model) if row.model else None
        fmt = formats.get(row.quant)
        if model is None or fmt is None:
            continue
        out.append(SizeCheck(row, model, fmt, file_bytes(row), weight_bytes(count_params(model), fmt).total))
    return out


@dataclasses.dataclass(frozen=True)
class KVCheck:
    """An engine's logged KV buffer against the engine's KV cache for the same context and cache type."""

    log: MemoryLog
    model: Model
    logged: float
    predicted: int

    @property
    def error(self) -> float:
        """(predicted − logged) / logged."""
        return (self.predicted - self.logged) / self.logged


def kv_checks(
    logs: Iterable[MemoryLog],
    models: Mapping[str, Model],
    engines: Mapping[str, EngineProfile],
    kv_dtypes: Mapping[str, KVDtype],
) -> list[KVCheck]:
    """Every memory log of a catalog model, with the attention KV bytes the engine predicts.

    llama.cpp's ``n_ctx`` counts the cells of all sequences together; each sequence gets an equal
    share. Recurrent state is logged apart (``RS buffer``), so only attention layers are compared.
    """
    out = []
    for log in logs:
        model = models[log.model]
        engine = engines[log.engine]
        kv = kv_cache(model, engine, kv_dtypes[log.kv_type].bytes_per_element, log.n_ctx // log.n_seq, log.n_seq)
        out.append(KVCheck(log, model, log.kv_buffer_mib * MIB, kv.attention_bytes))
    return out


def median_abs(errors: Sequence[float]) -> float | None:
    """Median of |error|, or None without data."""
    return statistics.median(abs(e) for e in errors) if errors else None


def worst_abs(errors: Sequence[float]) -> float | None:
    """Largest |error|, or None without data."""
    return max((abs(e) for e in errors), default=None)
