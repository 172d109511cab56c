"""Parameter counts derived from the architecture, split by how each group is stored and read."""

from __future__ import annotations

import dataclasses

from generator.content.schema import Model
from generator.sizing.layout import Layout, ffn_params, layout, mixer_params


@dataclasses.dataclass(frozen=True)
class ParamCount:
    """Parameters of a model by role (each an exact integer from the config)."""

    embedding: int
    output: int
    attention: int
    dense_ffn: int
    shared_experts: int
    experts: int
    experts_active: int
    small: int
    # Multi-token-prediction layers: in the checkpoint, not loaded (not in ``total``).
    mtp: int = 0
    # Hashed n-gram embedding tables (blocks.NgramEmbedding): held in memory, a few rows read per token.
    ngram: int = 0

    @property
    def total(self) -> int:
        """Every parameter held in memory."""
        return (
            self.embedding
            + self.output
            + self.attention
            + self.dense_ffn
            + self.shared_experts
            + self.experts
            + self.small
            + self.ngram
        )

    @property
    def active(self) -> int:
        """Parameters that take part in one token's forward pass (embedding table included, n-gram tables
        not: a token reads a few of their rows)."""
        return self.total - self.experts + self.experts_active - self.ngram

    @property
    def body(self) -> int:
        """Weight matrices of the repeating layers other than routed experts."""
        return self.attention + self.dense_ffn + self.shared_experts


_COUNTED: dict[int, tuple[Model, ParamCount]] = {}


def count_params(model: Model) -> ParamCount:
    """Parameters of the text model by role, from its architecture (MTP layers excluded).

    Models are immutable; a process counts each one once.
    """
    hit = _COUNTED.get(id(model))
    if hit is not None and hit[0] is model:
        return hit[1]
    counted = _count(model)
    _COUNTED[id(model)] = (model, counted)
    return counted


def _count(model: Model) -> ParamCount:
    a = model.architecture
    h = a.hidden_size
    laid = layout(model)
    attention = small = dense_ffn = shared = experts = experts_active = 0
    for block, n in laid.mixers:
        m, s = mixer_params(block, h)
        attention += n * m
        small += n * s
    small += laid.num_layers * a.norms_per_layer * h
    for ffn, n in laid.ffns:
        f = ffn_params(ffn, h)
        dense_ffn += n * f.dense
        shared += n * f.shared
        experts += n * f.experts
        experts_active += n * f.experts_active
        small += n * f.small
    hc = model.network.hyper_connections
    small += hc_params(model, laid.num_layers)
    ngram = 0
    ng = model.network.ngram
    if ng is not None:
        streams = hc.streams if hc else 1
        width = ng.lookups * ng.width
        for table in ng.tables:
            ngram += table.rows * ng.width
            if ng.kind == "ple":
                # Keys over the streams and a value from the lookups; 3 RMSNorms and a conv over the streams.
                attention += (streams * h + h) * width
                small += 3 * streams * h + streams * h * ng.conv_kernel
            else:
                # Engram: one key per stream and a shared value; a query and a key weight per stream.
                attention += (streams + 1) * h * width
                small += 2 * streams * h
    embedding = a.vocab_size * h
    output = 0 if a.tie_word_embeddings else a.vocab_size * h
    return ParamCount(
        embedding=embedding,
        output=output,
        attention=attention,
        dense_ffn=dense_ffn,
        shared_experts=shared,
        experts=experts,
        experts_active=experts_active,
        small=small,
        mtp=_mtp(model, laid),
        ngram=ngram,
    )


def _gated_residual(streams: int, h: int, rank: int, inject: bool) -> int:
    """Parameters of one gated-residual hyper-connection block (Qwen4ExpTextGatedResidual): a grouped RMSNorm
    over the streams, the low-rank gate down and up, and the block injection (none in the final mixer)."""
    return streams * h + 2 * rank * streams * h + (streams * streams * h if inject else 0)


def hc_params(model: Model, layers: int) -> int:
    """Small parameters of the residual around ``layers`` layers and the end of the network: the final norm,
    or the hyper-connections' blocks per mixer and per FFN and their final collapse (for ``mhc``: the
    mixing function ((2 + n)·n × n·h), its bias and 3 scales, then the head; for ``gated_residual``: its
    blocks, then a mixer in place of the final norm)."""
    h = model.architecture.hidden_size
    hc = model.network.hyper_connections
    if hc is None:
        return h
    if hc.kind == "gated_residual":
        assert hc.rank is not None
        return layers * 2 * _gated_residual(hc.streams, h, hc.rank, True) + _gated_residual(
            hc.streams, h, hc.rank, False
        )
    mix = (2 + hc.streams) * hc.streams
    total = h + layers * 2 * (mix * hc.streams * h + mix + 3)
    if hc.final == "head":
        total += hc.streams * hc.streams * h + hc.streams + 1
    return total


def _mtp(model: Model, laid: Layout) -> int:
    """Parameters of the checkpoint's multi-token-prediction layers: each a decoder layer; each module of
    them the projection of [embedding; hidden] (2h × h), its two input norms and final norm, and its own
    output head where it has one."""
    if not laid.mtp_layers:
        return 0
    h = laid.hidden
    total = 0
    for block, n in laid.mtp_mixers:
        m, s = mixer_params(block, h)
        total += n * (m + s)
    for ffn, n in laid.mtp_ffns:
        f = ffn_params(ffn, h)
        total += n * (f.dense + f.shared + f.experts + f.small)
    per_module = 2 * h * h + 3 * h
    hc = model.network.hyper_connections
    if hc is not None and hc.kind == "gated_residual":
        # The hidden state's norm spans the streams, and a mixer takes the final norm's place (the MTP module
        # of Qwen3.8-Flash-Next); each layer keeps its two gated-residual blocks.
        per_module = 2 * h * h + h + hc_params(model, 0) + hc.streams * h
        total += hc_params(model, laid.mtp_layers) - hc_params(model, 0)
    if laid.mtp_own_head:
        per_module += model.architecture.vocab_size * h
    return total + laid.mtp_layers * model.architecture.norms_per_layer * h + laid.mtp_modules * per_module


def compared_total(model: Model, derived: ParamCount) -> int:
    """The derived count to hold against the declared total: the text model, plus the MTP layers and the
    vision encoder where the declared figure counts them (``params_total_counts``)."""
    total = derived.total
    if "mtp" in model.params_total_counts:
        total += derived.mtp
    if "vision" in model.params_total_counts and model.vision is not None:
        total += model.vision.params
    return total


def declared_mismatch(model: Model, derived: ParamCount) -> float | None:
    """Relative difference between the declared total and the derived one, if a total is declared."""
    if model.params_total is None:
        return None
    return (compared_total(model, derived) - model.params_total) / model.params_total
