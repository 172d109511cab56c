"""The cells of a pair page's two large tables, formatted once in Python for one language.

Formatting cell by cell in a template loop costs about three times as much: every dotted name and
call goes through Jinja's runtime. The template loops over these tuples (unpacked into plain
variables) and keeps the markup; the formatters are the template's own (render.environment).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from markupsafe import Markup

from generator.content.catalog import Catalog
from generator.site.i18n import NumberFormat, translations
from generator.site.pair_page import PairData
from generator.site.quality import LABEL_TEXT, Quality
from generator.site.render import environment
from generator.sizing.estimate import Estimate, ScenarioError, check_scenario, fill, standard_setup
from generator.sizing.memory import vision_size
from generator.sizing.scenario import Scenario

# Format, quality label, engine, total, decode, verdict badge, fewest devices (a format's weights are
# the same on every accelerator: the model page lists them).
MatrixCells = tuple[str, str, str, str, Markup, Markup, str]
# Context, KV and total (with badge) at 16-bit KV, the same at 8-bit KV.
ContextCells = tuple[str, str, Markup, str, Markup]


def marked_extrapolated(e: Estimate) -> bool:
    """Whether the format matrix shows a decode speed no measurement of its engine on this class of
    device backs (marked with an asterisk and explained under the table)."""
    return e.extrapolated[0] and e.memory.verdict != "oom"


def matrix_cells(p: PairData, lang: str, max_gpus: int, quality: Mapping[str, Quality]) -> list[MatrixCells]:
    """One row per format that runs on this accelerator, with its quality label (— where unmeasured)."""
    g: Mapping[str, Any] = environment(lang).globals
    words = {name: g["_"](LABEL_TEXT[q.label]) for name, q in quality.items()}
    fmt, badge = g["fmt"], g["verdict_badge"]
    more = g["_"]("more than %(n)s", n=max_gpus)
    rows = []
    for r in p.matrix:
        e = r.est
        if e is None:
            continue
        m = e.memory
        rows.append(
            (
                r.fmt.name,
                words.get(r.fmt.name, "—"),
                r.engine.label,
                fmt.bytes(m.total_bytes),
                # A format that does not fit has no speed here (the fewest devices column says what
                # would); an asterisk marks an extrapolated one.
                Markup(fmt.sig(e.speed.decode_tok_s) + ("*" if marked_extrapolated(e) else ""))
                if m.verdict != "oom"
                else Markup("—"),  # unit in the header
                badge(m.verdict),
                fmt.num(e.min_gpus) if e.min_gpus else more,
            )
        )
    return rows


def context_cells(p: PairData, lang: str) -> list[ContextCells]:
    """One row per context step of the page's scenario."""
    g: Mapping[str, Any] = environment(lang).globals
    fmt, badge = g["fmt"], g["verdict_badge"]
    return [
        (
            fmt.tokens(r.context) + ("*" if p.model.extends(r.context) else ""),
            fmt.bytes(r.kv16_bytes),
            Markup("{} {}").format(fmt.bytes(r.total16_bytes), badge(r.verdict16)),
            fmt.bytes(r.kv8_bytes),
            Markup("{} {}").format(fmt.bytes(r.total8_bytes), badge(r.verdict8)),
        )
        for r in p.contexts
    ]


@functools.cache
def describe_templates(lang: str) -> dict[str, str]:
    """The memory table's "what it is" sentences in ``lang`` with ``{name}`` slots: the build fills them
    here (:func:`memory_descriptions`) and the workbench (static/workbench.js) fills the same ones when
    the scenario changes, so both write the same words. Cached per language (every pair page asks):
    callers read it and never change it."""
    tr = translations(lang)
    slots = {k: "{" + k + "}" for k in ("params", "bpw", "ctx", "num", "kv", "engine", "fmt", "vision")}

    def static(n: int) -> str:
        return tr.ngettext(
            "This section is for the page's scenario (%(fmt)s on %(engine)s, %(ctx)s tokens, %(kv)s KV cache, "
            "%(num)s device), not the one chosen above.",
            "This section is for the page's scenario (%(fmt)s on %(engine)s, %(ctx)s tokens, %(kv)s KV cache, "
            "%(num)s devices), not the one chosen above.",
            n,
        )

    def kv(n: int) -> str:
        return tr.ngettext(
            "%(ctx)s tokens × %(num)s sequence in %(kv)s", "%(ctx)s tokens × %(num)s sequences in %(kv)s", n
        )

    return {
        "weights": tr.gettext("%(params)s parameters at %(bpw)s bits per weight on average") % slots,
        # A multimodal model: its vision encoder loaded (in the weights) or left out.
        "weights_vision": tr.gettext(
            "%(params)s parameters at %(bpw)s bits per weight on average, and the vision encoder (%(vision)s, 16-bit)"
        )
        % slots,
        "weights_text": tr.gettext(
            "%(params)s parameters at %(bpw)s bits per weight on average; text only: the vision encoder "
            "(%(vision)s) is not loaded"
        )
        % slots,
        "weights_host_vision": tr.gettext(
            "%(params)s parameters at %(bpw)s bits per weight on average, less what is held in system RAM "
            "(below), and the vision encoder (%(vision)s, 16-bit)"
        )
        % slots,
        "weights_host_text": tr.gettext(
            "%(params)s parameters at %(bpw)s bits per weight on average, less what is held in system RAM "
            "(below); text only: the vision encoder (%(vision)s) is not loaded"
        )
        % slots,
        "weights_host": tr.gettext(
            "%(params)s parameters at %(bpw)s bits per weight on average, less what is held in system RAM (below)"
        )
        % slots,
        # Sequences are at least one: the forms for one and for more.
        # The workbench's note on sections it does not recompute (the page's own scenario).
        "static_one": static(1) % slots,
        "static_many": static(2) % slots,
        "kv_one": kv(1) % slots,
        "kv_many": kv(2) % slots,
        "runtime": tr.gettext("%(engine)s context and compute buffers") % slots,
        "host_both": tr.gettext(
            "Offloaded layers with their KV cache, read over the system bus, and the token-embedding table "
            "%(engine)s keeps in host memory; not counted in the total"
        )
        % slots,
        "host_layers": tr.gettext(
            "Offloaded layers with their KV cache, read over the system bus; not counted in the total"
        ),
        "host_embedding": tr.gettext(
            "The token-embedding table, which %(engine)s keeps in host memory (one row is read per token); not "
            "counted in the total"
        )
        % slots,
    }


def memory_descriptions(p: PairData, lang: str) -> dict[str, str]:
    """What each row of the memory table holds, for the pair's own scenario."""
    e, m, sc = p.est, p.est.memory, p.est.scenario
    fmt = NumberFormat(lang)
    t = describe_templates(lang)
    values = {
        "params": fmt.num(e.params.total),
        "bpw": fmt.num(e.weights.effective_bpw, 2),
        "ctx": fmt.num(sc.context),
        "num": fmt.num(sc.batch),
        "kv": sc.kv.name,
        "engine": sc.engine.label,
        "vision": fmt.bytes(m.vision_bytes or vision_size(e.model, sc.engine)),
    }
    weights = "weights_host" if m.weights_host_bytes else "weights"
    if e.model.vision is not None:
        weights += "_vision" if m.vision_bytes else "_text"
    embedding_on_host = sc.engine.keeps_embeddings_on_host and not e.weights.tied
    host = "host_both" if sc.offload and embedding_on_host else "host_layers" if sc.offload else "host_embedding"
    return {
        "weights": fill(t[weights], values),
        "kv": fill(t["kv_one" if sc.batch == 1 else "kv_many"], values),
        "runtime": fill(t["runtime"], values),
        "host": fill(t[host], values),
    }


@functools.cache
def reason_templates(lang: str) -> dict[str, str]:
    """Why a scenario cannot run (the codes of sizing.estimate.REASONS) in ``lang`` with ``{slot}``s; the
    workbench fills them with the values sizing.js scenarioProblem returns. Cached per language; read-only."""
    tr = translations(lang)
    slots = {k: "{" + k + "}" for k in ("engine", "fmt", "family", "formats", "hw", "kv", "engines", "model")}
    slots |= {k: "{" + k + "}" for k in ("n", "heads", "kv_heads", "backend", "kvs", "arch")}
    return {
        "format": tr.gettext("%(engine)s does not load %(fmt)s (%(family)s); it loads %(formats)s") % slots,
        "hardware": tr.gettext("%(engine)s does not run on %(hw)s") % slots,
        "backend_format": tr.gettext("%(engine)s runs %(formats)s on %(hw)s (%(backend)s), not %(fmt)s") % slots,
        "kv": tr.gettext("%(engine)s has no %(kv)s KV cache (supported by %(engines)s)") % slots,
        "backend_kv": tr.gettext("%(engine)s has no %(kv)s KV cache on %(hw)s (%(backend)s: %(kvs)s)") % slots,
        "moe_only": tr.gettext("%(fmt)s quantizes MoE experts; %(model)s is a dense model") % slots,
        "offload": tr.gettext("%(engine)s does not offload layers to system RAM in this estimate") % slots,
        "vision": tr.gettext("%(engine)s loads only the text model of %(model)s, not its vision encoder") % slots,
        "long_context": tr.gettext(
            "%(engine)s cannot apply %(model)s's YaRN scaling past %(n)s tokens from its command line"
        )
        % slots,
        "split": tr.gettext(
            "%(engine)s cannot split %(model)s over %(n)s devices (%(heads)s attention heads, %(kv_heads)s KV heads)"
        )
        % slots,
        "architecture": tr.gettext(
            "%(engine)s does not run %(model)s: no release of it is known to load %(arch)s models"
        )
        % slots,
    }


def why_not_standard(catalog: Catalog, p: PairData, lang: str) -> str:
    """Why the setup the other pages compare (estimate.standard_setup) cannot run on the pair's card, in
    ``lang`` ("" where it runs: the page then starts from it)."""
    if p.standard is not None:
        return ""
    fmt, engine = standard_setup(catalog, p.model)
    kv = catalog.kv_dtype(engine.default_kv_dtype)
    sc = Scenario(fmt, kv, engine, p.est.scenario.context, gpus=p.hardware.chips)
    try:
        check_scenario(p.model, p.hardware, sc)
    except ScenarioError as exc:
        return fill(reason_templates(lang)[exc.code], exc.values)
    return ""
