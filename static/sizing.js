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
 * @typedef {{ model_type: string, num_layers: number, hidden_size: number, intermediate_size: number,
 *   num_attention_heads: number, num_kv_heads: number, head_dim: number, vocab_size: number, max_context: number,
 *   tie_word_embeddings: boolean, attention_bias: boolean, attention_output_bias: boolean, qk_norm: boolean,
 *   attention_output_gate: boolean, attention_sinks: boolean, norms_per_layer: number, mlp_bias: boolean,
 *   mlp_gated: boolean }} Architecture
 * @typedef {{ kv_lora_rank: number, qk_rope_head_dim: number, qk_nope_head_dim: number, v_head_dim: number,
 *   q_lora_rank: number | null }} MLA
 * @typedef {{ num_key_heads: number, key_head_dim: number, num_value_heads: number, value_head_dim: number,
 *   conv_kernel: number }} LinearAttention
 * @typedef {{ d_inner: number, d_state: number, n_groups: number, d_conv: number, num_heads: number }} Mamba
 * @typedef {{ layer_pattern: string, sliding_window: number | null, mla: MLA | null, linear: LinearAttention | null,
 *   mamba: Mamba | null }} Attention layer_pattern repeats to num_layers: f full, s sliding, l linear, m mamba
 * @typedef {{ num_experts: number, experts_per_token: number, expert_intermediate_size: number,
 *   shared_experts: number, shared_expert_intermediate_size: number, first_dense_layers: number,
 *   layer_interval: number, router_bias: boolean, shared_expert_gate: boolean,
 *   extra_layers_not_loaded: number }} MoE
 * @typedef {{ slug: string, hf_id: string, name: string, organization: string, family: string, license: string,
 *   release_date: string, params_total: number | null, params_total_kind: string, params_active: number | null,
 *   params_active_kind: string | null, architecture: Architecture, attention: Attention, moe: MoE | null,
 *   vision: VisionEncoder | null, long_context: LongContext | null, domain: "general" | "code" }} Model
 * @typedef {{ method: "yarn", factor: number, original_context: number, max_context: number }} LongContext
 * @typedef {{ params: number, mmproj_bytes: number | null }} VisionEncoder encoder and projector of a multimodal model
 * @typedef {{ usd: number, date: string, kind: string }} Price the price of a new unit (Hardware.price in schema.py)
 * @typedef {{ slug: string, name: string, vendor: string, kind: HardwareKind, platform: string, release_date: string,
 *   memory_type: string | null, bandwidth_gbps: number, tflops_bf16: number | null, tflops_fp16: number | null,
 *   tflops_fp8: number | null, tops_int8: number | null, tdp_w: number | null, interconnect: string | null,
 *   link: string, chips: number, gpu_memory_limit_gib: number | null, same_chip_as: string | null,
 *   price: Price | null }
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
 *   tensor_parallel_efficiency: number, allreduce_latency_s: number,
 *   keeps_embeddings_on_host: boolean, vision: "optional" | "always" | "never", extends_context: boolean }} EngineProfile
 * @typedef {{ verdict_tight_fraction: number, default_context: number, ttft_prompt_tokens: number,
 *   host_ram_bandwidth_gbps: number, electricity_usd_per_kwh: number, electricity_date: string,
 *   hours_per_day: number, days_per_month: number, finetune_seq_len: number, finetune_batch: number,
 *   lora_rank: number, nf4_bits_per_weight: number, adam_bytes_per_param: number,
 *   activation_bytes_per_token_hidden: number, max_gpus: number, reading_words_per_minute: number,
 *   tokens_per_word: number }} Assumptions
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
 *   experts: number, experts_active: number, small: number, total: number, active: number, body: number }} Params
 * @typedef {{ embedding: number, output: number, body: number, experts: number, experts_active: number,
 *   small: number, body_bpw: number, expert_bpw: number, params: number, tied: boolean, total: number,
 *   per_token_read: number, effective_bpw: number }} Weights bytes, and bits per weight
 * @typedef {{ attention_bytes: number, state_bytes: number, bytes_per_token: number, total: number }} KvCache
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

/**
 * The kind letter of every layer.
 * @param {Model} model
 * @returns {string[]}
 */
export function layerKinds(model) {
  const pattern = model.attention.layer_pattern;
  const out = [];
  for (let i = 0; i < model.architecture.num_layers; i++) out.push(pattern[i % pattern.length]);
  return out;
}

/**
 * @param {string[]} kinds
 * @param {string} k
 */
function count(kinds, k) {
  let n = 0;
  for (const x of kinds) if (x === k) n++;
  return n;
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
 * @param {MoE} moe
 * @param {number} i
 */
function isMoeLayer(moe, i) {
  return i >= moe.first_dense_layers && (i + 1) % moe.layer_interval === 0;
}

// ---- params.py ----
/**
 * @param {Model} model
 * @returns {[number, number]} matrix and small parameters
 */
function attentionLayer(model) {
  const a = model.architecture;
  const h = a.hidden_size;
  const mla = model.attention.mla;
  let small = 0;
  let matrices;
  if (mla) {
    const qk = mla.qk_nope_head_dim + mla.qk_rope_head_dim;
    let q;
    if (mla.q_lora_rank) {
      q = h * mla.q_lora_rank + mla.q_lora_rank * a.num_attention_heads * qk;
      small += mla.q_lora_rank;
    } else {
      q = h * a.num_attention_heads * qk;
    }
    const kv = h * (mla.kv_lora_rank + mla.qk_rope_head_dim) +
      mla.kv_lora_rank * a.num_attention_heads * (mla.qk_nope_head_dim + mla.v_head_dim);
    small += mla.kv_lora_rank;
    const o = a.num_attention_heads * mla.v_head_dim * h;
    matrices = q + kv + o;
  } else {
    const qOut = a.num_attention_heads * a.head_dim;
    const kvOut = a.num_kv_heads * a.head_dim;
    const gate = a.attention_output_gate ? 2 : 1;
    matrices = h * qOut * gate + 2 * h * kvOut + qOut * h;
    if (a.attention_bias) small += qOut * gate + 2 * kvOut;
    if (a.qk_norm) small += 2 * a.head_dim;
  }
  if (a.attention_output_bias) small += h;
  if (a.attention_sinks) small += a.num_attention_heads;
  return [matrices, small];
}

/**
 * @param {Model} model
 * @returns {[number, number]}
 */
function linearLayer(model) {
  const lin = /** @type {LinearAttention} */ (model.attention.linear); // an l layer has one (schema)
  const h = model.architecture.hidden_size;
  const k = lin.num_key_heads * lin.key_head_dim;
  const v = lin.num_value_heads * lin.value_head_dim;
  const matrices = h * (2 * k + 2 * v) + h * 2 * lin.num_value_heads + v * h;
  const small = (2 * k + v) * lin.conv_kernel + 2 * lin.num_value_heads + lin.value_head_dim;
  return [matrices, small];
}

/**
 * @param {Model} model
 * @returns {[number, number]}
 */
function mambaLayer(model) {
  const m = /** @type {Mamba} */ (model.attention.mamba); // an m layer has one (schema)
  const h = model.architecture.hidden_size;
  const convDim = m.d_inner + 2 * m.n_groups * m.d_state;
  const matrices = h * (2 * m.d_inner + 2 * m.n_groups * m.d_state + m.num_heads) + m.d_inner * h;
  const small = convDim * m.d_conv + convDim + 3 * m.num_heads + m.d_inner;
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
 * @param {Model} model
 * @returns {Params}
 */
export function countParams(model) {
  const a = model.architecture;
  const h = a.hidden_size;
  let attention = 0, small = 0, denseFfn = 0, shared = 0, experts = 0, expertsActive = 0;
  const kinds = layerKinds(model);
  for (let i = 0; i < kinds.length; i++) {
    const kind = kinds[i];
    const [m, s] = kind === "l" ? linearLayer(model) : kind === "m" ? mambaLayer(model) : attentionLayer(model);
    attention += m;
    small += s + a.norms_per_layer * h;
    const moe = model.moe;
    if (!moe || !isMoeLayer(moe, i)) {
      if (a.intermediate_size) {
        const [dm, ds] = ffn(h, a.intermediate_size, a.mlp_gated, a.mlp_bias);
        denseFfn += dm;
        small += ds;
      }
      continue;
    }
    const [oneM, oneS] = ffn(h, moe.expert_intermediate_size, a.mlp_gated, a.mlp_bias);
    experts += moe.num_experts * oneM;
    expertsActive += moe.experts_per_token * oneM;
    small += moe.num_experts * oneS + h * moe.num_experts + (moe.router_bias ? moe.num_experts : 0);
    if (moe.shared_experts && moe.shared_expert_intermediate_size) {
      const [sm, ss] = ffn(h, moe.shared_expert_intermediate_size, a.mlp_gated, a.mlp_bias);
      shared += sm;
      small += ss + (moe.shared_expert_gate ? h : 0);
    }
  }
  small += h;
  const embedding = a.vocab_size * h;
  const output = a.tie_word_embeddings ? 0 : a.vocab_size * h;
  const p = /** @type {Params} */ ({ embedding, output, attention, dense_ffn: denseFfn, shared_experts: shared, experts,
    experts_active: expertsActive, small });
  p.total = embedding + output + attention + denseFfn + shared + experts + small;
  p.active = p.total - experts + expertsActive;
  p.body = attention + denseFfn + shared;
  return p;
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
    body_bpw: bulk, expert_bpw: expert, params: p.total, tied: !p.output,
  });
  w.total = w.embedding + w.output + w.body + w.experts + w.small;
  w.per_token_read = (w.tied ? w.embedding : w.output) + w.body + w.experts_active + w.small;
  w.effective_bpw = w.total * 8 / w.params;
  return w;
}

// ---- kv.py ----
/**
 * @param {Model} model
 * @param {number} kvBytes
 */
export function kvBytesPerTokenLayer(model, kvBytes) {
  const mla = model.attention.mla;
  if (mla) return (mla.kv_lora_rank + mla.qk_rope_head_dim) * kvBytes;
  const a = model.architecture;
  return 2 * a.num_kv_heads * a.head_dim * kvBytes;
}

/**
 * @param {Model} model
 * @param {string} kind
 * @param {EngineProfile} engine
 */
export function stateBytesPerSeqLayer(model, kind, engine) {
  if (kind === "l") {
    const lin = /** @type {LinearAttention} */ (model.attention.linear);
    const conv = (2 * lin.num_key_heads * lin.key_head_dim + lin.num_value_heads * lin.value_head_dim) *
      (lin.conv_kernel - 1);
    const ssm = lin.num_value_heads * lin.value_head_dim * lin.key_head_dim;
    return conv * engine.state_conv_bytes + ssm * engine.state_ssm_bytes;
  }
  if (kind === "m") {
    const m = /** @type {Mamba} */ (model.attention.mamba);
    const conv = (m.d_conv - 1) * (m.d_inner + 2 * m.n_groups * m.d_state);
    return conv * engine.state_conv_bytes + m.d_state * m.d_inner * engine.state_ssm_bytes;
  }
  return 0.0;
}

/**
 * @param {number} n
 * @param {number} unit
 */
function padUp(n, unit) {
  return -Math.floor(-n / unit) * unit;
}

/**
 * @param {string} kind
 * @param {Model} model
 * @param {EngineProfile} engine
 * @param {number} context
 * @param {number} seqs
 */
export function cachedTokens(kind, model, engine, context, seqs) {
  const unit = engine.context_pad_tokens;
  const window = model.attention.sliding_window;
  const pool = engine.kv_allocation;
  if (kind === "f" || window == null) {
    return pool === "shared_pool" ? padUp(context * seqs, unit) : seqs * padUp(context, unit);
  }
  if (pool === "shared_pool") return padUp(Math.min(context * seqs, window * seqs + engine.batch_tokens), unit);
  if (pool === "paged") return seqs * (padUp(Math.min(window - 1 + engine.batch_tokens, context), unit) + unit);
  return seqs * Math.min(padUp(context, unit), window);
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
  const perLayer = kvBytesPerTokenLayer(model, kvBytes);
  const kinds = layerKinds(model);
  let attention = 0.0;
  let state = 0.0;
  for (const kind of "fslm") {
    const n = count(kinds, kind);
    if (!n) continue;
    if (kind === "f" || kind === "s") attention += n * perLayer * cachedTokens(kind, model, engine, context, seqs);
    else state += n * seqs * stateBytesPerSeqLayer(model, kind, engine);
  }
  const full = count(kinds, "f");
  const sliding = count(kinds, "s");
  const kv = /** @type {KvCache} */ ({ attention_bytes: Math.ceil(attention), state_bytes: Math.ceil(state),
    bytes_per_token: perLayer * (full + sliding) });
  kv.total = kv.attention_bytes + kv.state_bytes;
  return kv;
}

/**
 * @param {Model} model
 * @param {number} kvBytes
 * @param {number} context
 * @param {number} stateBytes
 */
function kvReadPerToken(model, kvBytes, context, stateBytes) {
  const perLayer = kvBytesPerTokenLayer(model, kvBytes);
  const window = model.attention.sliding_window || context;
  const kinds = layerKinds(model);
  return perLayer * (count(kinds, "f") * context + count(kinds, "s") * Math.min(context, window)) + stateBytes;
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
 * @param {Model} model
 * @param {EngineProfile} engine
 * @param {number} gpus
 */
export function tpValid(model, engine, gpus) {
  if (gpus === 1) return true;
  const a = model.architecture;
  if (engine.split === "none") return false;
  if (engine.split === "layer") return gpus <= a.num_layers;
  if (a.num_attention_heads % gpus) return false;
  if (model.attention.mla) return true;
  const kv = a.num_kv_heads;
  return gpus <= kv ? kv % gpus === 0 : gpus % kv === 0;
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
    buffer = model.moe ? engine.activation_bytes_moe : engine.activation_bytes_dense;
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
  const textWeights = weights.total - hostWeights;
  // Whole on the first device under layer split (llama.cpp's mmproj), sharded under tensor parallelism.
  const vision = visionBytes(model, sc);
  const visionPerGpu = engine.split === "tensor" ? Math.ceil(vision / g) : vision;
  const kvHost = pyRound(kv.total * sc.offload);
  const kvDevice = kv.total - kvHost;
  let kvPerGpu;
  if (engine.split === "tensor" && g > 1) {
    const share = model.attention.mla ? 1.0 : 1 / Math.min(g, model.architecture.num_kv_heads);
    kvPerGpu = Math.ceil(kv.attention_bytes * (1 - sc.offload) * share + kv.state_bytes * (1 - sc.offload) / g);
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
/** @param {Model} model */
function attentionWidth(model) {
  const a = model.architecture;
  const mla = model.attention.mla;
  if (mla) return a.num_attention_heads * (mla.qk_nope_head_dim + mla.qk_rope_head_dim + mla.v_head_dim);
  return a.num_attention_heads * a.head_dim * 2;
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
  const d = attentionWidth(model);
  const n = tokens;
  const w = model.attention.sliding_window;
  const pairsFull = n * n / 2;
  const pairsSliding = w == null || n <= w ? pairsFull : n * w - w * w / 2;
  const kinds = layerKinds(model);
  return 2 * d * (count(kinds, "f") * pairsFull + count(kinds, "s") * pairsSliding);
}

/**
 * @param {Model} model
 * @param {number} context
 */
function decodeAttentionFlops(model, context) {
  const d = attentionWidth(model);
  const w = model.attention.sliding_window || context;
  const kinds = layerKinds(model);
  return 2.0 * d * (count(kinds, "f") * context + count(kinds, "s") * Math.min(context, w));
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
  const moe = model.moe;
  const touched = moe ? expertsTouchedFraction(moe.num_experts, moe.experts_per_token, o.seqs) : 0.0;
  const expertsRead = w.experts * touched;
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
  if (model.moe) {
    const [factor, moeNote] = moeFactor(calibration.moe_fits, engine);
    efficiency *= factor;
    preNote += ` ${moeNote}`;
  }
  const tp = tpFit(calibration.tp_fits, engine, hw.link, Boolean(model.moe));
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
 * @param {Model} model
 * @param {string} kind
 * @returns {[number, number][]} (in, out) of each adapted matrix
 */
function adaptedMatrices(model, kind) {
  const a = model.architecture;
  const h = a.hidden_size;
  const mla = model.attention.mla;
  if (kind === "l" && model.attention.linear) {
    const lin = model.attention.linear;
    const k = lin.num_key_heads * lin.key_head_dim;
    const v = lin.num_value_heads * lin.value_head_dim;
    return [[h, 2 * k + 2 * v], [h, 2 * lin.num_value_heads], [v, h]];
  }
  if (kind === "m" && model.attention.mamba) {
    const m = model.attention.mamba;
    return [[h, 2 * m.d_inner + 2 * m.n_groups * m.d_state + m.num_heads], [m.d_inner, h]];
  }
  if (mla) {
    const qk = a.num_attention_heads * (mla.qk_nope_head_dim + mla.qk_rope_head_dim);
    /** @type {[number, number][]} */
    const q = mla.q_lora_rank ? [[h, mla.q_lora_rank], [mla.q_lora_rank, qk]] : [[h, qk]];
    return [...q, [h, mla.kv_lora_rank + mla.qk_rope_head_dim],
      [mla.kv_lora_rank, a.num_attention_heads * (mla.qk_nope_head_dim + mla.v_head_dim)],
      [a.num_attention_heads * mla.v_head_dim, h]];
  }
  const q = a.num_attention_heads * a.head_dim;
  const kv = a.num_kv_heads * a.head_dim;
  const gate = a.attention_output_gate ? 2 : 1;
  return [[h, q * gate], [h, kv], [h, kv], [q, h]];
}

/**
 * @param {Model} model
 * @param {number} rank
 */
function loraParams(model, rank) {
  const a = model.architecture;
  const h = a.hidden_size;
  let total = 0;
  for (const kind of layerKinds(model)) for (const [i, o] of adaptedMatrices(model, kind)) total += rank * (i + o);
  const proj = a.mlp_gated ? 3 : 2;
  const moe = model.moe;
  let moeLayers = 0;
  if (moe) for (let i = 0; i < a.num_layers; i++) if (isMoeLayer(moe, i)) moeLayers++;
  total += (a.num_layers - moeLayers) * rank * proj * (h + a.intermediate_size);
  if (moe && moe.shared_expert_intermediate_size) total += moeLayers * rank * proj * (h + moe.shared_expert_intermediate_size);
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
 * Renting `gpus` devices at one offer's price for a month of hours_per_day (cost.py offer_monthly).
 * @param {{ usd_per_hour: number, gpus: number }} offer
 * @param {number} gpus
 * @param {number} chips devices per card
 * @param {Assumptions} as
 */
export function offerMonthly(offer, gpus, chips, as) {
  return offer.usd_per_hour / (offer.gpus * chips) * gpus * as.hours_per_day * as.days_per_month;
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
  const all = offers.filter((o) => o.hardware === hw.slug);
  // cost.py's headline_offers: on-demand and community offers, or every offer when there are none.
  const plain = all.filter((o) => o.billing === "on_demand" || o.billing === "community");
  const mine = plain.length ? plain : all;
  let offer = null;
  for (const o of mine) {
    if (!offer) { offer = o; continue; }
    const a = [o.usd_per_hour / o.gpus, o.provider, o.instance];
    const b = [offer.usd_per_hour / offer.gpus, offer.provider, offer.instance];
    if (a[0] < b[0] || (a[0] === b[0] && (a[1] < b[1] || (a[1] === b[1] && a[2] < b[2])))) offer = o;
  }
  const perGpu = offer ? offer.usd_per_hour / (offer.gpus * chips) : null;
  const hourly = perGpu != null ? perGpu * gpus : null;
  const hoursMonth = as.hours_per_day * as.days_per_month;
  const perMtok = hourly != null && aggregate > 0 ? hourly / (aggregate * 3600) * 1e6 : null;
  const power = hw.tdp_w ? hw.tdp_w * gpus / 1000 * as.electricity_usd_per_kwh : null;
  const buy = hw.price ? hw.price.usd * gpus : null;
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
    buy_usd: buy, power_usd_per_hour: power, breakeven_months: breakeven,
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
  if (sc.fmt.moe_only && !model.moe) return ["moe_only", { fmt: sc.fmt.name, model: model.name }];
  if (sc.offload && e.split !== "layer") return ["offload", { engine: e.label }];
  if (sc.vision && model.vision && e.vision === "never") return ["vision", { engine: e.label, model: model.name }];
  if (extends_(model, sc.context) && !e.extends_context) {
    return ["long_context", { engine: e.label, model: model.name, n: String(model.architecture.max_context) }];
  }
  if (!tpValid(model, e, sc.gpus)) {
    const a = model.architecture;
    return ["split", { engine: e.label, model: model.name, n: String(sc.gpus), heads: String(a.num_attention_heads),
      kv_heads: String(a.num_kv_heads) }];
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
  let statePerSeq = 0;
  for (const k of layerKinds(model)) statePerSeq += stateBytesPerSeqLayer(model, k, sc.engine);
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
