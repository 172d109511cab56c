// @ts-check
// The finder on model pages: the form's question runs static/finder.js over every accelerator in the
// catalog; the answer is a table, cheapest first. The question lives in the URL (shared links and the
// language switcher keep it). Without JavaScript the section stays hidden and the page's table of
// common questions answers instead.

/**
 * @typedef {import("./finder.js").Question} Question
 * @typedef {import("./finder.js").FinderData} FinderData
 * @typedef {import("./finder.js").Setup} Setup
 * @typedef {import("./finder.js").Option} Option
 * @typedef {import("./display.js").NumberSpec} NumberSpec
 * @typedef {import("./display.js").Artifacts} Artifacts
 * @typedef {{ tok_s: string, per_hour: string, units: string, none: string, count: string, comfortable: string,
 *   tight: string, oom: string }} FinderMessages templates with {names}
 * @typedef {{ lang: string, model: import("./sizing.js").Model, artifacts: Artifacts, number_spec: NumberSpec,
 *   sizing_url: string, display_url: string, finder_url: string, shared_url: string, finder_data_url: string,
 *   pair_base: string, i18n: FinderMessages }} FinderPage #finder-page
 */

const root = document.getElementById("finder");
const pageEl = document.getElementById("finder-page");
// Form fields and the URL's query keys (the CLI's words where it has them).
const FIELDS = ["context", "tok_s", "users", "mode", "devices", "budget", "engine"];

/**
 * @param {string} template
 * @param {Record<string, string>} values
 */
function interpolate(template, values) {
  return template.replace(/\{(\w+)\}/g, (_, key) => (key in values ? values[key] : `{${key}}`));
}

/**
 * @param {HTMLElement} root
 * @param {HTMLElement} pageEl
 */
async function main(root, pageEl) {
  /** @type {FinderPage} */
  const page = JSON.parse(pageEl.textContent || "{}");
  const t = page.i18n;
  const [sizing, view, finder, shared, extra] = await Promise.all([
    /** @type {Promise<typeof import("./sizing.js")>} */ (import(page.sizing_url)),
    /** @type {Promise<typeof import("./display.js")>} */ (import(page.display_url)),
    /** @type {Promise<typeof import("./finder.js")>} */ (import(page.finder_url)),
    fetch(page.shared_url).then((r) => r.json()),
    fetch(page.finder_data_url).then((r) => r.json()),
  ]);
  /** @type {FinderData} */
  const data = { ...shared, ...extra };
  const facts = { assumptions: shared.assumptions, calibration: shared.calibration, ranges: shared.ranges,
    offers: extra.offers, api_prices: [] };
  const fmt = view.numberFormat(page.number_spec);
  const form = /** @type {HTMLFormElement} */ (root.querySelector("form"));
  const table = /** @type {HTMLTableElement} */ (root.querySelector("table"));
  const body = /** @type {HTMLTableSectionElement} */ (table.querySelector("tbody"));
  const status = /** @type {HTMLElement} */ (root.querySelector("[data-status]"));

  // The question in the URL wins over the form's defaults.
  const params = new URLSearchParams(location.search);
  for (const name of FIELDS) {
    const value = params.get(name);
    const control = /** @type {HTMLInputElement | HTMLSelectElement | null} */ (form.elements.namedItem(name));
    if (value != null && control) control.value = value;
  }

  /** @returns {Question} */
  function question() {
    const f = new FormData(form);
    const num = (/** @type {string} */ name, /** @type {number} */ fallback) => {
      const v = Number(f.get(name));
      return Number.isFinite(v) && v > 0 ? v : fallback;
    };
    const budget = Number(f.get("budget"));
    const mode = String(f.get("mode"));
    return {
      context: Math.min(Math.round(num("context", 8192)), page.model.architecture.max_context),
      min_tok_s: num("tok_s", 1),
      users: Math.min(Math.round(num("users", 1)), 4096),
      mode: mode === "used" || mode === "rent" ? mode : "buy",
      max_devices: Math.min(Math.round(num("devices", 8)), 64),
      budget_usd: Number.isFinite(budget) && budget > 0 ? budget : null,
      engine: String(f.get("engine") || "") || null,
    };
  }

  /** @type {Map<string, Option[]>} */
  const cache = new Map();

  /**
   * @param {Setup} s
   * @param {Question} q
   */
  function row(s, q) {
    const tr = document.createElement("tr");
    tr.dataset.hardware = s.hardware.slug;
    tr.dataset.devices = String(s.devices);
    tr.dataset.fmt = s.fmt;
    tr.dataset.kv = s.kv_dtype;
    const th = document.createElement("th");
    th.scope = "row";
    const a = document.createElement("a");
    a.href = `${page.pair_base}${s.hardware.slug}/`;
    a.textContent = s.units > 1 ? interpolate(t.units, { n: fmt.num(s.units), hw: s.hardware.name }) : s.hardware.name;
    th.append(a);
    const verdict = document.createElement("span");
    verdict.className = s.est.verdict === "comfortable" ? "ok" : s.est.verdict; // site.css badge classes
    verdict.textContent = t[s.est.verdict];
    const cost = q.mode === "rent" ? interpolate(t.per_hour, { usd: fmt.usd(s.cost_usd) }) : fmt.usd(s.cost_usd, 0);
    const cells = [
      `${s.fmt} · ${s.engine} · KV ${s.kv_dtype}`,
      interpolate(t.tok_s, { n: fmt.sig(s.est.decode_tok_s) }),
      verdict,
      cost,
      fmt.usd(s.cost_usd / s.est.decode_tok_s_aggregate),
    ];
    tr.append(th, ...cells.map((c) => {
      const td = document.createElement("td");
      td.append(c);
      return td;
    }));
    return tr;
  }

  /**
   * The options of a question's context, users and devices, computed a few accelerators at a time so
   * the page stays responsive (the same list, in the same order, as one call over all of them).
   * @param {Question} q
   */
  async function optionsFor(q) {
    const key = `${q.context}|${q.users}|${q.max_devices}`;
    const known = cache.get(key);
    if (known) return known;
    /** @type {Option[]} */
    const found = [];
    for (let i = 0; i < data.hardware.length; i += 8) {
      const slice = { ...data, hardware: data.hardware.slice(i, i + 8) };
      found.push(...finder.options(sizing, slice, facts, page.model, page.artifacts, q.context, q.users, q.max_devices));
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    cache.set(key, found);
    return found;
  }

  let pending = 0;
  async function update() {
    const ticket = ++pending;
    const q = question();
    const found = await optionsFor(q);
    if (ticket !== pending) return; // a newer question is being answered
    const setups = finder.answer(sizing, data, facts, page.model, q, found, 15);
    body.replaceChildren(...setups.map((s) => row(s, q)));
    table.hidden = setups.length === 0;
    status.textContent = setups.length ? interpolate(t.count, { n: fmt.num(setups.length) }) : t.none;
    // The question goes into the URL and into the language switcher's links.
    const search = new URLSearchParams();
    for (const name of FIELDS) {
      const value = String(new FormData(form).get(name) || "");
      if (value) search.set(name, value);
    }
    const query = `?${search}`;
    history.replaceState(null, "", query + location.hash);
    for (const link of /** @type {NodeListOf<HTMLAnchorElement>} */ (document.querySelectorAll("nav.langs a"))) {
      link.search = query;
    }
  }

  /** @type {number | undefined} */
  let timer;
  form.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(update, 150); });
  form.addEventListener("submit", (ev) => { ev.preventDefault(); update(); });
  // A shared link carries a question: answer it at once. Otherwise the page's table of common questions
  // answers, and the search over the whole catalog waits for the reader's first change.
  if (FIELDS.some((name) => params.has(name))) await update();
  root.dataset.ready = "1";
}

if (root && pageEl) main(root, pageEl);
export {}; // a module: its names stay its own
