// @ts-check
// Instant search over models and hardware, offline, from a compact index. "qwen 32b 4090" finds the
// pair page; partial and slightly misspelled words match; vendor and organisation names in every
// locale are aliases. Keyboard: arrows move, Enter opens, Escape closes.

/**
 * @typedef {{ s: string, n: string, a: string[] }} IndexEntry slug, name and aliases (search-index.json)
 * @typedef {{ s: string, n: string, w: string[] }} Entry slug, name and the words a query is matched against
 * @typedef {{ lang: string, models: Entry[], hardware: Entry[] }} SearchIndex
 * @typedef {{ kind: "pair" | "model" | "hardware", score: number, name: string, url: string }} Result
 * @typedef {{ item: Entry, scores: number[], total: number }} Scored
 */

// base.html gives it data-index (the index URL), data-lang and the words of the box in the page's
// language (data-label, data-placeholder, data-results): the box itself is built here, in space the
// style sheet keeps for it, since it is of no use without JavaScript.
const box = /** @type {(HTMLElement & { dataset: { index: string, lang: string, label: string,
  placeholder: string, results: string } }) | null} */ (document.getElementById("search"));

/** @param {string} text */
export function tokenize(text) {
  return text.toLowerCase().normalize("NFKD").replace(/[\u0300-\u036f]/g, "").split(/[^\p{L}\p{N}]+/u).filter(Boolean);
}

/**
 * @param {string} a
 * @param {string} b
 */
function editDistanceAtMost1(a, b) {
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0, j = 0, edits = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) { i++; j++; continue; }
    if (++edits > 1) return false;
    if (a.length > b.length) i++;
    else if (a.length < b.length) j++;
    else { i++; j++; }
  }
  return edits + (a.length - i) + (b.length - j) <= 1;
}

// How well one query word matches an entry's words: 3 exact, 2 prefix or contained, 1 one typo away.
/**
 * @param {string} q
 * @param {string[]} words
 */
function wordScore(q, words) {
  let best = 0;
  for (const w of words) {
    if (w === q) return 3;
    if (w.startsWith(q) || (q.length >= 3 && w.includes(q))) best = Math.max(best, 2);
    else if (q.length >= 4 && editDistanceAtMost1(q, w)) best = Math.max(best, 1);
  }
  return best;
}

/**
 * @param {SearchIndex} index
 * @param {string} query
 * @returns {Result[]}
 */
export function search(index, query, limit = 8) {
  const qs = tokenize(query);
  if (!qs.length) return [];
  /** @type {(items: Entry[]) => Scored[]} */
  const scored = (items) => items.map((item) => {
    const scores = qs.map((q) => wordScore(q, item.w));
    return { item, scores, total: scores.reduce((a, b) => a + b, 0) };
  });
  const models = scored(index.models);
  const hardware = scored(index.hardware);
  /** @type {Result[]} */
  const results = [];
  // A pair when some words name a model and the others a piece of hardware.
  for (const m of models) {
    if (!m.total) continue;
    for (const h of hardware) {
      if (!h.total) continue;
      const covered = qs.every((_, i) => m.scores[i] || h.scores[i]);
      if (covered && m.scores.some((s, i) => s && !h.scores[i]) && h.scores.some((s, i) => s && !m.scores[i])) {
        results.push({ kind: "pair", score: 100 + m.total + h.total, name: `${m.item.n} · ${h.item.n}`,
          url: `/${index.lang}/models/${m.item.s}/${h.item.s}/` });
      }
    }
  }
  /** @type {[Scored[], "model" | "hardware", string][]} */
  const lists = [[models, "model", "models"], [hardware, "hardware", "hardware"]];
  for (const [list, kind, path] of lists) {
    for (const e of list) {
      if (e.scores.every((s) => s > 0)) results.push({ kind, score: 50 + e.total, name: e.item.n, url: `/${index.lang}/${path}/${e.item.s}/` });
    }
  }
  results.sort((a, b) => b.score - a.score || a.name.localeCompare(b.name));
  return results.slice(0, limit);
}

/** @param {NonNullable<typeof box>} box */
function build(box) {
  const label = document.createElement("label");
  label.htmlFor = "search-q";
  label.className = "visually-hidden";
  label.textContent = box.dataset.label;
  const input = document.createElement("input");
  Object.assign(input, { id: "search-q", type: "text", inputMode: "search", enterKeyHint: "search",
    autocomplete: "off", spellcheck: false, placeholder: box.dataset.placeholder });
  for (const [name, value] of [["role", "combobox"], ["aria-expanded", "false"], ["aria-controls", "search-results"],
    ["aria-autocomplete", "list"]]) input.setAttribute(name, value);
  const list = document.createElement("ul");
  Object.assign(list, { id: "search-results", hidden: true });
  list.setAttribute("role", "listbox");
  list.setAttribute("aria-label", box.dataset.results);
  box.replaceChildren(label, input, list);
  return { input, list };
}

/** @param {NonNullable<typeof box>} box */
async function main(box) {
  const { input, list } = build(box);
  const lang = box.dataset.lang;
  /** @type {SearchIndex | null} */
  let index = null;
  let active = -1;
  /** @type {Result[]} */
  let results = [];
  const load = async () => {
    if (!index) {
      /** @type {{ models: IndexEntry[], hardware: IndexEntry[] }} */
      const data = await (await fetch(box.dataset.index)).json();
      /** @type {(items: IndexEntry[]) => Entry[]} */
      const withWords = (items) => items.map((x) => ({ ...x, w: tokenize(`${x.n} ${x.s} ${x.a.join(" ")}`) }));
      index = { lang, models: withWords(data.models), hardware: withWords(data.hardware) };
    }
    return index;
  };
  const show = () => {
    list.replaceChildren(...results.map((r, i) => {
      const li = document.createElement("li");
      li.id = `search-r${i}`;
      li.setAttribute("role", "option");
      li.setAttribute("aria-selected", String(i === active));
      const a = document.createElement("a");
      a.href = r.url;
      a.textContent = r.name;
      a.tabIndex = -1;
      li.append(a);
      return li;
    }));
    list.hidden = !results.length;
    input.setAttribute("aria-expanded", String(!list.hidden));
    if (active >= 0) input.setAttribute("aria-activedescendant", `search-r${active}`);
    else input.removeAttribute("aria-activedescendant");
  };
  input.addEventListener("input", async () => {
    results = search(await load(), input.value);
    active = results.length ? 0 : -1;
    show();
  });
  input.addEventListener("keydown", (ev) => {
    if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
      if (!results.length) return;
      ev.preventDefault();
      active = (active + (ev.key === "ArrowDown" ? 1 : results.length - 1)) % results.length;
      show();
    } else if (ev.key === "Enter" && active >= 0) {
      ev.preventDefault();
      window.location.href = results[active].url;
    } else if (ev.key === "Escape") {
      results = [];
      active = -1;
      show();
    }
  });
  box.dataset.ready = "1";
}

if (box) main(box);
