"""Bytes of weights per format: the bulk at the format's bits, embeddings/output/norms at theirs."""

from __future__ import annotations

import dataclasses

from generator.content.schema import QuantFormat
from generator.sizing.params import ParamCount


def body_bpw(fmt: QuantFormat) -> float:
    """Bits per weight of the repeating layers' matrices.

    For a block format this is the format's exact figure. For a mix (Q4_K_M…) measured over a
    whole reference file, the embedding and output tensors, stored at their own types, are taken
    out of the file size first, so the figure carries over to models with other vocab shares.
    """
    ref = fmt.reference
    if ref is None:
        return fmt.bits_per_weight
    file_bits = ref.file_gib * 1024**3 * 8
    rest = ref.params - ref.embedding_params - ref.output_params
    return (file_bits - ref.embedding_params * fmt.embedding_bpw - ref.output_params * fmt.output_bpw) / rest


@dataclasses.dataclass(frozen=True)
class WeightBytes:
    """Bytes of weights by role for one model in one format."""

    embedding: int
    output: int
    body: int
    experts: int
    experts_active: int
    small: int
    body_bpw: float
    expert_bpw: float
    params: int
    tied: bool
    # Hashed n-gram embedding tables, stored at the body's bits per weight (Qwen3.8-Flash-Next's FP8
    # checkpoint keeps its table FP8, the BF16 one BF16); a token reads a few rows of them.
    ngram: int = 0

    @property
    def total(self) -> int:
        """All weight bytes held in memory."""
        return self.embedding + self.output + self.body + self.experts + self.small + self.ngram

    @property
    def per_token_read(self) -> int:
        """Bytes read from memory to decode one token at batch 1 (one embedding row, not the table)."""
        head = self.embedding if self.tied else self.output
        return head + self.body + self.experts_active + self.small

    @property
    def per_pass_read(self) -> int:
        """Bytes read by one forward pass over many tokens: every expert is routed to, so all of them
        are read, with the output head (the embedding table is only looked up)."""
        return self.per_token_read - self.experts_active + self.experts

    @property
    def effective_bpw(self) -> float:
        """Average bits per parameter over the whole file."""
        return self.total * 8 / self.params


def weight_bytes(params: ParamCount, fmt: QuantFormat) -> WeightBytes:
    """Bytes of every weight group of ``params`` stored in ``fmt``."""
    bulk = body_bpw(fmt)
    expert = fmt.expert_bpw if fmt.expert_bpw is not None else bulk
    # A tied table is the output matrix too: GGUF stores it at the output type.
    emb_bpw = fmt.embedding_bpw if params.output else fmt.output_bpw

    def b(n: int, bpw: float) -> int:
        return round(n * bpw / 8)

    return WeightBytes(
        embedding=b(params.embedding, emb_bpw),
        output=b(params.output, fmt.output_bpw),
        body=b(params.body, bulk),
        experts=b(params.experts, expert),
        experts_active=b(params.experts_active, expert),
        small=b(params.small, fmt.small_tensor_bpw),
        body_bpw=bulk,
        expert_bpw=expert,
        params=params.total,
        tied=not params.output,
        ngram=b(params.ngram, bulk),
    )
