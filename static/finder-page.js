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
 * @typedef {{ tok_s: string, short: string, per_hour: string, rent_offer: string, billing: Record<string, string>, units: string,
 *   rig_cost: string, rigs: Record<string, string>, draws: string, poor: string, unpublished: string, price_note: string,
 *   stale_note: string,
 *   kinds: Record<string, string>, stale_before: string,
 *   none: string, count: string, comfortable: string,
 *   tight: string, oom: string, chart_title: string, x_buy: string, x_rent: string, y: string, frontier: string,
 *   ticks: Record<string, string> }} FinderMessages templates with {names}; ticks: the price axis' labels
 * @typedef {{ lang: string, model: import("./sizing.js").Model, artifacts: Artifacts, number_spec: NumberSpec,
 *   sizing_url: string, display_url: string, finder_url: string, shared_url: string, finder_data_url: string,
 *   pair_base: string, i18n: FinderMessages, quality: Record<string, string>, quality_order: string[] }} FinderPage
 *   #finder-page
 */

const root = document.getElementById("finder");
const pageEl = document.getElementById("finder-page");
// Form fields and the URL's query keys (the CLI's words where it has them).
const FIELDS = ["context", "tok_s", "users", "mode", "devices", "budget", "engine", "quality"];

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
  // Dates as the pages print them (Babel's medium form; the browser's own for this language).
  const dateFormat = new Intl.DateTimeFormat(page.lang, { dateStyle: "medium", timeZone: "UTC" });
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
      context: Math.min(Math.round(num("context", 8192)), sizing.maxContextOf(page.model)),
      min_tok_s: num("tok_s", 1),
      users: Math.min(Math.round(num("users", 1)), 4096),
      mode: mode === "used" || mode === "rent" ? mode : mode === "rent_any" ? "rent" : "buy",
      interruptible: mode === "rent_any",
      max_devices: Math.min(Math.round(num("devices", 8)), 64),
      budget_usd: Number.isFinite(budget) && budget > 0 ? budget : null,
      engine: String(f.get("engine") || "") || null,
    };
  }

  /** @type {Map<string, Option[]>} */
  const cache = new Map();
  const chartBox = /** @type {HTMLElement} */ (root.querySelector("[data-chart]"));

  /**
   * An SVG element with attributes.
   * @param {string} name
   * @param {Record<string, string | number>} attrs
   * @param {string} [text]
   */
  function svg(name, attrs, text) {
    const el = document.createElementNS("http://www.w3.org/2000/svg", name);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
    if (text != null) el.textContent = text;
    return el;
  }

  /**
   * The price-against-speed chart of the answer (templates/_macros.html value_chart_svg, drawn here).
   * @param {Setup[]} setups
   * @param {Question} q
   */
  function drawChart(setups, q) {
    const units = (/** @type {Setup} */ s) => (s.units > 1 ? interpolate(t.units, { n: fmt.num(s.units), hw: s.hardware.name }) : s.hardware.name);
    const chart = view.valueChart(setups.map((s) => [units(s), s.cost_usd, s.est.decode_tok_s]), shared.value_chart);
    if (!chart) { chartBox.replaceChildren(); return; }
    const money = (/** @type {number} */ usd) => (q.mode === "rent" ? interpolate(t.per_hour, { usd: fmt.usd(usd) }) : fmt.usd(usd, 0));
    const [x0, x1, y0, y1] = chart.box;
    const g = shared.value_chart;
    const root = svg("svg", { viewBox: `0 0 ${g.width} ${g.height}`, role: "img", "aria-labelledby": "fd-chart-t", width: "100%" });
    root.append(svg("title", { id: "fd-chart-t" }, t.chart_title));
    for (const tick of chart.x_ticks) {
      const x = tick.pos.toFixed(1);
      root.append(svg("line", { class: "grid", x1: x, x2: x, y1, y2: y0 }),
        svg("text", { class: "tick", x, y: y0, dy: 16, "text-anchor": "middle" }, t.ticks[String(tick.value)]));
    }
    for (const tick of chart.y_ticks) {
      const y = tick.pos.toFixed(1);
      root.append(svg("line", { class: "grid", x1: x0, x2: x1, y1: y, y2: y }),
        svg("text", { class: "tick", x: x0, dx: -5, y, dy: 4, "text-anchor": "end" }, fmt.num(tick.value, chart.y_digits)));
    }
    root.append(svg("text", { class: "axis", x: x1, y: g.height, dy: -3, "text-anchor": "end" }, q.mode === "rent" ? t.x_rent : t.x_buy),
      svg("text", { class: "axis", x: 0, y: 0, dy: 14, "text-anchor": "start" }, t.y),
      svg("polyline", { class: "frontier", points: chart.path }));
    for (const p of chart.points) {
      const dot = svg("circle", { class: p.frontier ? "on" : "off", cx: p.x.toFixed(1), cy: p.y.toFixed(1), r: p.frontier ? 4 : 3 });
      dot.append(svg("title", {}, `${p.label}: ${money(p.usd)}, ${interpolate(t.tok_s, { n: fmt.sig(p.tok_s) })}`));
      root.append(dot);
      if (p.frontier) root.append(svg("text", { class: "tick", x: p.x.toFixed(1), y: p.y.toFixed(1), dx: 5, dy: -5 }, String(p.frontier)));
    }
    const list = document.createElement("ol");
    for (const p of chart.frontier) {
      const li = document.createElement("li");
      li.textContent = `${p.label}: ${money(p.usd)}, ${interpolate(t.tok_s, { n: fmt.sig(p.tok_s) })}`;
      list.append(li);
    }
    const caption = document.createElement("figcaption");
    caption.append(t.frontier, list);
    const figure = document.createElement("figure");
    figure.className = "chart value";
    figure.append(root, caption);
    chartBox.replaceChildren(figure);
  }

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
    // The pair page opens in this setup: the workbench reads its scenario from the query (routes.pair_link).
    const scenario = new URLSearchParams({ quant: s.fmt, engine: s.engine, kv_dtype: s.kv_dtype, context: String(q.context) });
    if (q.users !== 1) scenario.set("batch", String(q.users));
    if (s.devices !== 1) scenario.set("gpus", String(s.devices));
    a.href = `${page.pair_base}${s.hardware.slug}/?${scenario}`;
    a.textContent = s.units > 1 ? interpolate(t.units, { n: fmt.num(s.units), hw: s.hardware.name }) : s.hardware.name;
    th.append(a);
    const verdict = document.createElement("span");
    verdict.className = s.est.verdict === "comfortable" ? "ok" : s.est.verdict; // site.css badge classes
    verdict.textContent = t[s.est.verdict];
    /** @type {string | DocumentFragment} */
    let cost = q.mode === "rent" ? interpolate(t.per_hour, { usd: fmt.usd(s.cost_usd) }) : fmt.usd(s.cost_usd, 0);
    if (s.price) {
      // A purchase: the unit price with its kind and the day it was seen (_macros.html buy_cost), and the rig.
      const p = s.price;
      const note = interpolate(p.date < t.stale_before ? t.stale_note : t.price_note,
        { kind: t.kinds[p.kind] || p.kind, when: dateFormat.format(new Date(`${p.date}T00:00:00Z`)) });
      const each = `${fmt.usd(p.usd, 0)} ${note}`;
      if (s.rig) {
        cost = interpolate(t.rig_cost, { total: fmt.usd(s.cost_usd, 0), n: fmt.num(s.rig.cards), each,
          rig: t.rigs[s.rig.rig.slug] || s.rig.rig.name, rig_usd: fmt.usd(s.rig.usd, 0) });
        if (s.rig.circuits != null && s.rig.circuits > 1) cost += ` ${interpolate(t.draws, { w: fmt.num(s.rig.draw_w) })}`;
      } else {
        cost = each;
      }
    }
    if (s.offer) {
      // The instance rented (its name in English), and whether it is on demand, spot or a marketplace host.
      const o = s.offer;
      const text = interpolate(t.rent_offer, { usd: fmt.usd(s.cost_usd), billing: t.billing[o.billing] || o.billing,
        where: "\u0000" });
      const [before, after] = text.split("\u0000");
      const where = document.createElement("span");
      where.lang = "en";
      where.textContent = `${o.provider} ${o.instance}`;
      cost = document.createDocumentFragment();
      cost.append(before, where, after ?? "");
    }
    // A speed whose measured range reaches below the question's floor is flagged (it may not hold).
    const short = (s.may_fall_short
      ? ` ${interpolate(t.short, { speed: interpolate(t.tok_s, { n: fmt.sig(q.min_tok_s) }) })}` : "") +
      (s.poor_cell != null ? ` ${interpolate(t.poor, { err: fmt.pct(s.poor_cell) })}` : "") +
      (s.published ? "" : ` ${t.unpublished}`);
    const low = s.est.decode_tok_s_low;
    const high = s.est.decode_tok_s_high;
    const range = low != null && high != null ? ` (${fmt.sig(low)}–${fmt.sig(high)})` : "";
    const cells = [
      `${s.fmt} · ${s.engine} · KV ${s.kv_dtype}`,
      interpolate(t.tok_s, { n: fmt.sig(s.est.decode_tok_s) }) + range + short,
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
    // Every setup goes on the chart; the table lists the cheapest 15.
    // A quality floor keeps the formats whose label for this model is that good (setups.quality_names).
    const floor = String(new FormData(form).get("quality") || "");
    const limit = page.quality_order.indexOf(floor);
    const good = floor && limit >= 0 ? found.filter((o) => {
      const label = page.quality[o.fmt];
      return label != null && page.quality_order.indexOf(label) <= limit;
    }) : found;
    const all = finder.answer(sizing, data, facts, page.model, q, good);
    const setups = all.slice(0, 15);
    body.replaceChildren(...setups.map((s) => row(s, q)));
    table.hidden = setups.length === 0;
    status.textContent = setups.length ? interpolate(t.count, { n: fmt.num(all.length) }) : t.none;
    drawChart(all, q);
    // The question goes into the URL (beside the leaderboard's keys) and into the language switcher's links.
    const search = new URLSearchParams();
    for (const name of FIELDS) {
      const value = String(new FormData(form).get(name) || "");
      if (value) search.set(name, value);
    }
    const query = view.mergeQuery(location.search, FIELDS, search);
    history.replaceState(null, "", location.pathname + query + location.hash);
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
