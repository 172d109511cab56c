// @ts-check
// The hardware leaderboard on model pages: context and KV cache selectors re-run the sizing model
// (sizing.js, the build's numbers) for the model's default setup on every accelerator; hours of use a
// day re-price the rented month (cost.py); sorting and filters by vendor, kind, memory and a budget for
// the card (its new price) reorder and hide rows. Rows that do not fit show the first change
// that would make them fit, by the rules of generator/site/model_page.py (fix_for, leaderboard), so the
// page's table and this one agree at the default context. The choice lives in the URL (l* keys) and the
// language switcher keeps it. Without JavaScript the table is the build's, at the default context.

/**
 * @typedef {import("./sizing.js").Model} Model
 * @typedef {import("./sizing.js").QuantFormat} QuantFormat
 * @typedef {import("./sizing.js").KVDtype} KVDtype
 * @typedef {import("./sizing.js").EngineProfile} EngineProfile
 * @typedef {import("./sizing.js").Estimate} Estimate
 * @typedef {import("./finder.js").FinderData} FinderData
 * @typedef {import("./finder.js").FinderHardware} FinderHardware
 * @typedef {{ kind: "kv" | "fmt" | "devices" | "none", value: string, units: number }} Fix
 * @typedef {{ hw: FinderHardware, est: Estimate, fix: Fix | null }} Row
 * @typedef {{ caption: string, fix_kv: string, fix_fmt: string, fix_devices: string, fix_none: string,
 *   count: string, tok_s: string, seconds: string, comfortable: string, tight: string, oom: string,
 *   fmt: string, engine: string }} Messages #lb-i18n: templates with {names}, and the default setup
 */

const form = /** @type {HTMLFormElement | null} */ (document.getElementById("lb-form"));
const pageEl = document.getElementById("finder-page");
const FIELDS = ["lctx", "lkv", "lsort", "lvendor", "lkind", "lmem"];
// Number inputs, kept in the URL when they differ from the page's value.
const NUMBERS = ["lhours", "lbudget"];
const RANK = { comfortable: 0, tight: 1, oom: 2 };
const BADGE = { comfortable: "ok", tight: "tight", oom: "oom" }; // site.css badge classes

/**
 * @param {string} template
 * @param {Record<string, string>} values
 */
function interpolate(template, values) {
  return template.replace(/\{(\w+)\}/g, (_, key) => (key in values ? values[key] : `{${key}}`));
}

/**
 * @param {HTMLFormElement} form
 * @param {HTMLElement} pageEl
 */
async function main(form, pageEl) {
  const page = JSON.parse(pageEl.textContent || "{}");
  /** @type {Messages} */
  const t = JSON.parse(/** @type {HTMLElement} */ (document.getElementById("lb-i18n")).textContent || "{}");
  const table = /** @type {HTMLTableElement} */ (document.getElementById("lb-table"));
  const body = /** @type {HTMLTableSectionElement} */ (table.querySelector("tbody"));
  const caption = /** @type {HTMLElement} */ (table.querySelector("caption"));
  const status = /** @type {HTMLElement} */ (document.getElementById("lb-status"));
  const [sizing, view, shared, extra] = await Promise.all([
    /** @type {Promise<typeof import("./sizing.js")>} */ (import(page.sizing_url)),
    /** @type {Promise<typeof import("./display.js")>} */ (import(page.display_url)),
    fetch(page.shared_url).then((r) => r.json()),
    fetch(page.finder_data_url).then((r) => r.json()),
  ]);
  /** @type {FinderData} */
  const data = { ...shared, ...extra };
  const facts = { assumptions: shared.assumptions, calibration: shared.calibration, ranges: shared.ranges,
    offers: extra.offers, api_prices: [] };
  const fmt = view.numberFormat(page.number_spec);
  /** @type {Model} */
  const model = page.model;
  const quant = /** @type {QuantFormat} */ (data.formats.find((f) => f.name === t.fmt));
  const engine = /** @type {EngineProfile} */ (data.engines.find((e) => e.name === t.engine));

  const params = new URLSearchParams(location.search);
  for (const name of FIELDS) {
    const value = params.get(name);
    const control = /** @type {HTMLSelectElement | null} */ (form.elements.namedItem(name));
    if (value != null && control && [...control.options].some((o) => o.value === value)) control.value = value;
  }
  for (const name of NUMBERS) {
    const value = params.get(name);
    const control = /** @type {HTMLInputElement | null} */ (form.elements.namedItem(name));
    if (value != null && control && value.trim() !== "" && Number.isFinite(Number(value))) control.value = value;
  }
  const hoursEl = /** @type {HTMLElement} */ (table.querySelector("[data-lb-hours]"));

  /**
   * @param {FinderHardware} hw
   * @param {QuantFormat} f
   * @param {KVDtype} kv
   * @param {number} context
   * @param {number} [hours] of use a day (the catalog's when not given)
   * @returns {Estimate | null}
   */
  function run(hw, f, kv, context, hours) {
    const sc = { fmt: f, kv, engine, context, batch: 1, gpus: hw.chips, offload: 0, vision: false };
    const at = hours == null ? facts : { ...facts, assumptions: { ...facts.assumptions, hours_per_day: hours } };
    return sizing.checkScenario(model, hw, sc) ? null : sizing.estimate(model, hw, sc, at);
  }

  /**
   * The first change that makes a setup that does not fit fit (model_page.fix_for).
   * @param {FinderHardware} hw
   * @param {Estimate} est
   * @param {KVDtype} kv
   * @param {number} context
   * @returns {Fix}
   */
  function fixFor(hw, est, kv, context) {
    const smaller = data.kv_cache.filter((k) => k.engines.includes(engine.name) && k.bytes_per_element < kv.bytes_per_element)
      .sort((a, b) => b.bytes_per_element - a.bytes_per_element);
    for (const k of smaller) {
      const e = run(hw, quant, k, context);
      if (e && e.verdict !== "oom") return { kind: "kv", value: k.name, units: 0 };
    }
    /** @type {QuantFormat | null} */
    let lower = null;
    for (const f of data.formats) {
      if (data.family_engine[f.family] !== engine.name || f.bits_per_weight >= quant.bits_per_weight) continue;
      if (lower && f.bits_per_weight <= lower.bits_per_weight) continue;
      const e = run(hw, f, kv, context);
      if (e && e.verdict !== "oom") lower = f;
    }
    if (lower) return { kind: "fmt", value: lower.name, units: 0 };
    if (est.min_gpus != null && !data.rules.single.includes(hw.kind)) {
      return { kind: "devices", value: "", units: Math.ceil(est.min_gpus / hw.chips) };
    }
    return { kind: "none", value: "", units: 0 };
  }

  /** @type {Map<string, Row[]>} */
  const cache = new Map();
  /**
   * @param {number} context
   * @param {KVDtype} kv
   * @param {number} hours
   */
  function rowsAt(context, kv, hours) {
    const key = `${context}|${kv.name}|${hours}`;
    const known = cache.get(key);
    if (known) return known;
    /** @type {Row[]} */
    const rows = [];
    for (const hw of data.hardware) {
      const est = run(hw, quant, kv, context, hours);
      if (est) rows.push({ hw, est, fix: est.verdict === "oom" ? fixFor(hw, est, kv, context) : null });
    }
    cache.set(key, rows);
    return rows;
  }

  const bySlug = (/** @type {Row} */ a, /** @type {Row} */ b) => (a.hw.slug < b.hw.slug ? -1 : a.hw.slug > b.hw.slug ? 1 : 0);
  /** Fits first (well, then tight), fastest first; then those that do not fit, nearest to fitting first. */
  const byFit = (/** @type {Row} */ a, /** @type {Row} */ b) => {
    const ra = RANK[a.est.verdict];
    const rb = RANK[b.est.verdict];
    if (ra !== rb) return ra - rb;
    if (ra === 2) {
      const d = a.est.per_gpu_bytes / a.est.usable_per_gpu_bytes - b.est.per_gpu_bytes / b.est.usable_per_gpu_bytes;
      return d || bySlug(a, b);
    }
    return b.est.decode_tok_s - a.est.decode_tok_s || bySlug(a, b);
  };
  /**
   * A sort key where smaller comes first and null (no price, or does not fit) goes last.
   * @param {(r: Row) => number | null} key
   */
  const ascending = (key) => (/** @type {Row} */ a, /** @type {Row} */ b) => {
    const ka = key(a);
    const kb = key(b);
    if (ka == null || kb == null) return ka == null && kb == null ? byFit(a, b) : ka == null ? 1 : -1;
    return ka - kb || byFit(a, b);
  };
  const price = (/** @type {Row} */ r) => (r.hw.price ? r.hw.price.usd : null);
  const SORTS = {
    fit: byFit,
    speed: ascending((r) => (r.fix ? null : -r.est.decode_tok_s)),
    price: ascending(price),
    value: ascending((r) => { const p = price(r); return r.fix || p == null ? null : p / r.est.decode_tok_s; }),
  };

  /**
   * @param {number | null} value
   * @param {number | null} low
   * @param {number | null} high
   * @param {string} template
   */
  function withRange(value, low, high, template) {
    const frag = document.createDocumentFragment();
    if (value == null) { frag.append("—"); return frag; }
    frag.append(interpolate(template, { n: fmt.sig(value) }));
    if (low != null && high != null) {
      const span = document.createElement("span");
      span.className = "range";
      span.textContent = `(${fmt.sig(low)}–${fmt.sig(high)})`;
      frag.append(" ", span);
    }
    return frag;
  }

  /** @param {Fix} fix */
  function fixText(fix) {
    if (fix.kind === "kv") return interpolate(t.fix_kv, { kv: fix.value });
    if (fix.kind === "fmt") return interpolate(t.fix_fmt, { fmt: fix.value });
    if (fix.kind === "devices") return interpolate(t.fix_devices, { n: fmt.num(fix.units) });
    return t.fix_none;
  }

  /** @param {Row} r */
  function render(r) {
    const tr = document.createElement("tr");
    tr.dataset.hw = r.hw.slug;
    const th = document.createElement("th");
    th.scope = "row";
    const a = document.createElement("a");
    // The pair page opens in the row's setup (routes.pair_link: the workbench reads the query).
    const scenario = new URLSearchParams({ quant: r.est.quant, engine: r.est.engine, kv_dtype: r.est.kv_dtype,
      context: String(r.est.context) });
    if (r.est.gpus !== 1) scenario.set("gpus", String(r.est.gpus));
    a.href = `${page.pair_base}${r.hw.slug}/?${scenario}`;
    a.textContent = r.hw.name;
    th.append(a);
    const badge = document.createElement("span");
    badge.className = BADGE[r.est.verdict];
    badge.textContent = t[r.est.verdict];
    const e = r.est;
    /** @type {(string | Node)[]} */
    const cells = [badge, `${fmt.bytes(e.total_bytes)} / ${fmt.bytes(e.usable_bytes)}`];
    if (r.fix) cells.push(fixText(r.fix), "—", "—");
    else {
      cells.push(withRange(e.decode_tok_s, e.decode_tok_s_low, e.decode_tok_s_high, t.tok_s),
        withRange(e.ttft_s, e.ttft_s_low, e.ttft_s_high, t.seconds), fmt.num(e.max_context));
    }
    cells.push(r.hw.price ? fmt.usd(r.hw.price.usd, 0) : "—", e.monthly_usd != null ? fmt.usd(e.monthly_usd, 0) : "—");
    tr.append(th, ...cells.map((c) => { const td = document.createElement("td"); td.append(c); return td; }));
    return tr;
  }

  function update() {
    const f = new FormData(form);
    const context = Math.min(Number(f.get("lctx")) || 8192, sizing.maxContextOf(model));
    const kv = data.kv_cache.find((k) => k.name === f.get("lkv")) || data.kv_cache.find((k) => k.name === engine.default_kv_dtype);
    if (!kv) return;
    const vendor = String(f.get("lvendor") || "");
    const kind = String(f.get("lkind") || "");
    const memory = Number(f.get("lmem") || 0) * 1e9;
    // Hours as the pair page's workbench takes them.
    const hours = view.hoursADay(f.get("lhours"), facts.assumptions.hours_per_day);
    const budgetText = String(f.get("lbudget") || "").trim();
    const budget = budgetText !== "" && Number.isFinite(Number(budgetText)) ? Number(budgetText) : null;
    const all = rowsAt(context, kv, hours);
    const shown = all.filter((r) => (!vendor || r.hw.vendor === vendor) && (!kind || r.hw.kind === kind) &&
      sizing.memoryBytes(r.hw) >= memory && (budget == null || (r.hw.price != null && r.hw.price.usd <= budget)));
    hoursEl.textContent = fmt.num(hours, Number.isInteger(hours) ? 0 : 1);
    shown.sort(SORTS[/** @type {keyof typeof SORTS} */ (String(f.get("lsort")))] || byFit);
    body.replaceChildren(...shown.map(render));
    caption.textContent = interpolate(t.caption, { fmt: quant.name, engine: engine.label, ctx: fmt.tokens(context), kv: kv.name });
    status.textContent = interpolate(t.count, { n: fmt.num(shown.length), m: fmt.num(all.length) });
    const mine = new URLSearchParams();
    for (const name of FIELDS) {
      const control = /** @type {HTMLSelectElement} */ (form.elements.namedItem(name));
      // Only what differs from the page's defaults goes into the URL.
      const first = /** @type {HTMLOptionElement} */ (control.querySelector("option[selected]") || control.options[0]);
      if (control.value !== first.value) mine.set(name, control.value);
    }
    for (const name of NUMBERS) {
      const control = /** @type {HTMLInputElement} */ (form.elements.namedItem(name));
      if (control.value.trim() !== control.defaultValue.trim()) mine.set(name, control.value.trim());
    }
    const query = view.mergeQuery(location.search, [...FIELDS, ...NUMBERS], mine);
    history.replaceState(null, "", location.pathname + query + location.hash);
    for (const link of /** @type {NodeListOf<HTMLAnchorElement>} */ (document.querySelectorAll("nav.langs a"))) {
      link.search = query;
    }
  }

  form.addEventListener("change", update);
  form.addEventListener("submit", (ev) => { ev.preventDefault(); update(); });
  if ([...FIELDS, ...NUMBERS].some((name) => params.has(name))) update();
  form.dataset.ready = "1";
}

if (form && pageEl) main(form, pageEl);
export {}; // a module: its names stay its own
