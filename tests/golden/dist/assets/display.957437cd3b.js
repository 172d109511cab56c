// @ts-check
// What a page shows besides the sizing numbers, written once for the browser the way Python writes it:
// number formatting (generator/site/i18n.py NumberFormat), launch commands (generator/site/commands.py)
// and the memory chart's geometry (generator/site/charts.py). The parity vectors run both on the same
// inputs and require equal text, so a page reads the same before and after JavaScript runs.
// No DOM: it runs in node and in the browser.

/**
 * @typedef {{ group: string, decimal: string, minus: string, percent: [string, string], usd: [string, string],
 *   units: [string, string, string, string] }} NumberSpec how a language writes numbers (from CLDR)
 * @typedef {{ gguf: string[], awq: string[], gptq: string[], fp8: string[], mlx: string[],
 *   ollama: string | null }} Artifacts published checkpoints of a model
 * @typedef {{ slug: string, hf_id: string, architecture: { num_layers: number } }} CommandModel
 * @typedef {{ engine: string, quant: string, context: number, batch: number, gpus: number, kv_dtype: string,
 *   offload: number }} CommandInputs
 * @typedef {{ x0: number, width: number, flip_at: number }} ChartGeometry the memory chart's SVG units
 * @typedef {{ weights_bytes: number, kv_cache_bytes: number, overhead_bytes: number, total_bytes: number,
 *   usable_bytes: number }} MemoryKeys
 */

const GIB = 1024 ** 3;

/**
 * `value` with `digits` decimals and ASCII grouping commas; ties round away from zero on the exact
 * binary value (toFixed's rule, which Python reproduces with Decimal ROUND_HALF_UP).
 * @param {number} value a finite number, not negative
 * @param {number} digits
 */
function fixed(value, digits) {
  const [whole, part] = value.toFixed(digits).split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return part === undefined ? grouped : `${grouped}.${part}`;
}

/**
 * The formatters of one language, from its number spec.
 * @param {NumberSpec} spec
 */
export function numberFormat(spec) {
  /**
   * A grouped decimal number with the locale's symbols.
   * @param {number | null | undefined} value
   * @param {number} [digits]
   */
  const num = (value, digits = 0) => {
    if (value == null || !Number.isFinite(value)) return "—";
    const text = fixed(Math.abs(value), digits).replace(/[,.]/g, (c) => (c === "," ? spec.group : spec.decimal));
    return value < 0 && /[1-9]/.test(text) ? spec.minus + text : text;
  };
  /**
   * About three significant digits (1.23, 12.3, 123, 1,234).
   * @param {number | null | undefined} value
   */
  const sig = (value) => {
    if (value == null || !Number.isFinite(value)) return "—";
    const a = Math.abs(value);
    return num(value, a < 10 ? 2 : a < 100 ? 1 : 0);
  };
  const [kib, mib, gib, tib] = spec.units;
  /**
   * Bytes in binary units: KiB below 1 MiB, MiB below 1 GiB, GiB below 1 TiB.
   * @param {number | null | undefined} n
   */
  const bytes = (n) => {
    if (n == null) return "—";
    const a = Math.abs(n);
    if (a < 1024 ** 2) return `${num(n / 1024, 1)}\u00a0${kib}`;
    if (a < GIB) return `${num(n / 1024 ** 2, 0)}\u00a0${mib}`;
    if (a < 1024 * GIB) return `${num(n / GIB, 1)}\u00a0${gib}`;
    return `${num(n / 1024 ** 4, 2)}\u00a0${tib}`;
  };
  /**
   * A percentage in the locale's pattern.
   * @param {number | null | undefined} fraction
   * @param {number} [digits]
   */
  const pct = (fraction, digits = 0) => (fraction == null ? "—"
    : `${spec.percent[0]}${num(fraction * 100, digits)}${spec.percent[1]}`);
  /**
   * US dollars; two decimals by default, three below ten cents.
   * @param {number | null | undefined} value
   * @param {number} [digits]
   */
  const usd = (value, digits) => {
    if (value == null) return "—";
    const d = digits ?? (Math.abs(value) >= 0.1 || value === 0 ? 2 : 3);
    const text = num(Math.abs(value), d);
    const sign = value < 0 && text !== num(0, d) ? spec.minus : "";
    return `${sign}${spec.usd[0]}${text}${spec.usd[1]}`;
  };
  /**
   * A token count: 8K, 128K, 1M where exact, else grouped.
   * @param {number | null | undefined} n
   */
  const tokens = (n) => {
    if (n == null) return "—";
    if (n >= 1024 && n % 1024 === 0) {
      const k = n / 1024;
      return k < 1024 || k % 1024 ? `${num(k)}K` : `${num(k / 1024)}M`;
    }
    return num(n);
  };
  return { num, sig, bytes, pct, usd, tokens };
}

/**
 * A shell word as Python's shlex.quote writes it.
 * @param {string} word
 */
function quote(word) {
  if (word === "") return "''";
  if (/^[\w@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, "'\"'\"'")}'`;
}

/** @param {string[]} parts */
const join = (parts) => parts.map(quote).join(" ");

/** @type {Record<string, "awq" | "gptq" | "fp8">} */
const VLLM_REPOS = { AWQ: "awq", GPTQ: "gptq", FP8: "fp8" };

/**
 * [command text, repo id] that starts the model as `i` says, or null when the engine has no command
 * or no published checkpoint serves the format.
 * @param {CommandModel} model
 * @param {Artifacts} art
 * @param {number} memoryUtilization the engine profile's share of device memory (vLLM)
 * @param {CommandInputs} i
 * @returns {[string, string] | null}
 */
export function launchCommand(model, art, memoryUtilization, i) {
  if (i.engine === "llama.cpp") {
    const repo = art.gguf.length ? art.gguf[0] : "";
    const source = repo ? ["-hf", `${repo}:${i.quant.toUpperCase()}`] : ["-m", `${model.slug}-${i.quant}.gguf`];
    const layers = i.offload ? String(Math.round(model.architecture.num_layers * (1 - i.offload))) : "99";
    const parts = ["llama-server", ...source, "-c", String(i.context * i.batch), "-ngl", layers, "-fa", "on"];
    if (i.kv_dtype === "q8_0" || i.kv_dtype === "q4_0") parts.push("-ctk", i.kv_dtype, "-ctv", i.kv_dtype);
    if (i.batch > 1) parts.push("--parallel", String(i.batch));
    if (i.gpus > 1) parts.push("--split-mode", "layer");
    return [join(parts), repo];
  }
  if (i.engine === "vllm") {
    const family = VLLM_REPOS[i.quant];
    const repos = family ? art[family] : [];
    if ((family === "awq" || family === "gptq") && !repos.length) return null;
    const repo = repos.length ? repos[0] : model.hf_id;
    const parts = ["vllm", "serve", repo, "--max-model-len", String(i.context)];
    parts.push("--gpu-memory-utilization", pyFloat(memoryUtilization));
    if (i.quant === "FP8" && !repos.length) parts.push("--quantization", "fp8");
    if (i.gpus > 1) parts.push("--tensor-parallel-size", String(i.gpus));
    if (i.kv_dtype === "fp8") parts.push("--kv-cache-dtype", "fp8");
    if (i.batch > 1) parts.push("--max-num-seqs", String(i.batch));
    return [join(parts), repo];
  }
  if (i.engine === "ollama") {
    return art.ollama ? [`FROM ${art.ollama}\nPARAMETER num_ctx ${i.context}`, art.ollama] : null;
  }
  if (i.engine === "mlx") {
    if (!art.mlx.length) return null;
    return [join(["mlx_lm.server", "--model", art.mlx[0], "--max-tokens", String(Math.min(i.context, 4096))]), art.mlx[0]];
  }
  return null;
}

/**
 * A float as Python's str() writes it (1.0, not 1).
 * @param {number} v
 */
function pyFloat(v) {
  return Number.isInteger(v) ? `${v}.0` : String(v);
}

/**
 * Devices a command is written for: the scenario's when it fits, else the fewest that fit.
 * @param {{ verdict: string, min_gpus: number | null }} keys
 * @param {number} gpus
 */
export function commandGpus(keys, gpus) {
  return keys.verdict !== "oom" ? gpus : keys.min_gpus || gpus;
}

/**
 * The memory chart's segments (weights, KV cache, runtime) as [x, width] in SVG units, the usable-memory
 * mark's x, and whether its label sits left of the mark.
 * @param {MemoryKeys} keys
 * @param {ChartGeometry} g
 * @returns {{ segments: [string, number, number][], usable_x: number, label_end: boolean }}
 */
export function memoryBars(keys, g) {
  const scale = Math.max(keys.total_bytes, keys.usable_bytes) || 1;
  /** @type {[string, number][]} */
  const parts = [["weights", keys.weights_bytes], ["kv_cache", keys.kv_cache_bytes], ["overhead", keys.overhead_bytes]];
  /** @type {[string, number, number][]} */
  const segments = [];
  let x = g.x0;
  for (const [key, n] of parts) {
    const w = (n / scale) * g.width;
    segments.push([key, x, w]);
    x += w;
  }
  const usable = g.x0 + (keys.usable_bytes / scale) * g.width;
  return { segments, usable_x: usable, label_end: usable > g.flip_at };
}
