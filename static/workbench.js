// @ts-check
// Interactive workbench on pair pages: the controls re-run the sizing model (sizing.js, the same
// numbers as the build) and every [data-field] element shows the new value. Without JavaScript the
// section stays hidden and the static report is complete.

/**
 * @typedef {import("./sizing.js").Model} Model
 * @typedef {import("./sizing.js").Hardware} Hardware
 * @typedef {import("./sizing.js").QuantFormat} QuantFormat
 * @typedef {import("./sizing.js").KVDtype} KVDtype
 * @typedef {import("./sizing.js").EngineProfile} EngineProfile
 * @typedef {import("./sizing.js").FormatFamily} FormatFamily
 * @typedef {import("./sizing.js").Assumptions} Assumptions
 * @typedef {import("./sizing.js").Calibration} Calibration
 * @typedef {import("./sizing.js").Ranges} Ranges
 * @typedef {import("./sizing.js").CloudOffer} CloudOffer
 * @typedef {import("./sizing.js").ApiPrice} ApiPrice
 * @typedef {import("./sizing.js").Scenario} Scenario
 * @typedef {import("./sizing.js").Verdict} Verdict
 * @typedef {import("./sizing.js").Estimate} Estimate
 * @typedef {import("./display.js").Artifacts} Artifacts
 * @typedef {import("./display.js").NumberSpec} NumberSpec
 * @typedef {import("./display.js").CommandInputs} CommandInputs
 * @typedef {import("./display.js").ChartGeometry} ChartGeometry
 * @typedef {{ hardware: string, scenario: Choice, model_url: string, ui_url: string, vision_warning?: string }} PageData #wb-data:
 *   this page's own
 * @typedef {{ sizing_url: string, display_url: string, shared_url: string, finder_data_url: string }} AssetUrls
 *   #wb-assets in the controls' file
 * @typedef {{ model: Model, artifacts: Artifacts, api_prices: ApiPrice[], context_steps: number[] }} ModelData
 *   model-<slug>.json: the same on every pair page of a model
 * @typedef {{ hardware: Hardware[], offers: (CloudOffer & { hardware: string })[],
 *   rules: import("./finder.js").Rules }} FinderData finder-data.json
 * @typedef {{ model: Model, hardware: Hardware, offers: CloudOffer[], api_prices: ApiPrice[], context_steps: number[],
 *   artifacts: Artifacts }} PairFacts what the sizing model gets of this pair
 * @typedef {{ formats: QuantFormat[], kv_cache: KVDtype[], engines: EngineProfile[], assumptions: Assumptions,
 *   calibration: Calibration, hardware_names: [string, string][], ranges: Ranges,
 *   family_engine: Record<FormatFamily, import("./sizing.js").EngineName>, memory_chart: ChartGeometry }} SharedData
 *   sizing-data.json
 * @typedef {{ tok_s: string, seconds: string, tokens: string, comfortable: string, tight: string, oom: string,
 *   banner: string, short: string, headroom: string, usable: string, range_extrapolated: string, sim_prefill: string, sim_decode: string,
 *   sim_done: string, sim_reading: string, sim_text: string, sim_code: string, per_hour: string, months: string,
 *   budget_buys: string, budget_power: string, budget_short: string, budget_rent: string, budget_api: string, describe: Record<"weights" | "weights_host" | "weights_vision" | "weights_text" |
 *   "weights_host_vision" | "weights_host_text" | "kv_one" |
 *   "kv_many" | "runtime" | "host_both" | "host_layers" | "host_embedding" | "static_one" | "static_many", string>
 *   host_row: string, command_oom: string, vision_always: string, reasons: Record<keyof typeof import("./sizing.js").REASONS, string> }} Messages #wb-i18n:
 *   templates
 *   with {names}
 * @typedef {{ quant: string, engine: string, kv_dtype: string, context: number, batch: number, gpus: number,
 *   offload: number, vision: boolean }} Choice the form's scenario
 * @typedef {HTMLFormElement & { quant: HTMLSelectElement, engine: HTMLSelectElement,
 *   kv_dtype: HTMLSelectElement, context: HTMLInputElement }} Form
 * @typedef {HTMLInputElement | HTMLSelectElement} Control
 */
/**
 * @template {string} K
 * @typedef {HTMLElement & { dataset: Record<K, string> }} WithData an element matched by [data-K]
 */

const root = document.getElementById("workbench");
const dataEl = document.getElementById("wb-data");
// The scenario's keys in the URL: the form's names (the CLI's words), and the compared accelerator.
const SCENARIO_KEYS = ["quant", "engine", "kv_dtype", "context", "batch", "gpus", "offload", "vision"];
// The cost inputs: hours of use a day and the electricity price (the catalog's assumptions by default).
const COST_KEYS = ["hours", "kwh", "budget"];
const URL_KEYS = [...SCENARIO_KEYS, "compare", ...COST_KEYS];

/**
 * Whether a number control takes ``n``: finite, within its min and max, and whole where its step is 1.
 * @param {HTMLInputElement} control
 * @param {number} n
 */
export function inRange(control, n) {
  const low = control.min === "" ? -Infinity : Number(control.min);
  const high = control.max === "" ? Infinity : Number(control.max);
  return Number.isFinite(n) && n >= low && n <= high && (control.step !== "1" || Number.isInteger(n));
}

/**
 * A count from a form value: rounded, at least ``low`` and at most ``high`` (``low`` when it is no number).
 * @param {FormDataEntryValue | null} value
 * @param {number} low
 * @param {number} high
 */
export function whole(value, low, high) {
  const n = Math.round(Number(value));
  return Number.isFinite(n) ? Math.min(Math.max(n, low), high) : low;
}
// The banner's figures that only a setup that fits has (its speeds and its cost per token).
const RUNNING_ONLY = new Set(["decode_tok_s", "ttft_s", "prefill_tok_s", "usd_per_mtok"]);

/**
 * @param {string} template
 * @param {Record<string, string>} values
 */
function interpolate(template, values) {
  return template.replace(/\{(\w+)\}/g, (_, key) => (key in values ? values[key] : `{${key}}`));
}

/**
 * @template T
 * @param {string} url
 * @returns {Promise<T>}
 */
async function getJson(url) {
  return (await fetch(url)).json();
}

// The page carries only #wb-data; the controls (one file per language), the model's data, the
// accelerators with their offers, and the sizing model are shared, fingerprinted and cached.
/**
 * The simulator's text cut into pieces of about one token each: a Chinese character, a punctuation
 * mark, a run of spaces, or a word piece of at most four letters with the space before it (English
 * averages about four characters a token).
 * @param {string} text
 */
export function simPieces(text) {
  const han = "[\\u3000-\\u9fff\\uff00-\\uffef]";
  const re = new RegExp(`${han}|[ \\t]*(?:(?!${han})[\\p{L}\\p{N}_]){1,4}|[ \\t]*[^\\p{L}\\p{N}_\\s]|\\s+`, "gu");
  return text.match(re) ?? [];
}

/**
 * The first ``n`` pieces, starting over once the text runs out.
 * @param {string[]} pieces
 * @param {number} n
 */
export function simText(pieces, n) {
  let out = "";
  for (let i = 0; i < n && pieces.length; i++) out += pieces[i % pieces.length];
  return out;
}

/**
 * Sets an element's text only where it differs, so that drawing the numbers the page already shows
 * changes nothing and lays nothing out again.
 * @param {Node} el
 * @param {string} text
 */
function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

/**
 * The Related section's list of every accelerator (the controls' #wb-devices, the same on every pair
 * page of a language), with this page's own accelerator marked rather than linked. Without JavaScript
 * the section links the model page's list instead.
 * @param {HTMLElement} related the Related section
 * @param {string} slug this page's accelerator
 */
function linkEveryDevice(related, slug) {
  const frame = /** @type {HTMLTemplateElement | null} */ (document.getElementById("wb-devices"));
  const cols = related.querySelector(".cols");
  if (!frame || !cols) return;
  const list = document.createElement("div");
  list.className = "every-device";
  list.append(frame.content.cloneNode(true));
  const own = list.querySelector(`a[href="../${CSS.escape(slug)}/"]`);
  if (own) {
    const here = document.createElement("strong");
    here.setAttribute("aria-current", "page");
    here.textContent = own.textContent;
    own.replaceWith(here);
  }
  cols.after(list);
}

/**
 * @param {HTMLElement} root
 * @param {HTMLElement} dataEl
 */
async function main(root, dataEl) {
  /** @type {PageData} */
  const page = JSON.parse(dataEl.textContent);
  // The page leaves out the inputs at their defaults (Scenario.brief_inputs).
  page.scenario = Object.assign({ batch: 1, gpus: 1, offload: 0, vision: false }, page.scenario);
  const ownData = /** @type {Promise<ModelData>} */ (getJson(page.model_url));
  root.insertAdjacentHTML("beforeend", await (await fetch(page.ui_url)).text());
  /** @type {AssetUrls} */
  const urls = JSON.parse(/** @type {HTMLElement} */ (document.getElementById("wb-assets")).textContent);
  const [sizing, view, shared, finder, own] = await Promise.all([
    /** @type {Promise<typeof import("./sizing.js")>} */ (import(urls.sizing_url)),
    /** @type {Promise<typeof import("./display.js")>} */ (import(urls.display_url)),
    /** @type {Promise<SharedData>} */ (getJson(urls.shared_url)),
    /** @type {Promise<FinderData>} */ (getJson(urls.finder_data_url)),
    ownData]);
  const hardware = /** @type {Hardware} */ (finder.hardware.find((h) => h.slug === page.hardware));
  /** @type {PairFacts & SharedData} */
  const data = { ...shared, ...own, hardware, offers: finder.offers.filter((o) => o.hardware === page.hardware) };
  /** @type {Messages} */
  const t = JSON.parse(/** @type {HTMLElement} */ (document.getElementById("wb-i18n")).textContent);
  /** @type {NumberSpec} */
  const spec = JSON.parse(/** @type {HTMLElement} */ (document.getElementById("wb-spec")).textContent);
  const compareMenu = /** @type {HTMLSelectElement} */ (document.getElementById("wb-compare"));
  for (const h of finder.hardware) {
    if (h.slug !== hardware.slug) compareMenu.append(new Option(h.name, h.slug));
  }
  /** @type {HTMLElement} */ (document.getElementById("wb-cmp-a")).textContent = hardware.name;
  // The same formatting as the build (display.js mirrors i18n.py's NumberFormat; parity vectors check it).
  const { num, sig, bytes, pct, usd, tokens } = view.numberFormat(spec);
  /** @param {number | null} v */
  const tokS = (v) => (v == null ? "—" : interpolate(t.tok_s, { n: sig(v) }));
  /** @param {number | null} v */
  const secs = (v) => (v == null ? "—" : interpolate(t.seconds, { n: sig(v) }));
  /** @param {Verdict} v */
  const verdictHtml = (v) => {
    const span = document.createElement("span");
    span.className = v === "comfortable" ? "ok" : v; // the badge classes of site.css
    span.textContent = t[v];
    return span;
  };

  /** @type {{ [K in keyof Estimate]?: (v: Estimate[K]) => string | Node }} */
  const display = {
    verdict: (v) => verdictHtml(v),
    max_context: (v) => interpolate(t.tokens, { n: num(v) }),
    min_gpus: (v) => (v == null ? "—" : num(v)),
    decode_tok_s: tokS, prefill_tok_s: tokS, ttft_s: secs, usd_per_mtok: usd, utilization: (v) => pct(v),
    cloud_usd_per_hour: (v) => (v == null ? "—" : interpolate(t.per_hour, { usd: usd(v) })),
    power_usd_per_hour: (v) => (v == null ? "—" : interpolate(t.per_hour, { usd: usd(v) })),
    monthly_usd: (v) => (v == null ? "—" : usd(v, 0)),
    breakeven_months: (v) => (v == null ? "—" : interpolate(t.months, { n: num(v, 1) })),
    decode_tok_s_low: sig, decode_tok_s_high: sig, prefill_tok_s_low: sig, prefill_tok_s_high: sig,
    ttft_s_low: sig, ttft_s_high: sig,
  };
  /**
   * @template {keyof Estimate} K
   * @param {K} key
   * @param {Estimate[K]} v
   * @returns {string | Node}
   */
  const format = (key, v) => (display[key] ? display[key](v) // every other output the page shows is a number
    : key.endsWith("_bytes") ? bytes(/** @type {number} */ (v)) : num(/** @type {number | null} */ (v)));

  const form = /** @type {Form} */ (document.getElementById("wb-form"));
  const errorEl = /** @type {HTMLElement} */ (document.getElementById("wb-error"));
  const steps = data.context_steps;
  // The page's scenario into the shared controls.
  const start = page.scenario;
  form.context.max = String(sizing.maxContextOf(data.model));
  const slider = /** @type {HTMLInputElement} */ (form.querySelector("[name=context_slider]"));
  slider.max = String(steps.length - 1);
  const presets = /** @type {HTMLElement} */ (root.querySelector(".presets"));
  for (const c of steps) {
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.context = String(c);
    b.textContent = tokens(c);
    presets.append(b);
  }
  const vision = /** @type {HTMLInputElement} */ (form.elements.namedItem("vision"));
  // Only a multimodal model has a vision encoder to load.
  /** @type {HTMLElement} */ (vision.closest("div")).hidden = !data.model.vision;
  for (const [name, value] of Object.entries(start)) {
    const control = /** @type {Control} */ (form.elements.namedItem(name));
    if (control === vision) vision.checked = value === true;
    else control.value = String(value);
  }
  // A shared link's scenario (the URL's keys are the form's names) wins over the page's own; values a
  // control cannot take are ignored: an option it lacks, a number outside its min and max (the command
  // line's ranges, or narrower), a fraction where it counts whole things (devices, sequences, tokens).
  const params = new URLSearchParams(location.search);
  for (const name of [...SCENARIO_KEYS, ...COST_KEYS]) {
    const value = params.get(name);
    const control = /** @type {Control | null} */ (form.elements.namedItem(name));
    if (value == null || !control) continue;
    if (control === vision) vision.checked = value === "true";
    else if (control instanceof HTMLSelectElement) {
      if ([...control.options].some((o) => o.value === value)) control.value = value;
    } else if (value.trim() !== "" && inRange(control, Number(value))) control.value = value;
  }
  const facts = { assumptions: data.assumptions, calibration: data.calibration, ranges: data.ranges,
    offers: data.offers, api_prices: data.api_prices };
  /** @type {{ keys: Estimate, s: Choice } | null} */
  let current = null;

  /** The facts with the reader's hours of use and electricity price (the catalog's when left as is). */
  const costFacts = () => {
    const f = new FormData(form);
    const kwh = Number(f.get("kwh"));
    return { ...facts, assumptions: { ...facts.assumptions,
      hours_per_day: view.hoursADay(f.get("hours"), facts.assumptions.hours_per_day),
      electricity_usd_per_kwh: inRange(/** @type {HTMLInputElement} */ (form.elements.namedItem("kwh")), kwh)
        ? kwh : facts.assumptions.electricity_usd_per_kwh } };
  };

  /**
   * Why a scenario cannot run, in the page's language ("" when it can).
   * @param {Hardware} hw
   * @param {Scenario} sc
   */
  const reason = (hw, sc) => {
    const problem = sizing.scenarioProblem(data.model, hw, sc);
    return problem ? interpolate(t.reasons[problem[0]], problem[1]) : "";
  };

  /**
   * The largest value the number control ``name`` takes.
   * @param {string} name
   */
  const limit = (name) => Number(/** @type {HTMLInputElement} */ (form.elements.namedItem(name)).max);

  /** @returns {Choice} */
  function read() {
    const f = new FormData(form);
    // Select values: strings.
    return {
      quant: /** @type {string} */ (f.get("quant")), engine: /** @type {string} */ (f.get("engine")),
      kv_dtype: /** @type {string} */ (f.get("kv_dtype")),
      context: whole(f.get("context"), 1, sizing.maxContextOf(data.model)),
      batch: whole(f.get("batch"), 1, limit("batch")), gpus: whole(f.get("gpus"), 1, limit("gpus")),
      // The box as shown (FormData leaves out a disabled one, checked or not).
      offload: Math.min(Math.max(Number(f.get("offload")) || 0, 0), limit("offload")), vision: vision.checked,
    };
  }

  /**
   * Rewrite the launch commands: the block of the scenario's engine follows the whole scenario (format,
   * KV cache, devices, offload); the other engines keep their own format and follow context and batch.
   * @param {Estimate} keys
   * @param {Choice} s
   */
  function renderCommands(keys, s) {
    for (const code of /** @type {NodeListOf<WithData<"inputs">>} */ (document.querySelectorAll("[data-inputs]"))) {
      // The block's inputs are the page's scenario but for those it names.
      /** @type {CommandInputs} */
      const own = { ...page.scenario, ...JSON.parse(code.dataset.inputs) };
      const profile = /** @type {EngineProfile} */ (data.engines.find((e) => e.name === own.engine));
      const engine = /** @type {EngineProfile} */ (data.engines.find((e) => e.name === s.engine));
      /** @type {CommandInputs} */
      const scenario = { engine: s.engine, quant: s.quant, context: s.context, batch: s.batch,
        gpus: view.commandGpus(keys, s.gpus), kv_dtype: s.kv_dtype, offload: s.offload, vision: s.vision,
        dtype: sizing.dtypeOn(engine, hardware, s.quant) };
      // A format with no published checkpoint for this engine keeps the block's own format.
      const chosen = own.engine === s.engine
        ? view.launchCommand(data.model, data.artifacts, profile.memory_utilization, scenario) : null;
      const inputs = chosen ? scenario : { ...own, context: s.context, batch: s.batch };
      const built = chosen || view.launchCommand(data.model, data.artifacts, profile.memory_utilization, inputs);
      if (!built) continue;
      setText(code, built[0]);
      const pre = /** @type {HTMLPreElement} */ (code.closest("pre"));
      const heading = pre.previousElementSibling?.querySelector("[data-command-format]");
      if (heading) setText(heading, inputs.quant);
      // Whether the block's format fits the scenario's devices (as commands.follow says at build time).
      const fits = chosen ? keys.verdict !== "oom" : commandFits({ ...inputs, gpus: s.gpus });
      let note = pre.nextElementSibling instanceof HTMLParagraphElement && "commandNote" in pre.nextElementSibling.dataset
        ? pre.nextElementSibling : null;
      if (fits) note?.remove();
      else if (!note) {
        note = document.createElement("p");
        note.className = "note";
        note.dataset.commandNote = "";
        note.textContent = t.command_oom;
        pre.after(note);
      }
    }
  }

  /**
   * The banner's warnings follow the engine where one depends on it: a multimodal model on an engine that
   * profiles image inputs at start-up (estimate.py VISION_PROFILE, appended last, as the build does).
   * @param {Estimate} keys
   */
  function renderWarnings(keys) {
    const template = page.vision_warning;
    if (!template) return;
    const banner = /** @type {HTMLElement} */ (document.getElementById("banner"));
    const texts = new Set(data.engines.map((e) => interpolate(template, { engine: e.label })));
    let list = banner.querySelector("ul.warnings");
    for (const li of list ? [...list.children] : []) if (texts.has(li.textContent || "")) li.remove();
    const eng = /** @type {EngineProfile} */ (data.engines.find((e) => e.name === keys.engine));
    if (eng.compute_buffer === "activation_profile") {
      if (!list) {
        list = document.createElement("ul");
        list.className = "warnings";
        banner.append(list);
      }
      const li = document.createElement("li");
      li.lang = "en";
      li.textContent = interpolate(template, { engine: eng.label });
      list.append(li);
    }
    if (list && !list.children.length) list.remove();
  }

  /**
   * Whether a command's format fits at its context, batch and device count (its engine's default KV).
   * @param {CommandInputs} i
   */
  function commandFits(i) {
    const profile = /** @type {EngineProfile} */ (data.engines.find((e) => e.name === i.engine));
    const sc = sizing.scenario(data, { ...i, kv_dtype: i.kv_dtype || profile.default_kv_dtype });
    if (!sc.fmt || !sc.engine || !sc.kv || reason(data.hardware, /** @type {Scenario} */ (sc))) return false;
    return sizing.estimate(data.model, data.hardware, /** @type {Scenario} */ (sc), costFacts()).verdict !== "oom";
  }

  /**
   * @param {Estimate} keys
   * @param {Choice} s
   */
  function render(keys, s) {
    // A setup that does not fit has no speed and no cost per token (as the build prints it).
    const runs = keys.verdict !== "oom";
    for (const el of /** @type {NodeListOf<WithData<"field">>} */ (document.querySelectorAll("[data-field]"))) {
      const key = /** @type {keyof Estimate} */ (el.dataset.field); // an output's name, or skipped below
      if (!(key in keys)) continue;
      const v = keys[key];
      const value = v == null ? "" : String(v);
      if (el.dataset.value !== value) el.dataset.value = value;
      const shown = runs || !RUNNING_ONLY.has(key) ? format(key, v) : "—";
      if (!(shown instanceof Element)) setText(el, String(shown));
      else if (el.childElementCount !== 1 || el.firstElementChild?.outerHTML !== shown.outerHTML) el.replaceChildren(shown);
    }
    for (const el of /** @type {NodeListOf<WithData<"range">>} */ (document.querySelectorAll("[data-range]"))) {
      if (!runs) { el.textContent = ""; continue; }
      const low = /** @type {keyof Estimate} */ (`${el.dataset.range}_low`);
      const high = /** @type {keyof Estimate} */ (`${el.dataset.range}_high`);
      const values = { low: String(format(low, keys[low])), high: String(format(high, keys[high])) };
      // Decode has its own calibration; prefill and time to first token share one.
      const wide = el.dataset.range === "decode_tok_s" ? keys.decode_extrapolated : keys.prefill_extrapolated;
      setText(el, wide ? interpolate(t.range_extrapolated, values) : `(${values.low}–${values.high})`);
    }
    const banner = /** @type {HTMLElement} */ (document.getElementById("banner"));
    if (banner.className !== `banner v-${keys.verdict}`) banner.className = `banner v-${keys.verdict}`;
    const p = /** @type {HTMLParagraphElement} */ (banner.querySelector("p"));
    const engineLabel = /** @type {EngineProfile} */ (data.engines.find((e) => e.name === keys.engine)).label;
    setText(p, `${interpolate(t.banner, { quant: keys.quant, engine: engineLabel, ctx: tokens(s.context),
      total: bytes(keys.total_bytes), usable: bytes(keys.usable_bytes), pct: pct(keys.utilization) })} ${
      keys.verdict === "oom" ? interpolate(t.short, { over: bytes(keys.total_bytes - keys.usable_bytes) })
        : interpolate(t.headroom, { h: bytes(keys.headroom_bytes) })}`);
    const svg = document.getElementById("memchart");
    if (svg) {
      const chart = view.memoryBars(keys, data.memory_chart);
      const sizes = { weights: keys.weights_bytes, kv_cache: keys.kv_cache_bytes, overhead: keys.overhead_bytes };
      for (const [cls, x, w] of chart.segments) {
        // The memory_chart macro draws the three bars; a size label goes in those wide enough.
        const rect = /** @type {SVGRectElement} */ (svg.querySelector(`rect.seg-${cls}`));
        rect.setAttribute("x", x.toFixed(1));
        rect.setAttribute("width", w.toFixed(1));
        let label = svg.querySelector(`text.seg-label[data-seg=${cls}]`);
        if (w < data.memory_chart.label_min) { label?.remove(); continue; }
        if (!label) {
          label = document.createElementNS("http://www.w3.org/2000/svg", "text");
          label.setAttribute("class", "seg-label");
          label.setAttribute("data-seg", cls);
          label.setAttribute("y", "42");
          label.setAttribute("text-anchor", "middle");
          svg.append(label);
        }
        label.setAttribute("x", (x + w / 2).toFixed(1));
        label.textContent = bytes(sizes[/** @type {keyof typeof sizes} */ (cls)]);
      }
      // The labels in the macro's order: after the bars, by segment, before the usable-memory mark.
      const mark = svg.querySelector("line.limit");
      for (const [cls] of chart.segments) {
        const label = svg.querySelector(`text.seg-label[data-seg=${cls}]`);
        if (label) svg.insertBefore(label, mark);
      }
      const ux = chart.usable_x.toFixed(1);
      for (const line of svg.querySelectorAll("line.limit")) { line.setAttribute("x1", ux); line.setAttribute("x2", ux); }
      const label = svg.querySelector("text.limit-label");
      if (label) {
        label.setAttribute("x", ux);
        label.setAttribute("text-anchor", chart.label_end ? "end" : "start");
        label.textContent = interpolate(t.usable, { u: bytes(keys.usable_bytes) });
      }
    }
    renderCommands(keys, s);
    renderWarnings(keys);
    /** @type {HTMLOutputElement} */ (document.getElementById("wb-offload-out")).textContent = pct(s.offload);
    describeMemory(keys, s);
    summarize(keys, "");
    const assumptions = costFacts().assumptions;
    const hours = assumptions.hours_per_day;
    for (const el of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("[data-hours]"))) {
      setText(el, num(hours, Number.isInteger(hours) ? 0 : 1));
    }
    // Each offer's month for the scenario's devices at the chosen hours (cost.py offer_monthly).
    for (const el of /** @type {NodeListOf<WithData<"offerHour" | "offerGpus">>} */ (
      document.querySelectorAll("[data-offer-hour]"))) {
      const offer = { usd_per_hour: Number(el.dataset.offerHour), gpus: Number(el.dataset.offerGpus) };
      const monthly = sizing.offerMonthly(offer, s.gpus, data.hardware.chips, assumptions);
      if (el.dataset.value !== String(monthly)) el.dataset.value = String(monthly);
      setText(el, usd(monthly, 0));
    }
    renderBudget(keys);
    // Sections the workbench does not recompute ([data-static]) say so while another scenario is shown.
    const own = SCENARIO_KEYS.every((k) => String(s[/** @type {keyof Choice} */ (k)]) === String(start[/** @type {keyof Choice} */ (k)]));
    for (const note of staticNotes) if (note.hidden !== own) note.hidden = own;
  }

  // The result in one line that stays in view while the controls scroll (phones): verdict, memory, speed.
  const summary = document.createElement("p");
  summary.className = "wb-summary";
  summary.setAttribute("aria-live", "polite");
  /** @type {HTMLFormElement} */ (document.getElementById("wb-form")).after(summary);
  /**
   * @param {Estimate | null} keys
   * @param {string} problem
   */
  const summarize = (keys, problem) => {
    if (!keys) { summary.textContent = problem; return; }
    summary.replaceChildren(verdictHtml(keys.verdict), ` ${bytes(keys.total_bytes)} / ${bytes(keys.usable_bytes)} · ${
      keys.verdict === "oom" ? "—" : tokS(keys.decode_tok_s)}`);
  };

  // One note per [data-static] section, under its heading, naming the page's own scenario.
  const startEngine = /** @type {EngineProfile} */ (data.engines.find((e) => e.name === start.engine));
  const staticText = interpolate(start.gpus === 1 ? t.describe.static_one : t.describe.static_many, { fmt: start.quant,
    engine: startEngine.label, ctx: tokens(start.context), kv: start.kv_dtype, num: num(start.gpus) });
  const staticNotes = [...document.querySelectorAll("section[data-static] > h2")].map((h) => {
    const note = document.createElement("p");
    note.className = "note";
    note.dataset.defaultNote = "";
    note.hidden = true;
    note.textContent = staticText;
    h.after(note);
    return note;
  });

  /**
   * The memory table's "what it is" cells, from the same templates the build filled
   * (generator/site/cells.py memory_descriptions).
   * @param {Estimate} keys
   * @param {Choice} s
   */
  function describeMemory(keys, s) {
    const d = t.describe;
    const eng = /** @type {EngineProfile} */ (data.engines.find((e) => e.name === keys.engine));
    const fmt = /** @type {QuantFormat} */ (data.formats.find((f) => f.name === keys.quant));
    const tied = sizing.weightBytes(sizing.countParams(data.model), fmt).tied;
    const values = { params: num(keys.params_total), bpw: num(keys.effective_bpw, 2), ctx: num(s.context),
      num: num(s.batch), kv: keys.kv_dtype, engine: eng.label,
      vision: bytes(keys.vision_bytes || sizing.visionSize(data.model, eng)) };
    // A multimodal model says whether its vision encoder is in the weights (as cells.memory_descriptions).
    const loaded = data.model.vision ? (keys.vision_bytes > 0 ? "_vision" : "_text") : "";
    const weights = /** @type {keyof typeof d} */ ((keys.offload_bytes > 0 ? "weights_host" : "weights") + loaded);
    const host = s.offload && eng.keeps_embeddings_on_host && !tied ? d.host_both : s.offload ? d.host_layers : d.host_embedding;
    /** @type {Record<string, string>} */
    const text = {
      weights: interpolate(d[weights], values),
      kv: interpolate(s.batch === 1 ? d.kv_one : d.kv_many, values),
      runtime: interpolate(d.runtime, values),
      host: interpolate(host, values),
    };
    for (const el of /** @type {NodeListOf<WithData<"describe">>} */ (document.querySelectorAll("[data-describe]"))) {
      if (el.dataset.describe in text) setText(el, text[el.dataset.describe]);
    }
    // The build writes the system-RAM row only where the page's scenario has one.
    let row = /** @type {HTMLTableRowElement | null} */ (document.querySelector("[data-describe-row=offload]"));
    if (!row && keys.offload_bytes > 0) {
      const total = document.querySelector("td[data-field=total_bytes]")?.closest("tr");
      if (total) {
        row = document.createElement("tr");
        row.dataset.describeRow = "offload";
        const th = document.createElement("th");
        th.textContent = t.host_row;
        const amount = document.createElement("td");
        amount.dataset.field = "offload_bytes";
        const what = document.createElement("td");
        what.dataset.describe = "host";
        what.textContent = text.host;
        row.append(th, amount, what);
        total.before(row);
        amount.textContent = bytes(keys.offload_bytes);
        amount.dataset.value = String(keys.offload_bytes);
      }
    }
    if (row && !(keys.offload_bytes > 0)) row.remove();
  }

  /**
   * The scenario (and the compared accelerator) into the URL, beside other sections' keys, and into the
   * language switcher's links; only what differs from the page's own scenario.
   * @param {Choice} s
   */
  function keepInUrl(s) {
    const mine = new URLSearchParams();
    for (const name of SCENARIO_KEYS) {
      const value = String(s[/** @type {keyof Choice} */ (name)]);
      if (value !== String(start[/** @type {keyof Choice} */ (name)])) mine.set(name, value);
    }
    if (compare.value) mine.set("compare", compare.value);
    for (const name of COST_KEYS) {
      const control = /** @type {HTMLInputElement} */ (form.elements.namedItem(name));
      if (control.value !== control.defaultValue) mine.set(name, control.value);
    }
    const query = view.mergeQuery(location.search, URL_KEYS, mine);
    history.replaceState(null, "", location.pathname + query + location.hash);
    for (const link of /** @type {NodeListOf<HTMLAnchorElement>} */ (document.querySelectorAll("nav.langs a"))) {
      link.search = query;
    }
  }

  /**
   * What the reader's budget gets with this setup (cost.py budget_use), in words; hidden without a budget.
   * @param {Estimate} keys
   */
  function renderBudget(keys) {
    const out = /** @type {HTMLElement} */ (document.getElementById("wb-budget-out"));
    const text = String(new FormData(form).get("budget") || "").trim();
    const budget = Number(text);
    out.hidden = text === "" || !inRange(/** @type {HTMLInputElement} */ (form.elements.namedItem("budget")), budget);
    if (out.hidden) return;
    const as = costFacts().assumptions;
    const b = sizing.budgetUse(keys, budget, as);
    const h = num(as.hours_per_day, Number.isInteger(as.hours_per_day) ? 0 : 1);
    const parts = [];
    if (b.budget_buys === true && b.budget_left_usd != null) {
      parts.push(interpolate(t.budget_buys, { budget: usd(budget, 0), cost: usd(/** @type {number} */ (keys.buy_usd), 0),
        left: usd(b.budget_left_usd, 0) }));
      if (b.budget_power_months != null) parts.push(interpolate(t.budget_power, { months: sig(b.budget_power_months), h }));
    } else if (b.budget_buys === false) {
      parts.push(interpolate(t.budget_short, { budget: usd(budget, 0), cost: usd(/** @type {number} */ (keys.buy_usd), 0) }));
    }
    if (b.budget_rent_months != null && b.budget_rent_mtok != null) {
      parts.push(interpolate(t.budget_rent, { months: sig(b.budget_rent_months), h, mtok: sig(b.budget_rent_mtok) }));
    }
    if (b.budget_api_mtok != null) parts.push(interpolate(t.budget_api, { mtok: sig(b.budget_api_mtok) }));
    out.textContent = parts.join(" ");
    out.hidden = parts.length === 0;
  }

  /**
   * The controls' scenario estimated, or null once the page says why it cannot run.
   * @returns {{ keys: Estimate, s: Choice } | null}
   */
  function prepare() {
    const s = read();
    const sc = sizing.scenario(data, s);
    // A scenario whose every name resolved (the test before the cast) is a Scenario.
    const problem = sc.fmt && sc.engine && sc.kv
      ? reason(data.hardware, /** @type {Scenario} */ (sc)) : "unknown option";
    errorEl.textContent = problem;
    /** @type {HTMLInputElement} */ (form.querySelector("[name=context_slider]")).value =
      String(Math.max(0, steps.findLastIndex((c) => c <= s.context)));
    keepInUrl(s);
    if (problem) {
      // No number on the page may describe another scenario than the controls show.
      current = null;
      for (const el of /** @type {NodeListOf<WithData<"field">>} */ (document.querySelectorAll("[data-field]"))) {
        el.textContent = "—";
        el.dataset.value = "";
      }
      for (const el of document.querySelectorAll("[data-range]")) el.textContent = "(—–—)";
      const banner = /** @type {HTMLElement} */ (document.getElementById("banner"));
      banner.className = "banner v-oom";
      /** @type {HTMLParagraphElement} */ (banner.querySelector("p")).textContent = problem;
      cmpTable.hidden = true;
      summarize(null, problem);
      return null;
    }
    return { keys: sizing.estimate(data.model, data.hardware, /** @type {Scenario} */ (sc), costFacts()), s };
  }

  /** @param {{ keys: Estimate, s: Choice } | null} ready */
  function show(ready) {
    if (!ready) return;
    current = ready;
    render(ready.keys, ready.s);
    if (compare.value) renderCompare();
  }

  // Updates made since the page's own first estimate (which then must not be drawn over them).
  let updates = 0;
  function update() {
    updates += 1;
    show(prepare());
  }

  function fixKv() {
    // Keep the KV dtype valid for the chosen engine (its default otherwise).
    // Every option of the form's selects is in the data.
    const eng = /** @type {EngineProfile} */ (data.engines.find((e) => e.name === form.engine.value));
    const kv = /** @type {KVDtype} */ (data.kv_cache.find((k) => k.name === form.kv_dtype.value));
    for (const opt of form.kv_dtype.options) {
      const k = /** @type {KVDtype} */ (data.kv_cache.find((x) => x.name === opt.value));
      opt.disabled = !k.engines.includes(eng.name);
    }
    if (!kv.engines.includes(eng.name)) form.kv_dtype.value = eng.default_kv_dtype;
  }

  function fixEngine() {
    // A format change picks the engine that loads it when the current one cannot.
    const fmt = /** @type {QuantFormat} */ (data.formats.find((f) => f.name === form.quant.value));
    const eng = /** @type {EngineProfile} */ (data.engines.find((e) => e.name === form.engine.value));
    if (!eng.formats.includes(fmt.family)) {
      form.engine.value = data.family_engine[fmt.family];
    }
  }

  function fixFormat() {
    // An engine change keeps the format when the engine loads it; otherwise it takes the best format
    // the engine loads with a published checkpoint (the finder's order), else the first it loads.
    const fmt = /** @type {QuantFormat} */ (data.formats.find((f) => f.name === form.quant.value));
    const eng = /** @type {EngineProfile} */ (data.engines.find((e) => e.name === form.engine.value));
    if (eng.formats.includes(fmt.family)) return;
    const own = finder.rules.candidates.find(([f, e]) => e === eng.name && view.hasCheckpoint(data.artifacts, f,
      /** @type {QuantFormat} */ (data.formats.find((x) => x.name === f)).family));
    const any = data.formats.find((f) => eng.formats.includes(f.family));
    const chosen = own ? own[0] : any?.name;
    if (chosen) form.quant.value = chosen;
  }

  function fixVision() {
    // The engine decides whether the vision encoder can stay unloaded: llama.cpp asks, vLLM, SGLang and
    // Ollama load it with the model, mlx-lm never does.
    const eng = /** @type {EngineProfile} */ (data.engines.find((e) => e.name === form.engine.value));
    vision.disabled = eng.vision !== "optional";
    if (eng.vision === "always") vision.checked = true;
    if (eng.vision === "never") vision.checked = false;
    vision.title = eng.vision === "never" ? interpolate(t.reasons.vision, { engine: eng.label, model: data.model.name })
      : eng.vision === "always" ? interpolate(t.vision_always, { engine: eng.label }) : "";
  }

  function fixOffload() {
    // Only engines that split by layer offload layers to system RAM: the slider is off (at 0) for the others.
    const eng = /** @type {EngineProfile} */ (data.engines.find((e) => e.name === form.engine.value));
    const slider = /** @type {HTMLInputElement} */ (form.querySelector("[name=offload]"));
    const off = eng.split !== "layer";
    if (off) slider.value = "0";
    slider.disabled = off;
    slider.title = off ? interpolate(t.reasons.offload, { engine: eng.label }) : "";
  }

  // Choices that cannot run here are disabled, with the reason as their title: engines that do not run
  // on this accelerator, formats that only such engines load.
  for (const opt of form.engine.options) {
    const eng = /** @type {EngineProfile} */ (data.engines.find((e) => e.name === opt.value));
    if (!sizing.backendsOn(eng, hardware).length) {
      opt.disabled = true;
      opt.title = reason(hardware, /** @type {Scenario} */ (sizing.scenario(data,
        { quant: eng.formats.length ? /** @type {QuantFormat} */ (data.formats.find((f) => eng.formats.includes(f.family))).name : "", engine: eng.name, context: 1 })));
    }
  }
  for (const opt of form.quant.options) {
    const fmt = /** @type {QuantFormat} */ (data.formats.find((f) => f.name === opt.value));
    const loaders = data.engines.filter((e) => e.formats.includes(fmt.family));
    const problems = loaders.map((e) => reason(hardware,
      /** @type {Scenario} */ (sizing.scenario(data, { quant: fmt.name, engine: e.name, context: 1 }))));
    if (problems.every(Boolean)) { opt.disabled = true; opt.title = problems[0] || ""; }
  }

  form.addEventListener("input", (ev) => {
    const name = /** @type {Control} */ (ev.target).name;
    if (name === "context_slider") form.context.value = String(steps[Number(/** @type {Control} */ (ev.target).value)]);
    if (name === "quant") fixEngine();
    if (name === "engine") fixFormat();
    if (name === "quant" || name === "engine") { fixKv(); fixOffload(); fixVision(); }
    update();
  });
  form.addEventListener("change", (ev) => {
    const name = /** @type {Control} */ (ev.target).name;
    if (name === "quant") { fixEngine(); fixKv(); fixOffload(); fixVision(); update(); }
    if (name === "engine") { fixFormat(); fixKv(); fixOffload(); fixVision(); update(); }
  });
  for (const b of /** @type {NodeListOf<WithData<"context">>} */ (root.querySelectorAll("button[data-context]"))) {
    b.addEventListener("click", () => { form.context.value = b.dataset.context; update(); });
  }
  form.addEventListener("submit", (ev) => ev.preventDefault());

  // Two-hardware comparison: the other accelerator's facts come from finder-data.json, the numbers from the sizing model.
  const compare = /** @type {HTMLSelectElement} */ (document.getElementById("wb-compare"));
  const cmpTable = /** @type {HTMLTableElement} */ (document.getElementById("wb-compare-table"));
  /** @type {{ name: string, keys: Estimate } | null} the compared device's estimate, for the simulator */
  let compared = null;
  function renderCompare() {
    const slug = compare.value;
    if (!slug || !current) { cmpTable.hidden = true; compared = null; return; }
    const other = /** @type {Hardware} */ (finder.hardware.find((h) => h.slug === slug));
    // current.s resolved to a Scenario when current was set.
    const sc = /** @type {Scenario} */ (sizing.scenario(data, current.s));
    const problem = reason(other, sc);
    const b = problem ? null
      : sizing.estimate(data.model, other, sc, { ...costFacts(), offers: finder.offers.filter((o) => o.hardware === slug) });
    compared = b ? { name: other.name, keys: b } : null;
    /** @type {HTMLElement} */ (document.getElementById("wb-cmp-b")).textContent = other.name;
    for (const row of /** @type {NodeListOf<WithData<"key">>} */ (cmpTable.querySelectorAll("tbody tr"))) {
      const key = /** @type {keyof Estimate} */ (row.dataset.key);
      const cells = row.querySelectorAll("td");
      /** @type {[HTMLTableCellElement, Estimate | null][]} */
      const columns = [[cells[0], current.keys], [cells[1], b]];
      for (const [cell, keys] of columns) {
        if (!keys) { cell.textContent = problem; continue; }
        const shown = format(key, keys[key]);
        if (shown instanceof Node) cell.replaceChildren(shown);
        else cell.textContent = shown;
        cell.dataset.value = keys[key] == null ? "" : String(keys[key]);
      }
    }
    cmpTable.hidden = false;
  }
  compare.addEventListener("change", () => { renderCompare(); if (current) keepInUrl(current.s); });
  if (params.get("compare") && [...compare.options].some((o) => o.value === params.get("compare"))) {
    compare.value = /** @type {string} */ (params.get("compare"));
  }

  // Live token simulator: each lane waits its device's time to first token, then streams text at its
  // decode rate (code for a coding model); a last lane runs at reading speed.
  const simStatus = /** @type {HTMLParagraphElement} */ (document.getElementById("wb-sim-status"));
  const lanes = /** @type {NodeListOf<WithData<"lane">>} */ (root.querySelectorAll(".lane"));
  const readingRate = (data.assumptions.reading_words_per_minute / 60) * data.assumptions.tokens_per_word;
  const pieces = simPieces(data.model.domain === "code" ? t.sim_code : t.sim_text);
  const total = 200;
  /** @type {number | undefined} */
  let timer;
  /** @type {HTMLButtonElement} */ (document.getElementById("wb-sim-start")).addEventListener("click", () => {
    if (!current) return;
    clearTimeout(timer);
    const { keys } = current;
    const ttft = keys.ttft_s ?? 0;
    /** @type {{ el: WithData<"lane">, rate: number, ttft: number }[]} */
    const runs = [];
    for (const el of lanes) {
      const head = /** @type {HTMLElement} */ (el.querySelector(".lane-h"));
      /** @type {HTMLPreElement} */ (el.querySelector("pre")).textContent = "";
      const run = el.dataset.lane === "a" ? { name: data.hardware.name, keys }
        : el.dataset.lane === "b" ? (compared ? { name: compared.name, keys: compared.keys } : null) : null;
      el.hidden = el.dataset.lane === "b" && !run;
      el.dataset.shown = "0";
      if (el.dataset.lane === "read") {
        head.textContent = interpolate(t.sim_reading, { wpm: num(data.assumptions.reading_words_per_minute),
          speed: tokS(readingRate) });
        runs.push({ el, rate: readingRate, ttft });
      } else if (run) {
        head.textContent = `${run.name} · ${tokS(run.keys.decode_tok_s)}`;
        runs.push({ el, rate: run.keys.decode_tok_s, ttft: run.keys.ttft_s ?? 0 });
      }
      el.dataset.rate = String(runs.find((r) => r.el === el)?.rate ?? "");
    }
    simStatus.dataset.phase = "";
    simStatus.textContent = interpolate(t.sim_prefill, { n: num(keys.ttft_prompt_tokens) });
    const start = performance.now();
    const last = Math.max(...runs.map((r) => r.ttft + total / r.rate));
    (function tick() {
      const elapsed = (performance.now() - start) / 1000;
      for (const r of runs) {
        const due = Math.max(0, Math.min(total, Math.floor((elapsed - r.ttft) * r.rate)));
        const pre = /** @type {HTMLPreElement} */ (r.el.querySelector("pre"));
        if (Number(r.el.dataset.shown) === due) continue;
        r.el.dataset.shown = String(due);
        pre.textContent = simText(pieces, due);
        pre.scrollTop = pre.scrollHeight;
      }
      if (elapsed >= ttft && simStatus.dataset.phase !== "decode") {
        simStatus.dataset.phase = "decode";
        simStatus.textContent = interpolate(t.sim_decode, { t: secs(ttft), speed: tokS(keys.decode_tok_s) });
      }
      // Every lane done, or a minute gone (a very slow device would keep the page busy for long).
      if (elapsed >= Math.min(last, 60)) {
        simStatus.dataset.phase = "done";
        simStatus.textContent = interpolate(t.sim_done, { n: num(total), t: secs(ttft + total / keys.decode_tok_s) });
        return;
      }
      timer = setTimeout(tick, 50);
    })();
  });

  fixEngine();
  fixKv();
  fixOffload();
  fixVision();
  // The memory chart's frame came with the controls; render() places its bars.
  const frame = /** @type {HTMLTemplateElement} */ (document.getElementById("wb-memchart"));
  document.getElementById("memslot")?.replaceChildren(frame.content.cloneNode(true));
  // Setting up the controls, the first estimate and drawing it run as three tasks, not one long one
  // that keeps the page from answering input.
  const yieldTask = () => new Promise((resolve) => setTimeout(resolve, 0));
  await yieldTask();
  const before = updates;
  const first = prepare();
  await yieldTask();
  // A reader who changed a control meanwhile already sees their own scenario.
  if (updates === before) show(first);
  // The list of every device is drawn when the reader nears the Related section, not at load.
  const related = document.getElementById("links-h")?.parentElement;
  if (related) {
    const watch = new IntersectionObserver((seen) => {
      if (!seen.some((e) => e.isIntersecting)) return;
      watch.disconnect();
      linkEveryDevice(related, page.hardware);
    }, { rootMargin: "600px 0px" });
    watch.observe(related);
  }
  root.dataset.ready = "1";
}

if (root && dataEl) main(root, dataEl);
