"""Serving several users at once with the single-user model's per-step time: weights read once per
step, each running sequence's KV cache read, compute-bound past the knee. The engine admits only the
sequences its KV pool holds at the context (vLLM and SGLang queue the rest; llama.cpp has that many
slots), so users past the pool wait: they add no throughput."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from generator.sizing.estimate import Estimate, speed_of
from generator.sizing.memory import largest


@dataclasses.dataclass(frozen=True)
class Load:
    """``users`` asking at once: ``running`` of them decode (the rest queue), each at ``per_user_tok_s``."""

    users: int
    running: int
    per_user_tok_s: float
    aggregate_tok_s: float
    # Renting the scenario's devices at the cheapest offer, per million output tokens at this load.
    usd_per_mtok: float | None

    @property
    def queued(self) -> int:
        """Users waiting for a free slot in the KV pool."""
        return self.users - self.running


@dataclasses.dataclass(frozen=True)
class Serving:
    """A setup (``est``, one sequence) serving many: the most users that each decode at ``floor_tok_s``
    or faster, and what each of ``loads`` gets."""

    est: Estimate
    # The sequences its KV cache holds at the context (0: the setup does not fit).
    pool: int
    floor_tok_s: float
    users_at_floor: int
    at_floor: Load | None
    loads: tuple[Load, ...]


def serving(est: Estimate, floor_tok_s: float, users: Sequence[int]) -> Serving:
    """How ``est``'s setup serves many users at its context (no load when it does not fit)."""
    pool = est.max_batch if est.memory.verdict != "oom" else 0

    def load(n: int) -> Load:
        running = min(n, pool)
        s = speed_of(est, running)
        hourly = est.cost.cloud_usd_per_hour
        usd = hourly / (s.decode_tok_s_aggregate * 3600) * 1e6 if hourly is not None else None
        return Load(n, running, s.decode_tok_s, s.decode_tok_s_aggregate, usd)

    # largest() gives 0 when not even one sequence keeps the floor.
    most = largest(lambda b: speed_of(est, b).decode_tok_s >= floor_tok_s, 1, pool) if pool else 0
    return Serving(
        est=est,
        pool=pool,
        floor_tok_s=floor_tok_s,
        users_at_floor=most,
        at_floor=load(most) if most > 0 else None,
        loads=tuple(load(n) for n in users) if pool else (),
    )
