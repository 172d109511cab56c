// @ts-check
// The hardware page's controls: the models table at another context (the build's picks at each, in the
// page's data: hardware_page.row_data) and for one task (coding, general, reading images). Without
// JavaScript the controls stay hidden and the table shows the default context for every task.

/**
 * @typedef {import("./display.js").NumberSpec} NumberSpec
 * @typedef {[string | null, string | null, number | null, string, number | null, number | null, number | null,
 *   number | null]} Pick quant, engine label, total bytes, verdict, decode, low, high, max context
 * @typedef {{ domain: string, vision: boolean, at: Record<string, Pick> }} RowData
 * @typedef {{ caption: string, tok_s: string, none: string, shown: string, comfortable: string, tight: string,
 *   oom: string }} Messages
 * @typedef {{ lang: string, number_spec: NumberSpec, display_url: string, default_context: number,
 *   rows: Record<string, RowData>, i18n: Messages }} HardwarePage
 */

const root = document.getElementById("hw-models");
const pageEl = document.getElementById("hw-page");
// The badge classes of site.css, by verdict (render.VERDICT_CLASS).
const VERDICT_CLASS = /** @type {Record<string, string>} */ ({ comfortable: "ok", tight: "tight", oom: "oom" });

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
  /** @type {HardwarePage} */
  const page = JSON.parse(pageEl.textContent || "{}");
  const t = page.i18n;
  /** @type {typeof import("./display.js")} */
  const view = await import(page.display_url);
  const fmt = view.numberFormat(page.number_spec);
  const form = /** @type {HTMLFormElement} */ (root.querySelector("#hw-controls"));
  const caption = /** @type {HTMLElement} */ (root.querySelector("[data-caption]"));
  const status = /** @type {HTMLElement} */ (root.querySelector("[data-status]"));
  const rows = /** @type {NodeListOf<HTMLTableRowElement>} */ (root.querySelectorAll("tr[data-model]"));
  const context = /** @type {HTMLSelectElement} */ (form.elements.namedItem("context"));
  const task = /** @type {HTMLSelectElement} */ (form.elements.namedItem("task"));
  // The default context's cells as built (the offload note among them), to put back.
  /** @type {Map<HTMLTableRowElement, Node[][]>} */
  const built = new Map([...rows].map((tr) => [tr, [...tr.cells].slice(1).map((c) => [...c.childNodes])]));

  /**
   * @param {string} verdict
   */
  function badge(verdict) {
    const span = document.createElement("span");
    span.className = VERDICT_CLASS[verdict] || verdict;
    span.textContent = t[/** @type {"comfortable" | "tight" | "oom"} */ (verdict)] || verdict;
    return span;
  }

  /**
   * @param {HTMLTableRowElement} tr
   * @param {Pick | undefined} pick
   */
  function fill(tr, pick) {
    const cells = [...tr.cells].slice(1);
    if (!pick) {
      for (const c of cells) c.replaceChildren("—");
      return;
    }
    const [quant, label, total, verdict, decode, low, high, maxContext] = pick;
    if (quant == null) {
      cells[0].replaceChildren(badge("oom"), ` ${t.none}`);
      for (const c of cells.slice(1)) c.replaceChildren("—");
      return;
    }
    cells[0].replaceChildren(`${quant} (${label})`);
    cells[1].replaceChildren(`${fmt.bytes(total)} `, badge(verdict));
    const range = low != null && high != null ? ` (${fmt.sig(low)}–${fmt.sig(high)})` : "";
    cells[2].replaceChildren(interpolate(t.tok_s, { n: fmt.sig(decode) }) + range);
    cells[3].replaceChildren(fmt.num(maxContext));
  }

  function update() {
    const ctx = context.value;
    let shown = 0;
    for (const tr of rows) {
      const data = page.rows[tr.dataset.model || ""];
      if (!data) continue;
      const want = task.value;
      const keep = !want || (want === "vision" ? data.vision : data.domain === want);
      tr.hidden = !keep;
      if (keep) shown += 1;
      if (ctx === String(page.default_context)) {
        const cells = [...tr.cells].slice(1);
        (built.get(tr) || []).forEach((nodes, i) => cells[i].replaceChildren(...nodes));
      } else {
        fill(tr, data.at[ctx]);
      }
    }
    caption.textContent = interpolate(t.caption, { ctx: fmt.tokens(Number(ctx)) });
    status.textContent = interpolate(t.shown, { n: fmt.num(shown), total: fmt.num(rows.length) });
    const query = new URLSearchParams(location.search);
    for (const [key, value] of [["context", ctx === String(page.default_context) ? "" : ctx], ["task", task.value]]) {
      if (value) query.set(key, value); else query.delete(key);
    }
    const search = query.toString();
    history.replaceState(null, "", `${location.pathname}${search ? `?${search}` : ""}${location.hash}`);
  }

  const params = new URLSearchParams(location.search);
  for (const control of [context, task]) {
    const value = params.get(control.name);
    if (value != null && [...control.options].some((o) => o.value === value)) control.value = value;
  }
  form.addEventListener("change", update);
  form.hidden = false;
  if (params.has("context") || params.has("task")) update();
}

if (root && pageEl) main(root, pageEl);
export {}; // a module: its names stay its own
