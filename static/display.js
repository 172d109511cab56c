// @ts-check
// What a page shows besides the sizing numbers, written once for the browser the way Python writes it:
// number formatting (generator/site/i18n.py NumberFormat), launch commands (generator/site/commands.py)
// and the memory chart's geometry (generator/site/charts.py). The parity vectors run both on the same
// inputs and require equal text, so a page reads the same before and after JavaScript runs.
// No DOM: it runs in node and in the browser.

/**
 * @typedef {{ group: string, decimal: string, minus: string, percent: [string, string], usd: [string, string],
 *   units: [string, string, string, string] }} NumberSpec how a language writes numbers (from CLDR)
 * @typedef {{ gguf: string[], awq: string[], gptq: string[], fp8: string[], mlx: string[], mxfp4: string[],
 *   ollama: string | null }} Artifacts published checkpoints of a model
 * @typedef {{ slug: string, hf_id: string, architecture: { num_layers: number, max_context: number },
 *   vision: object | null, long_context: { factor: number, original_context: number } | null }} CommandModel
 * @typedef {{ engine: string, quant: string, context: number, batch: number, gpus: number, kv_dtype: string,
 *   offload: number, vision: boolean, dtype?: string }} CommandInputs
 * @typedef {{ x0: number, width: number, flip_at: number, label_min: number }} ChartGeometry the memory chart's SVG units
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

/**
 * The commands that make a GGUF file where no GGUF repo is published (commands.py _gguf_steps):
 * download, convert to a 16-bit GGUF, quantize unless F16 is wanted.
 * @param {CommandModel} model
 * @param {string} quant
 */
function ggufSteps(model, quant) {
  const f16 = `${model.slug}-F16.gguf`;
  const steps = [join(["hf", "download", model.hf_id, "--local-dir", model.slug]),
    join(["python", "convert_hf_to_gguf.py", model.slug, "--outtype", "f16", "--outfile", f16])];
  if (quant !== "F16") steps.push(join(["llama-quantize", f16, `${model.slug}-${quant}.gguf`, quant]));
  return steps;
}

/** @type {Record<string, "awq" | "gptq" | "fp8" | "mxfp4">} */
const VLLM_REPOS = { AWQ: "awq", GPTQ: "gptq", FP8: "fp8", MXFP4: "mxfp4" };

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
    const parts = ["llama-server", ...source, "-c", String(i.context * i.batch), "-ngl", layers];
    // A quantized V cache needs flash attention; otherwise llama.cpp's default (auto) decides.
    if (i.kv_dtype === "q8_0" || i.kv_dtype === "q4_0") parts.push("-fa", "on", "-ctk", i.kv_dtype, "-ctv", i.kv_dtype);
    if (i.batch > 1) parts.push("--parallel", String(i.batch));
    if (i.gpus > 1) parts.push("--split-mode", "layer");
    const lc = model.long_context;
    if (lc && i.context > model.architecture.max_context) {
      parts.push("--rope-scaling", "yarn", "--rope-scale", String(lc.factor), "--yarn-orig-ctx", String(lc.original_context));
    }
    if (model.vision && !i.vision) parts.push("--no-mmproj"); // -hf would load the vision encoder too
    return [[...(repo ? [] : ggufSteps(model, i.quant)), join(parts)].join("\n"), repo];
  }
  if (i.engine === "vllm") {
    const family = VLLM_REPOS[i.quant];
    const repos = family ? art[family] : [];
    if ((family === "awq" || family === "gptq" || family === "mxfp4") && !repos.length) return null;
    const repo = repos.length ? repos[0] : model.hf_id;
    const parts = ["vllm", "serve", repo, "--max-model-len", String(i.context)];
    parts.push("--gpu-memory-utilization", pyFloat(memoryUtilization));
    if (i.quant === "FP8" && !repos.length) parts.push("--quantization", "fp8");
    if (i.gpus > 1) parts.push("--tensor-parallel-size", String(i.gpus));
    if (i.kv_dtype === "fp8") parts.push("--kv-cache-dtype", "fp8");
    if (i.batch > 1) parts.push("--max-num-seqs", String(i.batch));
    if (i.dtype) parts.push("--dtype", i.dtype);
    const yarn = model.long_context;
    if (yarn && i.context > model.architecture.max_context) {
      const factor = Number.isInteger(yarn.factor) ? yarn.factor.toFixed(1) : String(yarn.factor);
      parts.push("--hf-overrides", `{"rope_scaling":{"rope_type":"yarn","factor":${factor},` +
        `"original_max_position_embeddings":${yarn.original_context}}}`);
    }
    return [join(parts), repo];
  }
  if (i.engine === "ollama") {
    if (!art.ollama) return null;
    // The server settings the scenario needs (commands.py ollama_env): a quantized K/V cache with flash
    // attention, and several sequences at once.
    const env = [];
    if (i.kv_dtype === "q8_0" || i.kv_dtype === "q4_0") env.push("OLLAMA_FLASH_ATTENTION=1", `OLLAMA_KV_CACHE_TYPE=${i.kv_dtype}`);
    if (i.batch > 1) env.push(`OLLAMA_NUM_PARALLEL=${i.batch}`);
    const lines = env.length ? [`# start the server with: ${env.join(" ")} ollama serve`] : [];
    return [[...lines, `FROM ${art.ollama}`, `PARAMETER num_ctx ${i.context}`].join("\n"), art.ollama];
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

/**
 * The page's query string with `keys` set from `mine` (removed where `mine` lacks them) and every other
 * key kept, so each section of a page keeps its own state in one URL.
 * @param {string} current location.search
 * @param {string[]} keys
 * @param {URLSearchParams} mine
 */
export function mergeQuery(current, keys, mine) {
  const search = new URLSearchParams(current);
  for (const key of keys) {
    const value = mine.get(key);
    if (value) search.set(key, value);
    else search.delete(key);
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

/**
 * Hours of use a day as a reader typed them: at most 24, the catalog's when empty, zero or not a number.
 * @param {FormDataEntryValue | null} value
 * @param {number} fallback
 */
export function hoursADay(value, fallback) {
  const hours = Number(value);
  return Number.isFinite(hours) && hours > 0 ? Math.min(hours, 24) : fallback;
}

/**
 * @typedef {{ width: number, height: number, left: number, right: number, top: number, bottom: number }} ValueGeometry
 * @typedef {{ label: string, usd: number, tok_s: number, x: number, y: number, frontier: number }} ValuePoint
 * @typedef {{ value: number, pos: number }} Tick
 * @typedef {{ points: ValuePoint[], frontier: ValuePoint[], path: string, x_ticks: Tick[], y_ticks: Tick[],
 *   box: [number, number, number, number], y_digits: number }} ValueChart
 */

/**
 * The price-against-speed chart of `[label, price, tok/s]` setups, or null when none has a price:
 * generator/site/charts.py value_chart line by line (the parity vectors check it).
 * @param {[string, number, number][]} setups
 * @param {ValueGeometry} g
 * @returns {ValueChart | null}
 */
export function valueChart(setups, g) {
  const pts = setups.filter((s) => s[1] > 0 && s[2] > 0)
    .sort((a, b) => a[1] - b[1] || b[2] - a[2] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  if (!pts.length) return null;
  const x0 = g.left;
  const x1 = g.width - g.right;
  const y0 = g.height - g.bottom;
  const y1 = g.top;
  const lo = Math.floor(Math.log10(pts[0][1]));
  const hi = Math.max(lo + 1, Math.ceil(Math.log10(Math.max(...pts.map((p) => p[1])))));
  const most = Math.max(...pts.map((p) => p[2]));
  const k = Math.floor(Math.log10(most));
  let top = 0;
  let step = 0;
  for (const [m, parts] of [[1, 5], [2, 4], [5, 5], [10, 5]]) {
    if (m * 10 ** k >= most) { top = m * 10 ** k; step = top / parts; break; }
  }
  const px = (/** @type {number} */ usd) => x0 + (Math.log10(usd) - lo) / (hi - lo) * (x1 - x0);
  const py = (/** @type {number} */ tokS) => y0 + tokS / top * (y1 - y0);
  /** @type {ValuePoint[]} */
  const points = [];
  let best = 0;
  let rank = 0;
  for (const [label, usd, tokS] of pts) {
    const on = tokS > best;
    if (on) { best = tokS; rank += 1; }
    points.push({ label, usd, tok_s: tokS, x: px(usd), y: py(tokS), frontier: on ? rank : 0 });
  }
  const frontier = points.filter((p) => p.frontier);
  /** @type {Tick[]} */
  const xTicks = [];
  for (let e = lo; e <= hi; e++) xTicks.push({ value: e, pos: px(10 ** e) });
  for (let e = lo; e < hi; e++) xTicks.push({ value: e + 0.5, pos: px(3 * 10 ** e) });
  /** @type {Tick[]} */
  const yTicks = [];
  const n = Math.round(top / step);
  for (let i = 0; i <= n; i++) yTicks.push({ value: step * i, pos: py(step * i) });
  const path = frontier.map((p) => `${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(" ");
  return { points, frontier, path, x_ticks: xTicks, y_ticks: yTicks, box: [x0, x1, y0, y1], y_digits: step < 1 ? 1 : 0 };
}

/**
 * Whether a checkpoint of the format is published for the model (16-bit weights: the model's own); the
 * rule of generator/site/setups.py `available`, which finder.js applies too.
 * @param {Artifacts} art
 * @param {string} fmt
 * @param {string} family
 */
export function hasCheckpoint(art, fmt, family) {
  const lists = { gguf: art.gguf, mlx: art.mlx, AWQ: art.awq, GPTQ: art.gptq, MXFP4: art.mxfp4 };
  const list = family === "gguf" || family === "mlx" ? lists[family]
    : fmt === "AWQ" || fmt === "GPTQ" || fmt === "MXFP4" ? lists[fmt] : null;
  return list == null || list.length > 0;
}
