// @ts-check
// Sizewise sizing model for the browser: a line-by-line port of generator/sizing/*.py.
// Same inputs (the JSON a pair page embeds), same outputs (the keys of `estimate --json`):
// bytes are exact integers, floats agree to 1e-9 (a parity test runs both on hundreds of scenarios).
// No dependencies, no DOM: it runs in node and in the browser.

// Types: JSDoc checked by `tsc -p tools/tsconfig.json`. The records are those of
// generator/content/schema.py as generator/site/browser_data.py dumps them (None is null).
/**
 * @typedef {"safetensors" | "gguf" | "mlx"} FormatFamily
 * @typedef {"llama.cpp" | "vllm" | "ollama" | "mlx" | "sglang"} EngineName
 * @typedef {"datacenter_gpu" | "workstation_gpu" | "consumer_gpu" | "apple_unified" | "unified_apu" | "npu"} HardwareKind
 * @typedef {"comfortable" | "tight" | "oom"} Verdict
 * @typedef {"layer" | "tensor" | "none"} Split
 * @typedef {{ model_type: string, num_layers: number, hidden_size: number, vocab_size: number, max_context: number,
 *   tie_word_embeddings: boolean, norms_per_layer: number }} Architecture
 * @typedef {{ kind: "attention", heads: number, kv_heads: number, head_dim: number, v_head_dim: number | null,
 *   window: number | null, k_eq_v: boolean, output_gate: "none" | "element" | "head", qk_norm: boolean,
 *   qk_norm_over: "head" | "projection", bias: boolean,
 *   output_bias: boolean, sinks: boolean, indexer: Indexer | null }} AttentionBlock
 * @typedef {{ heads: number, head_dim: number, top_k: number, pool: number, style: "lightning" | "qsa",
 *   selection: "own" | "shared" }} Indexer a sparse-attention indexer
 * @typedef {{ kind: "mla", heads: number, kv_lora_rank: number, qk_rope_head_dim: number, qk_nope_head_dim: number,
 *   v_head_dim: number, q_lora_rank: number | null, indexer: Indexer | null, output_gate: boolean }} MLABlock
 * @typedef {{ kind: "compressed_mla", heads: number, head_dim: number, rope_dim: number, q_lora_rank: number,
 *   o_lora_rank: number, o_groups: number, window: number, ratio: number, indexer: Indexer | null,
 *   sinks: boolean, cache: "own" | "shared", position_bias: boolean, index_keys: "compressor" | "latent" }} CompressedMLABlock DeepSeek V4's attention: a window and a cache compressed `ratio` tokens to a row
 * @typedef {{ kind: "gated_delta_net", num_key_heads: number, key_head_dim: number, num_value_heads: number,
 *   value_head_dim: number, conv_kernel: number }} GatedDeltaNetBlock
 * @typedef {{ kind: "mamba2", d_inner: number, d_state: number, n_groups: number, d_conv: number,
 *   num_heads: number }} Mamba2Block
 * @typedef {{ kind: "kda", heads: number, head_dim: number, conv_kernel: number,
 *   output_gate: "low_rank" | "full" }} KDABlock
 * @typedef {GatedDeltaNetBlock | Mamba2Block | KDABlock} RecurrentBlock
 * @typedef {AttentionBlock | MLABlock | CompressedMLABlock | RecurrentBlock} Mixer
 * @typedef {{ kind: "dense", intermediate: number, gated: boolean, bias: boolean }} DenseBlock
 * @typedef {{ kind: "moe", experts: number, experts_per_token: number, intermediate: number, gated: boolean,
 *   bias: boolean, shared_experts: number, shared_intermediate: number, shared_gate: boolean, router_bias: boolean,
 *   vision_router_bias: boolean, dense_beside: number, latent: number | null, latent_norm: boolean }} MoEBlock
 * @typedef {DenseBlock | MoEBlock} FFNBlock
 * @typedef {[string | null, string | null]} LayerSpec a layer's [mixer, ffn] block names
 * @typedef {{ repeat: number, unit: LayerSpec[] } | { pattern: string, map: Record<string, LayerSpec> }} Run
 * @typedef {{ layers: LayerSpec[], own_head: boolean, modules: number | null }} MTP
 * @typedef {{ streams: number, kind: "mhc" | "gated_residual", final: "mean" | "head" | "none",
 *   rank: number | null }} HyperConnections
 * @typedef {{ kind: "ple" | "engram", tables: { layer: number, rows: number }[], width: number, lookups: number,
 *   conv_kernel: number, conv_dilation: number }} NgramEmbedding hashed n-gram embedding tables
 * @typedef {{ blocks: Record<string, Mixer | FFNBlock>, layers: Run[], mtp: MTP | null,
 *   hyper_connections: HyperConnections | null, ngram: NgramEmbedding | null }} Network the block list
 *   (generator/content/blocks.py)
 * @typedef {{ hidden: number, num_layers: number, mixers: [Mixer, number][], ffns: [FFNBlock, number][],
 *   attention: [AttentionBlock | MLABlock, number][], recurrent: [RecurrentBlock, number][], moe: [MoEBlock, number][],
 *   compressed: [CompressedMLABlock, number][],
 *   mtp_mixers: [Mixer, number][], mtp_ffns: [FFNBlock, number][], mtp_layers: number, mtp_modules: number,
 *   mtp_own_head: boolean }} Layout distinct blocks with their layer counts (layout.py)
 * @typedef {{ slug: string, hf_id: string, name: string, organization: string, family: string, license: string,
 *   release_date: string, params_total: number | null, params_total_kind: string, params_active: number | null,
 *   params_active_kind: string | null, architecture: Architecture, network: Network, engines: string[] | null,
 *   vision: VisionEncoder | null, long_context: LongContext | null, domain: "general" | "code" }} Model
 * @typedef {{ method: "yarn", factor: number, original_context: number, max_context: number }} LongContext
 * @typedef {{ params: number, mmproj_bytes: number | null }} VisionEncoder encoder and projector of a multimodal model
 * @typedef {{ usd: number, date: string, kind: string }} Price the price of a new unit (Hardware.price in schema.py)
 * @typedef {{ slug: string, name: string, vendor: string, kind: HardwareKind, platform: string, release_date: string,
 *   memory_type: string | null, bandwidth_gbps: number, tflops_bf16: number | null, tflops_fp16: number | null,
 *   tflops_fp8: number | null, tops_int8: number | null, tdp_w: number | null, interconnect: string | null,
 *   link: string, chips: number, gpu_memory_limit_gib: number | null, same_chip_as: string | null,
 *   price: Price | null, bought_as: "card" | "module" | "machine" }
 *   & ({ memory_gib: number, memory_gb: null } | { memory_gib: null, memory_gb: number })} Hardware
 *   exactly one of memory_gib and memory_gb
 * @typedef {{ model: string, params: number, embedding_params: number, output_params: number, file_gib: number,
 *   source: string }} ReferenceFile
 * @typedef {{ name: string, family: FormatFamily, bits_per_weight: number, embedding_bpw: number,
 *   output_bpw: number, small_tensor_bpw: number, expert_bpw: number | null, moe_only: boolean,
 *   reference: ReferenceFile | null }} QuantFormat
 * @typedef {{ name: string, bytes_per_element: number, engines: string[] }} KVDtype
 * @typedef {{ name: string, platforms: string[], hardware: string[], excluded: string[], formats: string[],
 *   kv_dtypes: string[], dtype: string | null }} EngineBackend
 * @typedef {{ name: EngineName, label: string, default_kv_dtype: string, formats: FormatFamily[],
 *   backends: EngineBackend[], memory_utilization: number,
 *   kv_allocation: "shared_pool" | "paged" | "per_seq_steps", context_pad_tokens: number, batch_tokens: number,
 *   runtime_bytes_per_gpu: number, runtime_bytes_extra_gpu: number,
 *   compute_buffer: "logits_ubatch" | "activation_profile" | "none", activation_bytes_dense: number,
 *   activation_bytes_moe: number, state_conv_bytes: number, state_ssm_bytes: number, split: Split,
 *   indexed_mla: { index_key_bytes: number | null, fp8_record_bytes: number | null, block_tokens: number | null } | null,
 *   compressed_mla: { fp8_record_bytes: number | null, index_key_bytes: number | null, block_tokens: number | null,
 *     window_block_tokens: number | null, page_align_bytes: number | null } | null,
 *   pooled_index: { key_bytes_per_element: number } | null, ngram_tables: { host: string[] } | null,
 *   tensor_parallel_efficiency: number, allreduce_latency_s: number,
 *   keeps_embeddings_on_host: boolean, vision: "optional" | "always" | "never", extends_context: boolean }} EngineProfile
 * @typedef {{ verdict_tight_fraction: number, default_context: number, ttft_prompt_tokens: number,
 *   host_ram_bandwidth_gbps: number, electricity_usd_per_kwh: number, electricity_date: string,
 *   hours_per_day: number, days_per_month: number, finetune_seq_len: number, finetune_batch: number,
 *   lora_rank: number, nf4_bits_per_weight: number, adam_bytes_per_param: number,
 *   activation_bytes_per_token_hidden: number, max_gpus: number, reading_words_per_minute: number,
 *   tokens_per_word: number, rigs: RigsFile | null }} Assumptions
 * @typedef {{ usd: number, per: "rig" | "card" | "psu", kind: string }} RigPart
 * @typedef {{ slug: string, name: string, form_factor: "card" | "module", kinds: string[], min_cards: number,
 *   max_cards: number, sold_with: number | null, host_w: number, psu_w: number | null, max_psus: number | null,
 *   parts: RigPart[] }} Rig
 * @typedef {{ psu_headroom: number, circuit_w: number, rigs: Rig[] }} RigsFile
 * @typedef {{ rig: Rig, cards: number, psus: number, usd: number, draw_w: number | null,
 *   circuits: number | null }} RigCost
 * @typedef {{ engine: EngineName, hardware_class: string, bandwidth_efficiency: number,
 *   per_layer_latency_s: number, rows: number, borrowed_from?: EngineName }} DecodeFit
 * @typedef {{ engine: EngineName, hardware_class: string, compute_efficiency: number, rows: number,
 *   borrowed_from?: EngineName }} PrefillFit
 * @typedef {{ engine: EngineName, moe_factor: number, rows: number, borrowed_from?: EngineName }} MoEFit
 * @typedef {{ engine: EngineName, link: string, moe: boolean, allreduce_s: number, rows: number, hardware: number,
 *   borrowed_from?: EngineName | null }} TPFit
 * @typedef {{ hardware: string, tflops: number, rows: number }} ImpliedPeak
 * @typedef {{ decode_fits: DecodeFit[], prefill_fits: PrefillFit[], moe_fits: MoEFit[], tp_fits: TPFit[],
 *   implied_peaks: ImpliedPeak[] }} Calibration
 * @typedef {{ decode: [number, number] | null, prefill: [number, number] | null,
 *   decode_extrapolated: [number, number] | null, prefill_extrapolated: [number, number] | null,
 *   decode_tp: [number, number] | null, decode_tp_extrapolated: [number, number] | null }} Ranges
 *   low and high measured ÷ predicted, out of sample: by hardware entry, and by engine × class for the
 *   speeds no measurement of their engine on that class backs
 * @typedef {{ provider: string, instance: string, hardware: string, gpus: number, usd_per_hour: number,
 *   billing: string, date_seen: string }} CloudOffer
 * @typedef {{ model: string, provider: string, input_usd_per_mtok: number, output_usd_per_mtok: number,
 *   date_seen: string }} ApiPrice
 * @typedef {{ assumptions: Assumptions, calibration: Calibration, ranges: Ranges, offers: CloudOffer[],
 *   api_prices: ApiPrice[] }} Facts
 * @typedef {{ fmt: QuantFormat, engine: EngineProfile, kv: KVDtype, context: number, batch: number,
 *   gpus: number, offload: number, vision: boolean }} Scenario
 * @typedef {{ quant: string, engine?: string, kv_dtype?: string, context: number, batch?: number, gpus?: number,
 *   offload?: number, vision?: boolean }} ScenarioNames the names and numbers of `estimate`'s command line
 * @typedef {{ embedding: number, output: number, attention: number, dense_ffn: number, shared_experts: number,
 *   experts: number, experts_active: number, small: number, ngram: number, total: number, active: number,
 *   body: number }} Params
 * @typedef {{ embedding: number, output: number, body: number, experts: number, experts_active: number,
 *   small: number, body_bpw: number, expert_bpw: number, params: number, tied: boolean, ngram: number,
 *   total: number, per_token_read: number, effective_bpw: number }} Weights bytes, and bits per weight
 * @typedef {{ attention_bytes: number, state_bytes: number, bytes_per_token: number, total: number,
 *   by_block: [number, AttentionBlock | MLABlock | CompressedMLABlock | null][] }} KvCache
 * @typedef {{ bandwidth_efficiency: number, per_layer_latency_s: number, compute_efficiency: number,
 *   allreduce_s: number | null, implied_tflops: number | null }} Constants
 * @typedef {{ kv_bytes: number, state_bytes_per_seq: number, context: number, seqs: number, gpus: number,
 *   split: Split, tp_efficiency: number, allreduce_latency_s: number, batch_tokens: number, offload: number,
 *   host_bandwidth_gbps: number, prompt_tokens: number, cal: Constants }} SpeedInputs
 * @typedef {ReturnType<typeof speed>} Speed
 * @typedef {ReturnType<typeof estimate>} Estimate the keys of `estimate --json`
 */

const GIB = 1024 ** 3;

// Python's round(): halves go to the even neighbour.
/** @param {number} x */
export function pyRound(x) {
  const f = Math.floor(x);
  const diff = x - f;
  if (diff > 0.5) return f + 1;
  if (diff < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

/** @param {Hardware} hw */
export function memoryBytes(hw) {
  return hw.memory_gib != null ? pyRound(hw.memory_gib * GIB) : pyRound(hw.memory_gb * 1e9);
}

/** @param {Hardware} hw */
export function computeTflops(hw) {
  return hw.tflops_bf16 || hw.tflops_fp16 || null;
}

/**
 * Every layer's [mixer, ffn] block names, in order (blocks.py expand).
 * @param {Run[]} layers
 * @returns {LayerSpec[]}
 */
export function expand(layers) {
  /** @type {LayerSpec[]} */
  const out = [];
  for (const run of layers) {
    if ("unit" in run) {
      for (let i = 0; i < run.repeat; i++) out.push(...run.unit);
    } else {
      for (const letter of run.pattern) out.push(run.map[letter]);
    }
  }
  return out;
}

const MIXER_ORDER = { attention: 0, attention_window: 1, mla: 2, gated_delta_net: 3, mamba2: 4, kda: 5, compressed_mla: 6 };

/** @param {Mixer} block */
function mixerRank(block) {
  return block.kind === "attention" && block.window != null ? MIXER_ORDER.attention_window : MIXER_ORDER[block.kind];
}

/**
 * @param {(string | null)[]} names
 * @returns {[string, number][]} each name with its count, in order of first use
 */
function grouped(names) {
  /** @type {Map<string, number>} */
  const counts = new Map();
  for (const n of names) if (n != null) counts.set(n, (counts.get(n) || 0) + 1);
  return [...counts.entries()];
}

/** @type {WeakMap<Model, Layout>} */
const LAID_OUT = new WeakMap();

/**
 * The model's layers grouped by block (layout.py layout), computed once per model.
 * @param {Model} model
 * @returns {Layout}
 */
export function layout(model) {
  const hit = LAID_OUT.get(model);
  if (hit) return hit;
  const net = model.network;
  const specs = expand(net.layers);
  /** @param {(string | null)[]} names */
  const mixers = (names) => {
    const found = grouped(names).map(([n, c]) => /** @type {[Mixer, number]} */ ([net.blocks[n], c]));
    const order = found.map((_, i) => i).sort((i, j) => mixerRank(found[i][0]) - mixerRank(found[j][0]) || i - j);
    return order.map((i) => found[i]);
  };
  /** @param {(string | null)[]} names */
  const ffns = (names) => grouped(names).map(([n, c]) => /** @type {[FFNBlock, number]} */ ([net.blocks[n], c]));
  const mtp = net.mtp ? net.mtp.layers : [];
  const m = mixers(specs.map((s) => s[0]));
  const f = ffns(specs.map((s) => s[1]));
  const laid = {
    hidden: model.architecture.hidden_size, num_layers: specs.length, mixers: m, ffns: f,
    attention: /** @type {[AttentionBlock | MLABlock, number][]} */ (m.filter(([b]) => b.kind === "attention" || b.kind === "mla")),
    recurrent: /** @type {[RecurrentBlock, number][]} */ (m.filter(([b]) => b.kind === "gated_delta_net" || b.kind === "mamba2" || b.kind === "kda")),
    moe: /** @type {[MoEBlock, number][]} */ (f.filter(([b]) => b.kind === "moe")),
    compressed: /** @type {[CompressedMLABlock, number][]} */ (m.filter(([b]) => b.kind === "compressed_mla")),
    mtp_mixers: mixers(mtp.map((s) => s[0])), mtp_ffns: ffns(mtp.map((s) => s[1])), mtp_layers: mtp.length,
    mtp_modules: net.mtp ? net.mtp.modules || mtp.length : 0, mtp_own_head: Boolean(net.mtp && net.mtp.own_head),
  };
  LAID_OUT.set(model, laid);
  return laid;
}

/**
 * Whether any layer routes to experts.
 * @param {Model} model
 */
export function isMoe(model) {
  return layout(model).moe.length > 0;
}

/** @param {AttentionBlock} b */
function valueDim(b) {
  return b.v_head_dim || b.head_dim;
}

// ---- layout.py: parameters ----
/**
 * (matrix params, small params) of one layer's mixer.
 * @param {Mixer} b
 * @param {number} h
 * @returns {[number, number]}
 */
export function mixerParams(b, h) {
  if (b.kind === "attention") {
    const qOut = b.heads * b.head_dim;
    const kOut = b.kv_heads * b.head_dim;
    const vOut = b.k_eq_v ? 0 : b.kv_heads * valueDim(b);
    const oIn = b.heads * valueDim(b);
    const gate = { none: 0, element: oIn, head: b.heads }[b.output_gate];
    const matrices = h * (qOut + gate + kOut + vOut) + oIn * h;
    let small = 0;
    if (b.bias) small += qOut + gate + kOut + vOut;
    if (b.qk_norm) small += b.qk_norm_over === "projection" ? qOut + kOut : 2 * b.head_dim;
    if (b.output_bias) small += h;
    if (b.sinks) small += b.heads;
    const ix = b.indexer;
    if (ix) return [matrices + h * (ix.heads + 1) * ix.head_dim, small + 2 * ix.head_dim];
    return [matrices, small];
  }
  if (b.kind === "mla") {
    const qk = b.qk_nope_head_dim + b.qk_rope_head_dim;
    let small = 0;
    let q;
    if (b.q_lora_rank) {
      q = h * b.q_lora_rank + b.q_lora_rank * b.heads * qk;
      small += b.q_lora_rank;
    } else {
      q = h * b.heads * qk;
    }
    const kv = h * (b.kv_lora_rank + b.qk_rope_head_dim) + b.kv_lora_rank * b.heads * (b.qk_nope_head_dim + b.v_head_dim);
    small += b.kv_lora_rank;
    let matrices = q + kv + b.heads * b.v_head_dim * h + (b.output_gate ? h * b.heads * b.v_head_dim : 0);
    const ix = b.indexer;
    if (ix) {
      matrices += (b.q_lora_rank || h) * ix.heads * ix.head_dim + h * ix.head_dim + h * ix.heads;
      small += 2 * ix.head_dim;
      if (ix.pool > 1) {
        matrices += h * ix.head_dim;
        small += ix.pool * ix.head_dim;
      }
    }
    return [matrices, small];
  }
  if (b.kind === "compressed_mla") return compressedMlaParams(b, h);
  if (b.kind === "kda") {
    const p = b.heads * b.head_dim;
    const gate = b.output_gate === "full" ? h * p : h * b.head_dim + b.head_dim * p;
    const matrices = 3 * h * p + h * b.head_dim + b.head_dim * p + h * b.heads + p * h + gate;
    return [matrices, 3 * p * b.conv_kernel + b.heads + p + b.head_dim];
  }
  if (b.kind === "gated_delta_net") {
    const k = b.num_key_heads * b.key_head_dim;
    const v = b.num_value_heads * b.value_head_dim;
    const matrices = h * (2 * k + 2 * v) + h * 2 * b.num_value_heads + v * h;
    const small = (2 * k + v) * b.conv_kernel + 2 * b.num_value_heads + b.value_head_dim;
    return [matrices, small];
  }
  const convDim = b.d_inner + 2 * b.n_groups * b.d_state;
  const matrices = h * (2 * b.d_inner + 2 * b.n_groups * b.d_state + b.num_heads) + b.d_inner * h;
  return [matrices, convDim * b.d_conv + convDim + 3 * b.num_heads + b.d_inner];
}

/** @param {number} ratio */
function compressorOverlap(ratio) {
  return ratio === 4 ? 2 : 1;
}

/**
 * (matrix, small) params of a DeepSeek V4 attention layer (layout.py _compressed_mla_params).
 * @param {CompressedMLABlock} b
 * @param {number} h
 * @returns {[number, number]}
 */
function compressedMlaParams(b, h) {
  const headsWidth = b.heads * b.head_dim;
  let matrices = h * b.q_lora_rank + b.q_lora_rank * headsWidth + h * b.head_dim;
  matrices += Math.floor(headsWidth / b.o_groups) * (b.o_groups * b.o_lora_rank) + b.o_groups * b.o_lora_rank * h;
  let small = b.q_lora_rank + b.head_dim + (b.sinks ? b.heads : 0);
  const own = b.cache === "own";
  if (b.ratio && own) {
    const coff = compressorOverlap(b.ratio);
    matrices += (b.ratio > 1 ? 2 : 1) * coff * b.head_dim * h;
    small += (b.position_bias ? b.ratio * coff * b.head_dim : 0) + b.head_dim;
  }
  const ix = b.indexer;
  if (ix) {
    if (ix.selection === "own") matrices += b.q_lora_rank * ix.heads * ix.head_dim + h * ix.heads;
    if (own && b.index_keys === "compressor") {
      matrices += 2 * 2 * ix.head_dim * h;
      small += b.ratio * 2 * ix.head_dim + ix.head_dim;
    } else if (own) {
      matrices += b.head_dim * ix.head_dim;
      small += ix.head_dim;
    }
  }
  return [matrices, small];
}

/**
 * @param {number} hidden
 * @param {number} inter
 * @param {boolean} gated
 * @param {boolean} bias
 * @returns {[number, number]}
 */
function ffn(hidden, inter, gated, bias) {
  const matrices = (gated ? 3 : 2) * hidden * inter;
  const small = bias ? (gated ? 2 : 1) * inter + hidden : 0;
  return [matrices, small];
}

/**
 * One layer's FFN parameters by role (layout.py ffn_params).
 * @param {FFNBlock} b
 * @param {number} h
 */
export function ffnParams(b, h) {
  if (b.kind === "dense") {
    const [m, s] = ffn(h, b.intermediate, b.gated, b.bias);
    return { dense: m, shared: 0, experts: 0, experts_active: 0, small: s };
  }
  const [oneM, oneS] = ffn(b.latent || h, b.intermediate, b.gated, b.bias);
  let small = b.experts * oneS + h * b.experts + b.experts * ((b.router_bias ? 1 : 0) + (b.vision_router_bias ? 1 : 0));
  let shared = 0;
  if (b.shared_intermediate) {
    const [m, s] = ffn(h, b.shared_intermediate, b.gated, b.bias);
    shared += m;
    small += s + (b.shared_gate ? h : 0);
  }
  let dense = 0;
  if (b.dense_beside) {
    const [m, s] = ffn(h, b.dense_beside, b.gated, b.bias);
    dense = m;
    small += s;
  }
  if (b.latent) {
    shared += 2 * h * b.latent;
    if (b.latent_norm) small += b.latent;
  }
  return { dense, shared, experts: b.experts * oneM, experts_active: b.experts_per_token * oneM, small };
}

/**
 * @param {Model} model
 * @returns {Params}
 */
export function countParams(model) {
  const a = model.architecture;
  const h = a.hidden_size;
  const laid = layout(model);
  let attention = 0, small = 0, denseFfn = 0, shared = 0, experts = 0, expertsActive = 0;
  for (const [block, n] of laid.mixers) {
    const [m, s] = mixerParams(block, h);
    attention += n * m;
    small += n * s;
  }
  small += laid.num_layers * a.norms_per_layer * h;
  for (const [block, n] of laid.ffns) {
    const f = ffnParams(block, h);
    denseFfn += n * f.dense;
    shared += n * f.shared;
    experts += n * f.experts;
    expertsActive += n * f.experts_active;
    small += n * f.small;
  }
  const hc = model.network.hyper_connections;
  small += hcParams(model, laid.num_layers);
  let ngram = 0;
  const ng = model.network.ngram;
  if (ng) {
    const streams = hc ? hc.streams : 1;
    const width = ng.lookups * ng.width;
    for (const table of ng.tables) {
      ngram += table.rows * ng.width;
      if (ng.kind === "ple") {
        attention += (streams * h + h) * width;
        small += 3 * streams * h + streams * h * ng.conv_kernel;
      } else {
        attention += (streams + 1) * h * width;
        small += 2 * streams * h;
      }
    }
  }
  const embedding = a.vocab_size * h;
  const output = a.tie_word_embeddings ? 0 : a.vocab_size * h;
  const p = /** @type {Params} */ ({ embedding, output, attention, dense_ffn: denseFfn, shared_experts: shared, experts,
    experts_active: expertsActive, small, ngram });
  p.total = embedding + output + attention + denseFfn + shared + experts + small + ngram;
  p.active = p.total - experts + expertsActive - ngram;
  p.body = attention + denseFfn + shared;
  return p;
}

/**
 * Parameters of one gated-residual hyper-connection block (params.py _gated_residual).
 * @param {number} streams
 * @param {number} h
 * @param {number} rank
 * @param {boolean} inject
 */
function gatedResidual(streams, h, rank, inject) {
  return streams * h + 2 * rank * streams * h + (inject ? streams * streams * h : 0);
}

/**
 * Small parameters of the residual around `layers` layers and its end (params.py hc_params).
 * @param {Model} model
 * @param {number} layers
 */
function hcParams(model, layers) {
  const h = model.architecture.hidden_size;
  const hc = model.network.hyper_connections;
  if (!hc) return h;
  if (hc.kind === "gated_residual") {
    const rank = /** @type {number} */ (hc.rank);
    return layers * 2 * gatedResidual(hc.streams, h, rank, true) + gatedResidual(hc.streams, h, rank, false);
  }
  const mix = (2 + hc.streams) * hc.streams;
  let total = h + layers * 2 * (mix * hc.streams * h + mix + 3);
  if (hc.final === "head") total += hc.streams * hc.streams * h + hc.streams + 1;
  return total;
}

/** @param {Params} p */
function matmulParams(p) {
  const head = p.output ? p.output : p.embedding;
  return p.active - p.embedding - p.output + head;
}

// ---- weights.py ----
/** @param {QuantFormat} fmt */
export function bodyBpw(fmt) {
  const ref = fmt.reference;
  if (!ref) return fmt.bits_per_weight;
  const fileBits = ref.file_gib * 1024 ** 3 * 8;
  const rest = ref.params - ref.embedding_params - ref.output_params;
  return (fileBits - ref.embedding_params * fmt.embedding_bpw - ref.output_params * fmt.output_bpw) / rest;
}

/**
 * @param {Params} p
 * @param {QuantFormat} fmt
 * @returns {Weights}
 */
export function weightBytes(p, fmt) {
  const bulk = bodyBpw(fmt);
  const expert = fmt.expert_bpw != null ? fmt.expert_bpw : bulk;
  const embBpw = p.output ? fmt.embedding_bpw : fmt.output_bpw;
  /** @type {(n: number, bpw: number) => number} */
  const b = (n, bpw) => pyRound(n * bpw / 8);
  const w = /** @type {Weights} */ ({
    embedding: b(p.embedding, embBpw), output: b(p.output, fmt.output_bpw), body: b(p.body, bulk),
    experts: b(p.experts, expert), experts_active: b(p.experts_active, expert), small: b(p.small, fmt.small_tensor_bpw),
    body_bpw: bulk, expert_bpw: expert, params: p.total, tied: !p.output, ngram: b(p.ngram, bulk),
  });
  w.total = w.embedding + w.output + w.body + w.experts + w.small + w.ngram;
  w.per_token_read = (w.tied ? w.embedding : w.output) + w.body + w.experts_active + w.small;
  w.effective_bpw = w.total * 8 / w.params;
  return w;
}

// ---- kv.py ----
/**
 * Elements of KV cache one token takes in one layer of `block` (layout.py kv_elements_per_token).
 * @param {AttentionBlock | MLABlock} block
 */
function kvElementsPerToken(block) {
  if (block.kind === "mla") return block.kv_lora_rank + block.qk_rope_head_dim;
  return block.kv_heads * (block.head_dim + valueDim(block));
}

/**
 * Bytes of one token's sparse-attention index key in one layer (layout.py index_key_bytes).
 * @param {AttentionBlock | MLABlock} block
 * @param {number} kvBytes
 * @param {EngineProfile | null} engine
 */
function indexKeyBytes(block, kvBytes, engine) {
  if (!block.indexer) return 0.0;
  if (block.kind === "attention") {
    const ix = block.indexer;
    const pooled = engine ? engine.pooled_index : null;
    return pooled ? ix.head_dim * pooled.key_bytes_per_element / ix.pool : ix.head_dim * kvBytes;
  }
  const record = engine && engine.indexed_mla ? engine.indexed_mla.index_key_bytes : null;
  const elements = block.indexer.head_dim * (block.indexer.pool > 1 ? 2 : 1);
  return record != null ? record : elements * kvBytes;
}

/**
 * The engine's own latent record of an indexed MLA layer with an 8-bit cache, or null (layout.py latent_record_bytes).
 * @param {AttentionBlock | MLABlock} block
 * @param {number} kvBytes
 * @param {EngineProfile | null} engine
 */
function latentRecordBytes(block, kvBytes, engine) {
  if (block.kind !== "mla" || !block.indexer || kvBytes !== 1 || !engine) return null;
  const ix = engine.indexed_mla;
  return ix && ix.fp8_record_bytes ? ix.fp8_record_bytes : null;
}

/**
 * Bytes of KV cache one token takes in one layer of `block`, with a sparse layer's index key, in the engine's
 * own records where it has them (kv.py kv_bytes_per_token_layer).
 * @param {AttentionBlock | MLABlock} block
 * @param {number} kvBytes
 * @param {EngineProfile | null} [engine]
 */
export function kvBytesPerTokenLayer(block, kvBytes, engine = null) {
  const record = latentRecordBytes(block, kvBytes, engine);
  const latent = record != null ? record : kvElementsPerToken(block) * kvBytes;
  const index = indexKeyBytes(block, kvBytes, engine);
  return index ? latent + index : latent;
}

/**
 * How many cached tokens a sparse-attention layer reads per query (null: all in reach).
 * @param {AttentionBlock | MLABlock} block
 */
function sparseTopK(block) {
  return block.indexer ? block.indexer.top_k : null;
}

/** @param {AttentionBlock | MLABlock} block */
function indexWidth(block) {
  const ix = block.indexer;
  if (!ix) return 0;
  return Math.floor(ix.heads * ix.head_dim / (ix.style === "qsa" ? ix.pool : 1));
}

/**
 * @param {RecurrentBlock} b
 * @param {EngineProfile} engine
 */
export function stateBytesPerSeqLayer(b, engine) {
  if (b.kind === "kda") {
    const conv = 3 * b.heads * b.head_dim * (b.conv_kernel - 1);
    return conv * engine.state_conv_bytes + b.heads * b.head_dim * b.head_dim * engine.state_ssm_bytes;
  }
  if (b.kind === "gated_delta_net") {
    const conv = (2 * b.num_key_heads * b.key_head_dim + b.num_value_heads * b.value_head_dim) * (b.conv_kernel - 1);
    const ssm = b.num_value_heads * b.value_head_dim * b.key_head_dim;
    return conv * engine.state_conv_bytes + ssm * engine.state_ssm_bytes;
  }
  const conv = (b.d_conv - 1) * (b.d_inner + 2 * b.n_groups * b.d_state);
  return conv * engine.state_conv_bytes + b.d_state * b.d_inner * engine.state_ssm_bytes;
}

/**
 * @param {Model} model
 * @param {EngineProfile} engine
 */
function stateBytesPerSeq(model, engine) {
  const laid = layout(model);
  let total = 0;
  for (const [b, n] of laid.recurrent) total += n * stateBytesPerSeqLayer(b, engine);
  for (const [b, n] of laid.compressed) total += n * compressedStateBytes(b, engine);
  return total + ngramStateBytes(model, engine);
}

/**
 * Bytes of state one sequence holds for the n-gram tables' convolutions (kv.py ngram_state_bytes).
 * @param {Model} model
 * @param {EngineProfile} engine
 */
function ngramStateBytes(model, engine) {
  const ng = model.network.ngram;
  if (!ng || !ng.conv_kernel) return 0.0;
  const hc = model.network.hyper_connections;
  const width = (hc ? hc.streams : 1) * model.architecture.hidden_size;
  return ng.tables.length * (ng.conv_kernel - 1) * ng.conv_dilation * width * engine.state_conv_bytes;
}

/**
 * Bytes of compressor state one sequence holds in one DeepSeek V4 layer (layout.py compressed_state_bytes).
 * @param {CompressedMLABlock} b
 * @param {EngineProfile} engine
 */
function compressedStateBytes(b, engine) {
  if (b.ratio <= 1 || b.cache !== "own") return 0.0;
  const coff = compressorOverlap(b.ratio);
  let rows = 2 * (coff * b.ratio) * (coff * b.head_dim);
  if (b.indexer && b.index_keys === "compressor") rows += 2 * (2 * b.ratio) * (2 * b.indexer.head_dim);
  return rows * engine.state_ssm_bytes;
}

/**
 * @param {number} a
 * @param {number} b
 */
function ceilDiv(a, b) {
  return -Math.floor(-a / b);
}

/**
 * Bytes of `tokens` tokens in pages of `block` tokens holding `rowsPerPage` rows, each page rounded up (kv.py _paged).
 * @param {number} tokens
 * @param {number} rowsPerPage
 * @param {number} block
 * @param {number} row
 * @param {number | null} align
 */
function paged(tokens, rowsPerPage, block, row, align) {
  let page = rowsPerPage * row;
  if (align) page = -Math.floor(-page / align) * align;
  return ceilDiv(tokens, block) * page;
}

/**
 * Bytes one DeepSeek V4 layer caches (kv.py compressed_cache).
 * @param {CompressedMLABlock} b
 * @param {EngineProfile} engine
 * @param {number} kvBytes
 * @param {number} context
 * @param {number} seqs
 */
function compressedCache(b, engine, kvBytes, context, seqs) {
  const rec = engine.compressed_mla;
  const record = rec && rec.fp8_record_bytes && kvBytes === 1 ? rec.fp8_record_bytes : null;
  const row = record != null ? record : b.head_dim * kvBytes;
  const ratio = b.cache === "own" ? b.ratio : 0;
  let indexRow = 0.0;
  if (b.indexer && ratio) indexRow = rec && rec.index_key_bytes ? rec.index_key_bytes : b.indexer.head_dim * kvBytes;
  const unit = engine.context_pad_tokens;
  if (rec && rec.block_tokens && rec.window_block_tokens) {
    const wb = rec.window_block_tokens, cb = rec.block_tokens, align = rec.page_align_bytes;
    const windowTokens = Math.min(b.window - 1 + engine.batch_tokens, context);
    let total = seqs * paged(padUp(windowTokens, wb) + wb, wb, wb, row, align);
    if (ratio) {
      const perPage = Math.floor(cb / ratio);
      total += seqs * paged(context, perPage, cb, row, align);
      if (indexRow) total += seqs * paged(context, perPage, cb, indexRow, align);
    }
    return total;
  }
  let total;
  if (engine.kv_allocation === "shared_pool") {
    total = padUp(Math.min(context * seqs, b.window * seqs + engine.batch_tokens), unit) * row;
  } else {
    total = seqs * Math.min(padUp(context, unit), b.window) * row;
  }
  if (ratio) {
    const entries = seqs * padUp(ceilDiv(context, ratio), unit);
    total += entries * (row + indexRow);
  }
  return total;
}

/**
 * @param {number} n
 * @param {number} unit
 */
function padUp(n, unit) {
  return -Math.floor(-n / unit) * unit;
}

/**
 * @param {number | null} window
 * @param {EngineProfile} engine
 * @param {number} context
 * @param {number} seqs
 * @param {number | null} [page] the kernels' own page size, where they need one
 */
export function cachedTokens(window, engine, context, seqs, page = null) {
  const unit = page || engine.context_pad_tokens;
  const pool = engine.kv_allocation;
  if (window == null) {
    return pool === "shared_pool" ? padUp(context * seqs, unit) : seqs * padUp(context, unit);
  }
  if (pool === "shared_pool") return padUp(Math.min(context * seqs, window * seqs + engine.batch_tokens), unit);
  if (pool === "paged") return seqs * (padUp(Math.min(window - 1 + engine.batch_tokens, context), unit) + unit);
  return seqs * Math.min(padUp(context, unit), window);
}

/** @param {AttentionBlock | MLABlock} b */
function windowOf(b) {
  return b.kind === "attention" ? b.window : null;
}

/**
 * @param {AttentionBlock | MLABlock} b
 * @param {EngineProfile} engine
 */
function pageOf(b, engine) {
  const ix = engine.indexed_mla;
  return ix && b.kind === "mla" && b.indexer ? ix.block_tokens : null;
}

/**
 * @param {Model} model
 * @param {EngineProfile} engine
 * @param {number} kvBytes
 * @param {number} context
 * @param {number} seqs
 * @returns {KvCache}
 */
export function kvCache(model, engine, kvBytes, context, seqs) {
  const laid = layout(model);
  let attention = 0.0;
  let perToken = 0.0;
  /** @type {[number, AttentionBlock | MLABlock | CompressedMLABlock | null][]} */
  const byBlock = [];
  for (const [block, n] of laid.attention) {
    const perLayer = kvBytesPerTokenLayer(block, kvBytes, engine);
    const window = windowOf(block);
    const nbytes = n * perLayer * cachedTokens(window, engine, context, seqs, pageOf(block, engine));
    attention += nbytes;
    if (block.kind === "attention" && block.indexer) {
      const index = n * indexKeyBytes(block, kvBytes, engine) * cachedTokens(window, engine, context, seqs);
      byBlock.push([nbytes - index, block], [index, null]);
    } else {
      byBlock.push([nbytes, block]);
    }
    perToken += perLayer * n;
  }
  for (const [block, n] of laid.compressed) {
    const nbytes = n * compressedCache(block, engine, kvBytes, context, seqs);
    attention += nbytes;
    byBlock.push([nbytes, block]);
    if (block.ratio && block.cache === "own") {
      const index = block.indexer ? block.indexer.head_dim * kvBytes : 0.0;
      perToken += n * (block.head_dim * kvBytes + index) / block.ratio;
    }
  }
  let state = 0.0;
  for (const [block, n] of laid.recurrent) state += n * seqs * stateBytesPerSeqLayer(block, engine);
  for (const [block, n] of laid.compressed) state += n * seqs * compressedStateBytes(block, engine);
  state += seqs * ngramStateBytes(model, engine);
  const kv = /** @type {KvCache} */ ({ attention_bytes: Math.ceil(attention), state_bytes: Math.ceil(state),
    bytes_per_token: perToken, by_block: byBlock });
  kv.total = kv.attention_bytes + kv.state_bytes;
  return kv;
}

/**
 * The share of a layer's KV cache one of `gpus` tensor-parallel ranks holds (layout.py kv_split_share).
 * @param {AttentionBlock | MLABlock | CompressedMLABlock} block
 * @param {number} gpus
 */
function kvSplitShare(block, gpus) {
  return block.kind === "attention" ? 1 / Math.min(gpus, block.kv_heads) : 1.0;
}

/**
 * Attention cache bytes one of `gpus` tensor-parallel ranks holds, of the `kept` fraction (kv.py per_rank_attention).
 * @param {KvCache} kv
 * @param {number} gpus
 * @param {number} kept
 */
function perRankAttention(kv, gpus, kept) {
  /** @type {Map<number, number>} */
  const shares = new Map();
  for (const [nbytes, block] of kv.by_block) {
    const share = block === null ? 1.0 : kvSplitShare(block, gpus);
    shares.set(share, (shares.get(share) || 0.0) + nbytes);
  }
  if (shares.size === 1) {
    const [share] = shares.keys();
    return kv.attention_bytes * kept * share;
  }
  let total = 0;
  for (const [share, nbytes] of shares) total += Math.ceil(nbytes) * kept * share;
  return total;
}

/**
 * @param {Model} model
 * @param {number} kvBytes
 * @param {number} context
 * @param {number} stateBytes
 */
function kvReadPerToken(model, kvBytes, context, stateBytes) {
  let read = 0.0;
  for (const [block, n] of layout(model).attention) {
    const w = windowOf(block);
    const topK = sparseTopK(block);
    if (topK != null) {
      const latent = kvElementsPerToken(block) * kvBytes;
      let index = indexKeyBytes(block, kvBytes, null);
      if (block.kind === "attention" && block.indexer) index /= block.indexer.pool;
      read += n * (latent * Math.min(context, topK) + index * context);
      continue;
    }
    read += kvBytesPerTokenLayer(block, kvBytes) * n * (w == null ? context : Math.min(context, w));
  }
  for (const [b, n] of layout(model).compressed) {
    const row = b.head_dim * kvBytes;
    read += n * row * Math.min(context, b.window);
    if (b.ratio) {
      const entries = ceilDiv(context, b.ratio);
      const ix = b.indexer;
      if (ix) {
        const scored = ix.selection === "own" ? ix.head_dim * kvBytes * entries : 0.0;
        read += n * (row * Math.min(entries, ix.top_k) + scored);
      } else {
        read += n * row * entries;
      }
    }
  }
  return read + stateBytes;
}

// ---- memory.py ----
const UNIFIED = new Set(["apple_unified", "unified_apu"]);

/**
 * @param {Hardware} hw
 * @param {EngineProfile} engine
 */
export function usableBytesPerGpu(hw, engine) {
  let total = memoryBytes(hw);
  if (UNIFIED.has(hw.kind) && hw.gpu_memory_limit_gib) total = pyRound(hw.gpu_memory_limit_gib * 1024 ** 3);
  return Math.floor(total * engine.memory_utilization);
}

/**
 * Whether tensor parallelism over `gpus` ranks can split this mixer's heads evenly (layout.py tp_divides).
 * @param {Mixer} b
 * @param {number} gpus
 */
function tpDivides(b, gpus) {
  if (b.kind === "attention") {
    const kv = b.kv_heads;
    return b.heads % gpus === 0 && (gpus <= kv ? kv % gpus === 0 : gpus % kv === 0);
  }
  if (b.kind === "mla" || b.kind === "compressed_mla") return b.heads % gpus === 0;
  if (b.kind === "gated_delta_net") return b.num_key_heads % gpus === 0 && b.num_value_heads % gpus === 0;
  if (b.kind === "kda") return b.heads % gpus === 0;
  return b.num_heads % gpus === 0 && (b.n_groups % gpus === 0 || gpus % b.n_groups === 0);
}

/**
 * (heads, KV heads) of the first mixer that keeps `gpus` devices from splitting the model, or null (memory.py
 * split_blocker).
 * @param {Model} model
 * @param {EngineProfile} engine
 * @param {number} gpus
 * @returns {[number, number] | null}
 */
export function splitBlocker(model, engine, gpus) {
  if (gpus === 1) return null;
  if (engine.split === "layer" && gpus <= model.architecture.num_layers) return null;
  for (const [b] of layout(model).mixers) {
    if (engine.split === "tensor" && tpDivides(b, gpus)) continue;
    if (b.kind === "attention") return [b.heads, b.kv_heads];
    if (b.kind === "mla" || b.kind === "kda" || b.kind === "compressed_mla") return [b.heads, b.heads];
    if (b.kind === "gated_delta_net") return [b.num_value_heads, b.num_key_heads];
    return [b.num_heads, b.n_groups];
  }
  return engine.split !== "tensor" ? [0, 0] : null;
}

/**
 * @param {Model} model
 * @param {EngineProfile} engine
 * @param {number} gpus
 */
export function tpValid(model, engine, gpus) {
  return splitBlocker(model, engine, gpus) === null;
}

/**
 * @param {Model} model
 * @param {EngineProfile} engine
 * @param {number} gpus
 * @param {number} seqs
 */
function runtimeBytesPerGpu(model, engine, gpus, seqs) {
  const a = model.architecture;
  const fixed = engine.runtime_bytes_per_gpu + (gpus > 1 ? engine.runtime_bytes_extra_gpu : 0);
  let buffer = 0;
  if (engine.compute_buffer === "logits_ubatch") {
    buffer = engine.batch_tokens * (a.hidden_size + a.vocab_size) * 4 + a.vocab_size * 4 * seqs;
  } else if (engine.compute_buffer === "activation_profile") {
    buffer = isMoe(model) ? engine.activation_bytes_moe : engine.activation_bytes_dense;
  }
  return fixed + buffer;
}

/**
 * @param {number} perGpu
 * @param {number} usablePerGpu
 * @param {number} tightFraction
 * @returns {Verdict}
 */
export function verdictFor(perGpu, usablePerGpu, tightFraction) {
  if (perGpu > usablePerGpu) return "oom";
  return perGpu <= tightFraction * usablePerGpu ? "comfortable" : "tight";
}

/**
 * Bytes of a multimodal model's vision encoder and projector in 16-bit as the engine would load them: the F16
 * mmproj file for GGUF engines where its size is known, else 2 bytes per parameter; 0 for a text model.
 * @param {Model} model
 * @param {EngineProfile} engine
 */
export function visionSize(model, engine) {
  const v = model.vision;
  if (!v) return 0;
  if (v.mmproj_bytes != null && engine.formats.includes("gguf")) return v.mmproj_bytes;
  return 2 * v.params;
}

/**
 * The vision encoder's bytes when the scenario's engine loads it (always, on request, or never).
 * @param {Model} model
 * @param {Scenario} sc
 */
export function visionBytes(model, sc) {
  const mode = sc.engine.vision;
  if (mode === "never" || (mode === "optional" && !sc.vision)) return 0;
  return visionSize(model, sc.engine);
}

/**
 * @param {Model} model
 * @param {Weights} weights
 * @param {Hardware} hw
 * @param {Scenario} sc
 * @param {number} tightFraction
 * @param {number} [context] the scenario's by default
 * @param {number} [seqs] the scenario's batch by default
 */
export function memory(model, weights, hw, sc, tightFraction, context, seqs) {
  const ctx = context == null ? sc.context : context;
  const nSeq = seqs == null ? sc.batch : seqs;
  const engine = sc.engine;
  const g = sc.gpus;
  const kv = kvCache(model, engine, sc.kv.bytes_per_element, ctx, nSeq);
  const layered = weights.body + weights.experts + weights.small;
  let hostWeights = pyRound(layered * sc.offload);
  if (engine.keeps_embeddings_on_host && !weights.tied) hostWeights += weights.embedding;
  const ngram = model.network.ngram;
  if (ngram && engine.ngram_tables && engine.ngram_tables.host.includes(ngram.kind)) hostWeights += weights.ngram;
  const textWeights = weights.total - hostWeights;
  // Whole on the first device under layer split (llama.cpp's mmproj), sharded under tensor parallelism.
  const vision = visionBytes(model, sc);
  const visionPerGpu = engine.split === "tensor" ? Math.ceil(vision / g) : vision;
  const kvHost = pyRound(kv.total * sc.offload);
  const kvDevice = kv.total - kvHost;
  let kvPerGpu;
  if (engine.split === "tensor" && g > 1) {
    kvPerGpu = Math.ceil(perRankAttention(kv, g, 1 - sc.offload) + kv.state_bytes * (1 - sc.offload) / g);
  } else {
    kvPerGpu = Math.ceil(kvDevice / g);
  }
  const runtime = runtimeBytesPerGpu(model, engine, g, nSeq);
  const perGpu = Math.ceil(textWeights / g) + visionPerGpu + kvPerGpu + runtime;
  const usable = usableBytesPerGpu(hw, engine);
  const total = textWeights + vision + kvPerGpu * g + runtime * g;
  return {
    weights_bytes: textWeights + vision, vision_bytes: vision, weights_host_bytes: hostWeights, kv,
    kv_cache_bytes: kvPerGpu * g,
    kv_host_bytes: kvHost, overhead_bytes: runtime * g, total_bytes: total, per_gpu_bytes: perGpu,
    usable_bytes: usable * g, usable_per_gpu_bytes: usable, verdict: verdictFor(perGpu, usable, tightFraction),
    headroom_bytes: usable * g - total, offload_bytes: hostWeights + kvHost, utilization: total / (usable * g),
  };
}

/**
 * @param {(n: number) => boolean} fits
 * @param {number} lo
 * @param {number} hi
 */
export function largest(fits, lo, hi) {
  if (!fits(lo)) return lo - 1;
  while (lo < hi) {
    const mid = Math.floor((lo + hi + 1) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// ---- speed.py ----
/**
 * Sum over heads of the query-key and value widths: FLOPs per (query, key) pair / 2.
 * @param {AttentionBlock | MLABlock} b
 */
function attentionWidth(b) {
  if (b.kind === "mla") return b.heads * (b.qk_nope_head_dim + b.qk_rope_head_dim + b.v_head_dim);
  return b.heads * (b.head_dim + valueDim(b));
}

/**
 * @param {number} e
 * @param {number} k
 * @param {number} seqs
 */
export function expertsTouchedFraction(e, k, seqs) {
  return 1.0 - (1.0 - k / e) ** seqs;
}

/**
 * @param {Model} model
 * @param {number} tokens
 */
function attentionFlops(model, tokens) {
  const n = tokens;
  const pairsFull = n * n / 2;
  let total = 0.0;
  for (const [b, layers] of layout(model).attention) {
    const w = b.kind === "attention" && b.window != null ? b.window : sparseTopK(b);
    const pairs = w == null || n <= w ? pairsFull : n * w - w * w / 2;
    total += 2 * attentionWidth(b) * (layers * pairs);
    if (indexWidth(b)) total += 2 * indexWidth(b) * (layers * pairsFull);
  }
  for (const [b, layers] of layout(model).compressed) total += layers * compressedPromptFlops(b, n);
  return total;
}

/**
 * FLOPs of one DeepSeek V4 layer's attention over a causal prompt (speed.py _compressed_prompt_flops).
 * @param {CompressedMLABlock} b
 * @param {number} n
 */
function compressedPromptFlops(b, n) {
  const width = 2 * b.heads * b.head_dim;
  const w = b.window;
  let pairs = n <= w ? n * n / 2 : n * w - w * w / 2;
  if (b.ratio) {
    const r = b.ratio;
    const k = b.indexer ? b.indexer.top_k : null;
    pairs += k == null || n / r <= k ? n * n / (2 * r) : k * n - k * k * r / 2;
  }
  let total = 2 * width * pairs;
  if (b.indexer && b.indexer.selection === "own" && b.ratio) {
    total += 2 * b.indexer.heads * b.indexer.head_dim * (n * n / (2 * b.ratio));
  }
  return total;
}

/**
 * @param {Model} model
 * @param {number} context
 */
function decodeAttentionFlops(model, context) {
  let total = 0.0;
  for (const [b, layers] of layout(model).attention) {
    const w = b.kind === "attention" && b.window != null ? b.window : sparseTopK(b);
    total += 2.0 * attentionWidth(b) * (layers * (w == null ? context : Math.min(context, w)));
    if (indexWidth(b)) total += 2.0 * indexWidth(b) * (layers * context);
  }
  for (const [b, layers] of layout(model).compressed) {
    let reads = Math.min(context, b.window);
    if (b.ratio) {
      const entries = ceilDiv(context, b.ratio);
      const ix = b.indexer;
      reads += ix ? Math.min(entries, ix.top_k) : entries;
      if (ix && ix.selection === "own") total += 2.0 * ix.heads * ix.head_dim * (layers * entries);
    }
    total += 2.0 * (2 * b.heads * b.head_dim) * (layers * reads);
  }
  return total;
}

/**
 * Bytes of routed experts one decode step over `seqs` sequences reads (speed.py experts_read_bytes).
 * @param {Model} model
 * @param {Weights} w
 * @param {number} seqs
 */
function expertsReadBytes(model, w, seqs) {
  const moe = layout(model).moe;
  if (!moe.length) return 0.0;
  const fractions = new Set(moe.map(([b]) => expertsTouchedFraction(b.experts, b.experts_per_token, seqs)));
  if (fractions.size === 1) return w.experts * [...fractions][0];
  const h = model.architecture.hidden_size;
  const params = moe.map(([b, n]) => [n * ffnParams(b, h).experts, expertsTouchedFraction(b.experts, b.experts_per_token, seqs)]);
  let total = 0;
  for (const [p] of params) total += p;
  let read = 0;
  for (const [p, f] of params) read += w.experts * p / total * f;
  return read;
}

/**
 * @param {number} gpus
 * @param {Split} split
 * @param {number} tpEfficiency
 */
function parallel(gpus, split, tpEfficiency) {
  return split === "tensor" && gpus > 1 ? gpus * tpEfficiency : 1.0;
}

/**
 * @param {number} tCompute
 * @param {number} tWeights
 * @param {number} passes
 * @param {number} passOverhead
 */
export function promptSeconds(tCompute, tWeights, passes, passOverhead) {
  return tCompute + tWeights + passes * passOverhead;
}

/**
 * @param {Model} model
 * @param {Params} p
 * @param {Weights} w
 * @param {Hardware} hw
 * @param {SpeedInputs} o
 */
export function speed(model, p, w, hw, o) {
  const cal = o.cal;
  const par = parallel(o.gpus, o.split, o.tp_efficiency);
  const bw = hw.bandwidth_gbps * 1e9 * cal.bandwidth_efficiency * par;
  const hostBw = o.host_bandwidth_gbps * 1e9 * cal.bandwidth_efficiency;
  const tflops = computeTflops(hw) || cal.implied_tflops;
  const compute = (tflops || 0.0) * 1e12 * cal.compute_efficiency * par;
  const expertsRead = expertsReadBytes(model, w, o.seqs);
  const head = w.per_token_read - w.body - w.experts_active - w.small;
  const layeredRead = w.body + w.small + expertsRead;
  const kvRead = o.seqs * kvReadPerToken(model, o.kv_bytes, o.context, o.state_bytes_per_seq);
  const deviceBytes = head + (layeredRead + kvRead) * (1 - o.offload);
  const hostBytes = (layeredRead + kvRead) * o.offload;
  const tMem = deviceBytes / bw + hostBytes / hostBw;
  const flopsStep = o.seqs * (2.0 * matmulParams(p) + decodeAttentionFlops(model, o.context));
  const tCompute = compute ? flopsStep / compute : 0.0;
  const tComm = o.split === "tensor" && o.gpus > 1 ? 2 * model.architecture.num_layers * o.allreduce_latency_s : 0.0;
  const latency = model.architecture.num_layers * cal.per_layer_latency_s;
  const tStep = Math.max(tMem, tCompute) + latency + tComm;
  const promptFlops = 2.0 * matmulParams(p) * o.prompt_tokens + attentionFlops(model, o.prompt_tokens);
  const passes = Math.ceil(o.prompt_tokens / o.batch_tokens);
  const streamed = w.per_token_read - w.experts_active + w.experts;
  const tWeights = passes * (streamed * (1 - o.offload) / bw + streamed * o.offload / hostBw);
  const tPromptCompute = compute ? promptFlops / compute : Infinity;
  const ttft = promptSeconds(tPromptCompute, tWeights, passes, latency + tComm);
  const finite = Number.isFinite(ttft);
  return {
    decode_tok_s: 1.0 / tStep, decode_tok_s_aggregate: o.seqs / tStep, prompt_tokens: o.prompt_tokens,
    prefill_tok_s: finite ? o.prompt_tokens / ttft : null, ttft_s: finite ? ttft : null,
  };
}

// speed_range: each speed times the out-of-sample low/high ratio of measured ÷ predicted (the
// leave-one-class-out ratios where the speed is extrapolated, as estimate.ratio_ranges picks them).
/**
 * @param {Speed} s
 * @param {Ranges} ranges
 * @param {[boolean, boolean]} extrapolated decode, prefill
 * @param {boolean} [tensorParallel] one sequence's decode spread over several devices (its own range)
 */
export function speedRange(s, ranges, extrapolated, tensorParallel = false) {
  const decode = !ranges ? null : tensorParallel
    ? (extrapolated[0] ? ranges.decode_tp_extrapolated : ranges.decode_tp)
    : (extrapolated[0] ? ranges.decode_extrapolated : ranges.decode);
  const prefill = ranges ? (extrapolated[1] ? ranges.prefill_extrapolated : ranges.prefill) : null;
  const [dl, dh] = decode ? decode : [null, null];
  const hasPrefill = prefill && s.prefill_tok_s !== null;
  // hasPrefill: prefill and s.prefill_tok_s are set.
  const [pl, ph] = hasPrefill ? /** @type {[number, number]} */ (prefill) : [null, null];
  return {
    decode_tok_s_low: dl ? s.decode_tok_s * dl : null,
    decode_tok_s_high: dh ? s.decode_tok_s * dh : null,
    prefill_tok_s_low: pl ? /** @type {number} */ (s.prefill_tok_s) * pl : null,
    prefill_tok_s_high: ph ? /** @type {number} */ (s.prefill_tok_s) * ph : null,
    ttft_s_low: ph && s.ttft_s !== null ? s.ttft_s / ph : null,
    ttft_s_high: pl && s.ttft_s !== null ? s.ttft_s / pl : null,
  };
}

// ---- scenario.py ----
/** @param {Hardware} hw */
export function hardwareClass(hw) {
  if (hw.kind === "apple_unified") return "apple";
  return `${hw.vendor.toLowerCase().split(/\s+/)[0]}-${hw.kind}`;
}

/** @param {Hardware} hw */
export function memoryClass(hw) {
  const kind = (hw.memory_type || "").toUpperCase();
  if (kind.includes("HBM")) return "hbm";
  if (kind.includes("GDDR")) return "gddr";
  if (kind.includes("LPDDR") || hw.kind === "apple_unified" || hw.kind === "unified_apu") return "lpddr";
  return "unknown";
}

// Device-to-device meshes (scenario._FABRICS).
const FABRICS = ["nvlink", "xgmi", "hccs", "ub", "mtlink"];

/** @type {Partial<Record<string, EngineName>>} */
const SAME_KERNELS = { ollama: "llama.cpp" };

/** @param {string} hwClass */
export function classLevels(hwClass) {
  return hwClass.includes("-") ? [hwClass, hwClass.split("-")[0], "*"] : [hwClass, "*"];
}

/** @type {Record<string, string>} */
const MEMORY_LABELS = { hbm: "HBM accelerators", gddr: "GDDR accelerators", lpddr: "LPDDR and unified memory" };
/** @type {Partial<Record<string, string>>} */
const KIND_LABELS = {
  consumer_gpu: "consumer GPUs", workstation_gpu: "workstation GPUs", datacenter_gpu: "datacenter GPUs",
  unified_apu: "unified-memory APUs", npu: "NPUs",
};
/** @type {Partial<Record<string, string>>} */
const VENDOR_LABELS = { nvidia: "NVIDIA", amd: "AMD", moore: "Moore Threads", apple: "Apple silicon" };

/** @param {string} hwClass */
export function classLabel(hwClass) {
  const dash = hwClass.indexOf("-");
  const vendor = dash < 0 ? hwClass : hwClass.slice(0, dash);
  const kind = dash < 0 ? "" : hwClass.slice(dash + 1);
  if (hwClass === "*") return "all hardware";
  if (hwClass in MEMORY_LABELS) return MEMORY_LABELS[hwClass];
  const name = VENDOR_LABELS[vendor] ?? vendor.charAt(0).toUpperCase() + vendor.slice(1);
  if (kind) return `${name} ${KIND_LABELS[kind] ?? kind}`;
  return vendor === "apple" ? name : `all ${name} hardware`;
}

/**
 * @template {DecodeFit | PrefillFit} F
 * @param {F[]} fits
 * @param {string} engine
 * @param {string} hwClass
 * @returns {[F, string]} the fit and where it comes from
 */
export function pick(fits, engine, hwClass) {
  const table = new Map(fits.map((f) => [`${f.engine}|${f.hardware_class}`, f]));
  const levels = classLevels(hwClass);
  const tries = levels.map((c) => [engine, c]);
  const base = SAME_KERNELS[engine];
  if (base) tries.push(...levels.map((c) => [base, c]));
  tries.push(...levels.map((c) => ["llama.cpp", c]));
  for (const [e, c] of tries) {
    const f = table.get(`${e}|${c}`);
    if (f) {
      const source = f.borrowed_from ?? f.engine;
      let note = `${source} on ${classLabel(f.hardware_class)} (${f.rows} measurements)`;
      if (source !== engine && source !== base) note += `; none for ${engine} on ${classLabel(hwClass)}`;
      return [f, note];
    }
  }
  throw new Error(`no calibration for ${engine} or llama.cpp`);
}

/**
 * @param {MoEFit[]} fits
 * @param {string} engine
 * @returns {[number, string]}
 */
export function moeFactor(fits, engine) {
  /** @type {Map<string, MoEFit>} */
  const table = new Map(fits.map((f) => [f.engine, f]));
  for (const name of [engine, SAME_KERNELS[engine], "llama.cpp"]) {
    const f = name && table.get(name);
    if (f) {
      const who = f.borrowed_from ?? f.engine;
      return [f.moe_factor, `× ${f.moe_factor} for mixture-of-experts models (${who}, ${f.rows} measurements)`];
    }
  }
  return [1.0, "no mixture-of-experts measurements"];
}

/**
 * Whether a picked fit is another engine's or the all-hardware one (scenario.extrapolated).
 * @param {DecodeFit | PrefillFit} fit
 * @param {string} engine
 */
export function extrapolated(fit, engine) {
  return fit.hardware_class === "*" || Boolean(fit.borrowed_from)
    || (fit.engine !== engine && fit.engine !== SAME_KERNELS[engine]);
}

/**
 * The all-reduce time of an engine over a link for a dense or MoE model; a mesh without measurements takes
 * all meshes' (scenario.tp_fit, link_levels).
 * @param {TPFit[]} fits
 * @param {string} engine
 * @param {string} link
 * @param {boolean} moe
 * @returns {TPFit | null}
 */
export function tpFit(fits, engine, link, moe) {
  const levels = FABRICS.includes(link) ? [link, "fabric"] : [link];
  for (const c of levels) {
    const f = fits.find((x) => x.engine === engine && x.link === c && x.moe === moe);
    if (f) return f;
  }
  return null;
}

/**
 * @param {Calibration} calibration
 * @param {string} engine
 * @param {Hardware} hw
 * @param {Model} model
 * @returns {[Constants, string, [boolean, boolean]]} the constants, where they come from, and whether
 *   decode and prefill are extrapolated
 */
export function calibrationFor(calibration, engine, hw, model) {
  const [dec, decNote] = pick(calibration.decode_fits, engine, memoryClass(hw));
  const [pre, classNote] = pick(calibration.prefill_fits, engine, hardwareClass(hw));
  let preNote = classNote;
  let efficiency = pre.compute_efficiency;
  if (isMoe(model)) {
    const [factor, moeNote] = moeFactor(calibration.moe_fits, engine);
    efficiency *= factor;
    preNote += ` ${moeNote}`;
  }
  const tp = tpFit(calibration.tp_fits, engine, hw.link, isMoe(model));
  // A device with no published peak may have one implied by its own prefill measurements (in sample).
  const chip = hw.same_chip_as || hw.slug;
  const implied = computeTflops(hw) ? undefined : calibration.implied_peaks.find((p) => p.hardware === chip);
  if (implied) {
    preNote += ` at the ${implied.tflops} TFLOPS peak that ${implied.rows} prefill measurements of its chip imply`;
  }
  const constants = { bandwidth_efficiency: dec.bandwidth_efficiency, per_layer_latency_s: dec.per_layer_latency_s,
    compute_efficiency: efficiency, allreduce_s: tp ? tp.allreduce_s : null,
    implied_tflops: implied ? implied.tflops : null };
  return [constants, `decode: ${decNote}; prefill: ${preNote}`,
    [extrapolated(dec, engine), extrapolated(pre, engine) || implied !== undefined]];
}

// ---- finetune.py ----
/**
 * (d_in, d_out) of the projections a LoRA adapts in one layer's mixer.
 * @param {Mixer} b
 * @param {number} h
 * @returns {[number, number][]}
 */
function adaptedMatrices(b, h) {
  if (b.kind === "gated_delta_net") {
    const k = b.num_key_heads * b.key_head_dim;
    const v = b.num_value_heads * b.value_head_dim;
    return [[h, 2 * k + 2 * v], [h, 2 * b.num_value_heads], [v, h]];
  }
  if (b.kind === "mamba2") return [[h, 2 * b.d_inner + 2 * b.n_groups * b.d_state + b.num_heads], [b.d_inner, h]];
  if (b.kind === "compressed_mla") {
    const hw = b.heads * b.head_dim;
    return [[h, b.q_lora_rank], [b.q_lora_rank, hw], [h, b.head_dim], [Math.floor(hw / b.o_groups), b.o_groups * b.o_lora_rank],
      [b.o_groups * b.o_lora_rank, h]];
  }
  if (b.kind === "kda") {
    const p = b.heads * b.head_dim;
    /** @type {[number, number][]} */
    const gates = b.output_gate === "full" ? [[h, p]] : [[h, b.head_dim], [b.head_dim, p]];
    return [[h, p], [h, p], [h, p], ...gates, [p, h]];
  }
  if (b.kind === "mla") {
    const qk = b.heads * (b.qk_nope_head_dim + b.qk_rope_head_dim);
    /** @type {[number, number][]} */
    const q = b.q_lora_rank ? [[h, b.q_lora_rank], [b.q_lora_rank, qk]] : [[h, qk]];
    /** @type {[number, number][]} */
    const gate = b.output_gate ? [[h, b.heads * b.v_head_dim]] : [];
    return [...q, [h, b.kv_lora_rank + b.qk_rope_head_dim],
      [b.kv_lora_rank, b.heads * (b.qk_nope_head_dim + b.v_head_dim)], ...gate, [b.heads * b.v_head_dim, h]];
  }
  const q = b.heads * b.head_dim;
  const gate = { none: 0, element: b.heads * valueDim(b), head: b.heads }[b.output_gate];
  /** @type {[number, number][]} */
  const values = b.k_eq_v ? [] : [[h, b.kv_heads * valueDim(b)]];
  return [[h, q + gate], [h, b.kv_heads * b.head_dim], ...values, [b.heads * valueDim(b), h]];
}

/**
 * @param {Model} model
 * @param {number} rank
 */
function loraParams(model, rank) {
  const h = model.architecture.hidden_size;
  const laid = layout(model);
  let total = 0;
  for (const [b, n] of laid.mixers) {
    let one = 0;
    for (const [i, o] of adaptedMatrices(b, h)) one += rank * (i + o);
    total += n * one;
  }
  for (const [b, n] of laid.ffns) {
    const widths = b.kind === "dense" ? [b.intermediate] : [b.shared_intermediate, b.dense_beside].filter((w) => w);
    const proj = b.gated ? 3 : 2;
    let one = 0;
    for (const w of widths) one += rank * proj * (h + w);
    total += n * one;
  }
  return total;
}

/**
 * @param {Model} model
 * @param {Params} p
 * @param {Assumptions} as
 * @returns {[number, number, number]} QLoRA, LoRA and full fine-tune bytes
 */
function finetune(model, p, as) {
  const tokens = as.finetune_seq_len * as.finetune_batch;
  const h = model.architecture.hidden_size;
  const acts = pyRound(model.architecture.num_layers * tokens * h * 2 + tokens * h * as.activation_bytes_per_token_hidden +
    tokens * model.architecture.vocab_size * 4 * 2);
  const adapters = loraParams(model, as.lora_rank);
  const adapterState = pyRound(adapters * as.adam_bytes_per_param);
  const linear = p.body + p.experts;
  const unquantized = p.total - linear;
  const qlora = pyRound(linear * as.nf4_bits_per_weight / 8 + unquantized * 2) + adapterState + acts;
  const lora = p.total * 2 + adapterState + acts;
  const full = pyRound(p.total * as.adam_bytes_per_param) + acts;
  return [qlora, lora, full];
}

// ---- devices.py ----
/**
 * One device of `hw`: the whole entry when it has one chip, else a chip's share of its memory,
 * bandwidth, TFLOPS, power and price (a multi-chip card's figures are totals over its chips).
 * @param {Hardware} hw
 * @returns {Hardware}
 */
export function deviceView(hw) {
  const c = hw.chips;
  if (c === 1) return hw;
  /** @param {number | null} v */
  const share = (v) => (v == null ? null : v / c);
  return /** @type {Hardware} */ ({
    ...hw,
    memory_gib: share(hw.memory_gib), memory_gb: share(hw.memory_gb),
    gpu_memory_limit_gib: share(hw.gpu_memory_limit_gib), bandwidth_gbps: hw.bandwidth_gbps / c,
    tflops_bf16: share(hw.tflops_bf16), tflops_fp16: share(hw.tflops_fp16), tflops_fp8: share(hw.tflops_fp8),
    tops_int8: share(hw.tops_int8), tdp_w: share(hw.tdp_w),
    price: hw.price ? { ...hw.price, usd: hw.price.usd / c } : null, chips: 1,
  });
}

// ---- cost.py ----
/**
 * Renting one offer's instance for a month of hours_per_day to run `gpus` devices, or null where it has too few
 * (cost.py offer_monthly).
 * @param {{ usd_per_hour: number, gpus: number }} offer
 * @param {number} gpus
 * @param {number} chips devices per card
 * @param {Assumptions} as
 * @returns {number | null}
 */
export function offerMonthly(offer, gpus, chips, as) {
  if (offer.gpus < Math.ceil(gpus / chips)) return null;
  return offer.usd_per_hour * as.hours_per_day * as.days_per_month;
}

/** Offers rented by default (cost.py RENT_BILLING), and with spot and marketplace ones (ANY_BILLING). */
export const RENT_BILLING = ["on_demand"];
export const ANY_BILLING = ["on_demand", "spot", "community"];

/**
 * The cheapest instance that rents `units` cards of `slug` at once, at its whole price (cost.py rental).
 * @param {CloudOffer[]} offers
 * @param {string} slug
 * @param {number} units
 * @param {string[]} [billing]
 * @returns {CloudOffer | null}
 */
export function rental(offers, slug, units, billing = RENT_BILLING) {
  /** @type {CloudOffer | null} */
  let best = null;
  for (const o of offers) {
    if (o.hardware !== slug || !billing.includes(o.billing) || o.gpus < units) continue;
    if (!best) { best = o; continue; }
    const a = [o.usd_per_hour, o.gpus, o.provider, o.instance];
    const b = [best.usd_per_hour, best.gpus, best.provider, best.instance];
    let less = false;
    for (let i = 0; i < a.length; i++) {
      if (a[i] === b[i]) continue;
      less = a[i] < b[i];
      break;
    }
    if (less) best = o;
  }
  return best;
}

/**
 * Whether `units` cards of `hw` need a rig (cost.py needs_rig): a module always, plug-in cards from two.
 * @param {Hardware} hw
 * @param {number} units
 */
export function needsRig(hw, units) {
  return hw.bought_as === "module" || (hw.bought_as === "card" && units > 1);
}

/**
 * The first rig that takes `units` cards of `hw` and powers them, or null (cost.py rig_for).
 * @param {Hardware} hw one device of a card of `chips` devices, or the card
 * @param {number} units
 * @param {RigsFile | null} rigs
 * @param {number} [chips]
 * @returns {RigCost | null}
 */
export function rigFor(hw, units, rigs, chips = 1) {
  if (!rigs) return null;
  const cardW = hw.tdp_w != null ? hw.tdp_w * chips : null;
  for (const rig of rigs.rigs) {
    if (rig.form_factor !== hw.bought_as || !rig.kinds.includes(hw.kind)) continue;
    if (units < rig.min_cards || units > rig.max_cards) continue;
    const cards = Math.max(units, rig.sold_with || 0);
    const draw = cardW != null ? cards * cardW + rig.host_w : null;
    let psus = 0;
    if (rig.psu_w != null && rig.max_psus != null) {
      if (draw == null) continue;
      psus = Math.ceil(draw * (1 + rigs.psu_headroom) / rig.psu_w);
      if (psus > rig.max_psus) continue;
    }
    const count = { rig: 1, card: cards, psu: psus };
    let usd = 0;
    for (const part of rig.parts) usd += part.usd * count[part.per];
    const circuits = draw != null && rig.psu_w != null ? Math.ceil(draw / rigs.circuit_w) : null;
    return { rig, cards, psus, usd, draw_w: draw, circuits };
  }
  return null;
}

/**
 * Buying `units` cards at `unitUsd` each with the rig they need: [cost, rig], or null where no rig takes them
 * (cost.py bought).
 * @param {Hardware} hw
 * @param {number} units
 * @param {number} unitUsd
 * @param {RigsFile | null} rigs
 * @param {number} [chips]
 * @returns {[number, RigCost | null] | null}
 */
export function bought(hw, units, unitUsd, rigs, chips = 1) {
  if (!needsRig(hw, units)) return [unitUsd * units, null];
  const rig = rigFor(hw, units, rigs, chips);
  return rig ? [unitUsd * rig.cards + rig.usd, rig] : null;
}

/**
 * @param {Hardware} hw one device
 * @param {string} model
 * @param {number} gpus devices
 * @param {number} aggregate
 * @param {CloudOffer[]} offers
 * @param {ApiPrice[]} apiPrices
 * @param {Assumptions} as
 * @param {number} chips devices per rented card
 */
function cost(hw, model, gpus, aggregate, offers, apiPrices, as, chips) {
  const units = Math.ceil(gpus / chips);
  const offer = rental(offers, hw.slug, units);
  const hourly = offer ? offer.usd_per_hour : null;
  const hoursMonth = as.hours_per_day * as.days_per_month;
  const perMtok = hourly != null && aggregate > 0 ? hourly / (aggregate * 3600) * 1e6 : null;
  const got = hw.price ? bought(hw, units, hw.price.usd * chips, as.rigs, chips) : null;
  const buy = got ? got[0] : null;
  const rig = got ? got[1] : null;
  const hostW = rig ? rig.rig.host_w : 0;
  const power = hw.tdp_w ? (hw.tdp_w * gpus + hostW) / 1000 * as.electricity_usd_per_kwh : null;
  let breakeven = null;
  if (buy != null && hourly != null) {
    const saved = (hourly - (power || 0.0)) * hoursMonth;
    breakeven = saved > 0 ? buy / saved : null;
  }
  let api = null;
  for (const p of apiPrices) {
    if (p.model !== model) continue;
    if (!api || p.output_usd_per_mtok < api.output_usd_per_mtok ||
      (p.output_usd_per_mtok === api.output_usd_per_mtok && p.provider < api.provider)) api = p;
  }
  return { cloud_usd_per_hour: hourly, usd_per_mtok: perMtok, monthly_usd: hourly != null ? hourly * hoursMonth : null,
    buy_usd: buy, rig: rig ? rig.rig.slug : null, rig_usd: rig ? rig.usd : null, rig_cards: rig ? rig.cards : null,
    rig_circuits: rig ? rig.circuits : null, power_usd_per_hour: power, breakeven_months: breakeven,
    api_usd_per_mtok: api ? api.output_usd_per_mtok : null };
}

/**
 * What a budget gets with a setup (cost.py budget_use): buying its devices (what is left, and the months of
 * electricity that pays for), renting them (months, and million output tokens at its speed), the cheapest API.
 * @param {{ buy_usd: number | null, power_usd_per_hour: number | null, monthly_usd: number | null,
 *   usd_per_mtok: number | null, api_usd_per_mtok: number | null }} c the estimate's cost fields
 * @param {number} budget US$
 * @param {Assumptions} as
 */
export function budgetUse(c, budget, as) {
  const hoursMonth = as.hours_per_day * as.days_per_month;
  const buys = c.buy_usd == null ? null : budget >= c.buy_usd;
  const left = buys && c.buy_usd != null ? budget - c.buy_usd : null;
  const power = c.power_usd_per_hour;
  return {
    budget,
    budget_buys: buys,
    budget_left_usd: left,
    budget_power_months: left != null && power ? left / (power * hoursMonth) : null,
    budget_rent_months: c.monthly_usd ? budget / c.monthly_usd : null,
    budget_rent_mtok: c.usd_per_mtok ? budget / c.usd_per_mtok : null,
    budget_api_mtok: c.api_usd_per_mtok ? budget / c.api_usd_per_mtok : null,
  };
}

// ---- estimate.py ----
// Why a scenario cannot run, in English with {slots}: estimate.py REASONS (the parity vectors compare the
// messages); pages translate them by code (the workbench's reasons).
export const REASONS = {
  format: "{engine} does not load {fmt} ({family}); it loads {formats}",
  hardware: "{engine} does not run on {hw}",
  backend_format: "{engine} runs {formats} on {hw} ({backend}), not {fmt}",
  kv: "{engine} has no {kv} KV cache (supported by {engines})",
  backend_kv: "{engine} has no {kv} KV cache on {hw} ({backend}: {kvs})",
  moe_only: "{fmt} quantizes MoE experts; {model} is a dense model",
  offload: "{engine} does not offload layers to system RAM in this estimate",
  vision: "{engine} loads only the text model of {model}, not its vision encoder",
  long_context: "{engine} cannot apply {model}'s YaRN scaling past {n} tokens from its command line",
  split: "{engine} cannot split {model} over {n} devices ({heads} attention heads, {kv_heads} KV heads)",
  architecture: "{engine} does not run {model}: no release of it is known to load {arch} models",
};

/**
 * {slot} replaced by its value (unknown slots kept), as estimate.py fill() does.
 * @param {string} template
 * @param {Record<string, string>} values
 */
export function fill(template, values) {
  return template.replace(/\{(\w+)\}/g, (whole, key) => (key in values ? values[key] : whole));
}

/**
 * The longest context the model card documents (with its YaRN scaling, if any): Model.max_context.
 * @param {Model} model
 */
export function maxContextOf(model) {
  return model.long_context ? model.long_context.max_context : model.architecture.max_context;
}

/**
 * Whether `context` is past the config's maximum, so the engine applies the card's YaRN: Model.extends.
 * @param {Model} model
 * @param {number} context
 */
export function extends_(model, context) {
  return Boolean(model.long_context) && context > model.architecture.max_context;
}

/**
 * The engine's backends that run on this hardware, in engines.yaml's order: EngineProfile.backends_on.
 * @param {EngineProfile} e
 * @param {Hardware} hw
 */
export function backendsOn(e, hw) {
  return e.backends.filter((b) => b.platforms.includes(hw.platform) &&
    (!b.hardware.length || b.hardware.includes(hw.slug)) && !b.excluded.includes(hw.slug));
}

/**
 * The --dtype a command for `fmt` on this hardware passes ("" for the checkpoint's own): the first backend
 * there that runs the format (EngineProfile.dtype_on).
 * @param {EngineProfile} e
 * @param {Hardware} hw
 * @param {string} fmt
 */
export function dtypeOn(e, hw, fmt) {
  const backend = backendsOn(e, hw).find((b) => !b.formats.length || b.formats.includes(fmt));
  return backend && backend.dtype ? backend.dtype : "";
}

/**
 * Each backend's name once, joined with "/" (estimate.py _names).
 * @param {EngineBackend[]} backends
 */
function backendNames(backends) {
  return [...new Set(backends.map((b) => b.name))].join("/");
}

/**
 * Why the scenario cannot run, as [code, values] (a key of REASONS and its slots), or null.
 * @param {Model} model
 * @param {Hardware} hw
 * @param {Scenario} sc
 * @returns {[keyof typeof REASONS, Record<string, string>] | null}
 */
export function scenarioProblem(model, hw, sc) {
  const e = sc.engine;
  if (model.engines && !model.engines.includes(e.name)) {
    return ["architecture", { engine: e.label, model: model.name, arch: model.architecture.model_type }];
  }
  if (!e.formats.includes(sc.fmt.family)) {
    return ["format", { engine: e.label, fmt: sc.fmt.name, family: sc.fmt.family, formats: e.formats.join(", ") }];
  }
  const on = backendsOn(e, hw);
  if (!on.length) return ["hardware", { engine: e.label, hw: hw.name }];
  const running = on.filter((b) => !b.formats.length || b.formats.includes(sc.fmt.name));
  if (!running.length) {
    return ["backend_format", { engine: e.label, hw: hw.name, backend: backendNames(on), fmt: sc.fmt.name,
      formats: [...new Set(on.flatMap((b) => b.formats))].join(", ") }];
  }
  if (!sc.kv.engines.includes(e.name)) return ["kv", { engine: e.label, kv: sc.kv.name, engines: sc.kv.engines.join(", ") }];
  if (!running.some((b) => !b.kv_dtypes.length || b.kv_dtypes.includes(sc.kv.name))) {
    return ["backend_kv", { engine: e.label, hw: hw.name, backend: backendNames(running), kv: sc.kv.name,
      kvs: [...new Set(running.flatMap((b) => b.kv_dtypes))].join(", ") }];
  }
  if (sc.fmt.moe_only && !isMoe(model)) return ["moe_only", { fmt: sc.fmt.name, model: model.name }];
  if (sc.offload && e.split !== "layer") return ["offload", { engine: e.label }];
  if (sc.vision && model.vision && e.vision === "never") return ["vision", { engine: e.label, model: model.name }];
  if (extends_(model, sc.context) && !e.extends_context) {
    return ["long_context", { engine: e.label, model: model.name, n: String(model.architecture.max_context) }];
  }
  const blocker = splitBlocker(model, e, sc.gpus);
  if (blocker) {
    return ["split", { engine: e.label, model: model.name, n: String(sc.gpus), heads: String(blocker[0]),
      kv_heads: String(blocker[1]) }];
  }
  return null;
}

/**
 * Why the scenario cannot run, in English ("" when it can): estimate.py check_scenario's message.
 * @param {Model} model
 * @param {Hardware} hw
 * @param {Scenario} sc
 */
export function checkScenario(model, hw, sc) {
  const problem = scenarioProblem(model, hw, sc);
  return problem ? fill(REASONS[problem[0]], problem[1]) : "";
}

/**
 * @param {Model} model
 * @param {Hardware} card the catalog entry (a card of `chips` devices)
 * @param {Scenario} sc
 * @param {Facts} facts
 */
export function estimate(model, card, sc, facts) {
  const problem = checkScenario(model, card, sc);
  if (problem) throw new Error(problem);
  // The scenario's devices are what the engine sees: a card of several chips is several devices.
  const hw = deviceView(card);
  const as = facts.assumptions;
  const p = countParams(model);
  const w = weightBytes(p, sc.fmt);
  /**
   * @param {number} [context]
   * @param {number} [seqs]
   */
  const mem = (context, seqs) => memory(model, w, hw, sc, as.verdict_tight_fraction, context, seqs);
  const m = mem();
  const top = sc.engine.extends_context ? maxContextOf(model) : model.architecture.max_context;
  const maxContext = largest((c) => mem(c).verdict !== "oom", 1, top);
  const maxBatch = largest((b) => mem(undefined, b).verdict !== "oom", 1, 4096);
  let minGpus = null;
  for (let g = 1; g <= as.max_gpus; g++) {
    if (tpValid(model, sc.engine, g) &&
      memory(model, w, hw, { ...sc, gpus: g, offload: 0.0 }, as.verdict_tight_fraction).verdict !== "oom") {
      minGpus = g;
      break;
    }
  }
  const [cal, note, extrap] = calibrationFor(facts.calibration, sc.engine.name, hw, model);
  const statePerSeq = stateBytesPerSeq(model, sc.engine);
  const s = speed(model, p, w, hw, {
    kv_bytes: sc.kv.bytes_per_element, state_bytes_per_seq: statePerSeq, context: sc.context, seqs: sc.batch,
    gpus: sc.gpus, split: sc.engine.split, tp_efficiency: sc.engine.tensor_parallel_efficiency,
    allreduce_latency_s: cal.allreduce_s ?? sc.engine.allreduce_latency_s, batch_tokens: sc.engine.batch_tokens, offload: sc.offload,
    host_bandwidth_gbps: as.host_ram_bandwidth_gbps, prompt_tokens: Math.min(as.ttft_prompt_tokens, sc.context), cal,
  });
  const [qlora, lora, full] = finetune(model, p, as);
  const c = cost(hw, model.slug, sc.gpus, s.decode_tok_s_aggregate, facts.offers, facts.api_prices, as, card.chips);
  return {
    model: model.slug, hardware: hw.slug, quant: sc.fmt.name, engine: sc.engine.name, kv_dtype: sc.kv.name,
    context: sc.context, batch: sc.batch, gpus: sc.gpus, offload: sc.offload, vision: sc.vision,
    params_total: p.total, params_active: p.active,
    weights_bytes: m.weights_bytes, vision_bytes: m.vision_bytes, kv_cache_bytes: m.kv_cache_bytes, overhead_bytes: m.overhead_bytes,
    total_bytes: m.total_bytes, usable_bytes: m.usable_bytes, headroom_bytes: m.headroom_bytes,
    offload_bytes: m.offload_bytes, per_gpu_bytes: m.per_gpu_bytes, usable_per_gpu_bytes: m.usable_per_gpu_bytes,
    verdict: m.verdict, utilization: m.utilization, effective_bpw: w.effective_bpw,
    kv_bytes_per_token: m.kv.bytes_per_token, state_bytes: m.kv.state_bytes,
    max_context: Math.max(0, maxContext), max_batch: Math.max(0, maxBatch), min_gpus: minGpus,
    decode_tok_s: s.decode_tok_s, decode_tok_s_aggregate: s.decode_tok_s_aggregate,
    prefill_tok_s: s.prefill_tok_s, ttft_s: s.ttft_s, ttft_prompt_tokens: s.prompt_tokens,
    ...speedRange(s, facts.ranges, extrap, sc.gpus > 1 && sc.engine.split === "tensor"),
    qlora_bytes: qlora, lora_bytes: lora, full_finetune_bytes: full, ...c, calibration: note,
    decode_extrapolated: extrap[0], prefill_extrapolated: extrap[1],
  };
}

// Build a scenario from names, the way the CLI does (engine defaults by format family).
/**
 * A name the data lacks leaves its field undefined.
 * @param {{ formats: QuantFormat[], engines: EngineProfile[], kv_cache: KVDtype[],
 *   family_engine: Record<FormatFamily, EngineName> }} data family_engine: shared data (scenario.py's table)
 * @param {ScenarioNames} names
 */
export function scenario(data, { quant, engine, kv_dtype: kvName, context, batch = 1, gpus = 1, offload = 0,
  vision = false }) {
  const fmt = data.formats.find((f) => f.name === quant);
  const familyEngine = fmt ? data.family_engine[fmt.family] : undefined;
  const eng = data.engines.find((e) => e.name === (engine || familyEngine));
  const kv = data.kv_cache.find((k) => k.name === (kvName || eng?.default_kv_dtype));
  return { fmt, engine: eng, kv, context, batch, gpus, offload, vision };
}
