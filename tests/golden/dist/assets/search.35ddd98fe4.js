// @ts-check
// Instant search over models and hardware, offline, from a compact index. "qwen 32b 4090" finds the
// pair page. Keyboard: arrows move, Enter opens the highlighted result (the first unless the arrows
// moved), Escape closes.
//
// How a query matches (search() is pure, so tests/search/run.mjs runs it under node):
// - Words are split at spaces and punctuation, and between Chinese characters and the rest ("英伟达4090"
//   is two words); a dot between digits stays in the word, so "qwen2.5", "3.3" and "1.5b" are one word.
// - Every word of the query must match (AND). A word with a digit ("4090", "70b", "24gb", "3.3", "h100")
//   matches only a whole word of the entry, or the same letters and numbers next to each other in it
//   ("qwen2.5" matches "Qwen 2.5", "h100" matches "H100" but not "K100"): no prefix, no typo, so "4090"
//   never finds a 3090 and "24gb" never a 64 GB Mac. The major number of a version is a word too ("llama 3"
//   and "llama3" find Llama-3.3). "24 gb", "70 b" are read as "24gb", "70b".
// - A word of letters matches a whole word (best), the start of a word ("gemm"), a word containing it
//   (4 Latin letters or more, or 2 other letters), or, when it has 4 Latin letters or more, a word one
//   letter away ("deepsek").
// - The words of an entry are its name (and slug, for hardware) and the index's other words:
//   organization, family, Hugging Face id and aliases in every language for models; vendor, kind,
//   aliases and memory ("24GB", "24G", "24Go") for hardware (content/search-aliases.yaml).
// - A pair (model page × hardware) is listed when every word matches the model or the hardware and some
//   word matches only the model and another only the hardware.
// Order: the best sum of word matches (whole word 4, letters and numbers next to each other 3, start 2,
// contained or one typo 1; half a point less for a word of letters found only in the other words); then
// a page matching every word before a pair, and no pair at all unless it matches better than every such
// page; then the model whose name has the fewest words of letters the query did not match
// (Llama-3.3-70B-Instruct before DeepSeek-R1-Distill-Llama-70B for "llama 70b", Qwen3-30B-A3B before
// Qwen3-Coder-30B-A3B-Instruct for "qwen3 30b"); then the index's order, which the build sorts by how
// often the catalog meets the entry (API providers or clouds renting it, and measurement sources), then
// by the newest release (generator/site/pages.py, search_entries).

/**
 * @typedef {{ s: string, n: string, a: string[] }} IndexEntry slug, name and other words (search-index.json)
 * @typedef {{ models: IndexEntry[], hardware: IndexEntry[], none?: Record<string, string> }} IndexFile
 * @typedef {{ all: Set<string>, alpha: string[], seq: string }} Words every word and part of a text (and the
 *   major version of a version: 3 of 3.3), those without digits, and the parts in order (" llama 3.3 70 b ")
 * @typedef {{ text: string, digit: boolean, latin: boolean, near: RegExp | null }} Query a word of the query;
 *   near: for a word of letters and numbers, its parts next to each other in an entry's sequence
 * @typedef {{ s: string, n: string, words: Words, other: Words, name: Words[], order: number }} Entry words:
 *   of the name (and slug, for hardware); other: the index's other words; name: one Words per word of the
 *   name without digits
 * @typedef {{ lang: string, models: Entry[], hardware: Entry[], none: string }} SearchIndex
 * @typedef {{ kind: "pair" | "model" | "hardware", name: string, url: string }} Result
 * @typedef {{ entry: Entry, scores: number[], total: number, missed: number }} Scored
 * @typedef {{ rank: number[], result: Result }} Found
 */

const DIGIT = /\p{N}/u;
const LATIN = /^[a-z]+$/;
const NUMBER = /^\p{N}+(?:\.\p{N}+)*$/u;
const VERSION = /^\p{N}+\./u;
// Units a number may be followed by: "24 gb" is "24gb", "70 b" is "70b".
const UNITS = new Set(["gb", "g", "go", "b"]);

/**
 * The words of a text: lower case, without accents, full-width forms folded, Chinese characters apart.
 * @param {string} text
 * @returns {string[]}
 */
export function tokenize(text) {
  const plain = text.toLowerCase().normalize("NFKD").replace(/[\u0300-\u036f]/g, "").replace(/\p{Script=Han}+/gu, " $& ");
  return plain.match(/[\p{L}\p{N}]+(?:\.(?=\p{N})[\p{L}\p{N}]+)*/gu) ?? [];
}

/**
 * A word's runs of letters and of numbers: "qwen2.5" → qwen, 2.5; "a3b" → a, 3, b.
 * @param {string} word
 * @returns {string[]}
 */
function parts(word) {
  return word.match(/\p{N}+(?:\.\p{N}+)*|\p{L}+/gu) ?? [];
}

/**
 * @param {string[]} texts
 * @returns {Words}
 */
function words(texts) {
  /** @type {Set<string>} */
  const all = new Set();
  /** @type {string[]} */
  const seq = [];
  for (const text of texts) {
    for (const word of tokenize(text)) {
      const ps = parts(word);
      all.add(word);
      for (const p of ps) {
        all.add(p);
        if (VERSION.test(p)) all.add(p.slice(0, p.indexOf(".")));
      }
      seq.push(...ps);
    }
    seq.push("|");
  }
  return { all, alpha: [...all].filter((w) => !DIGIT.test(w)), seq: ` ${seq.join(" ")} ` };
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

/**
 * @param {string} text
 * @returns {Query}
 */
function queryWord(text) {
  const ps = parts(text);
  // A number in a query word also matches a version it is the major of: "llama3" matches "Llama 3.3".
  const near = ps.length > 1 && DIGIT.test(text)
    ? new RegExp(` ${ps.map((p) => p.replace(/\./g, "\\.") + (NUMBER.test(p) ? "(?:\\.\\p{N}+)*" : "")).join(" ")} `, "u")
    : null;
  return { text, digit: DIGIT.test(text), latin: LATIN.test(text), near };
}

/**
 * How well one query word matches some words: 4 a whole word, 3 its letters and numbers next to each
 * other, 2 the start of a word, 1 inside a word or one typo away; 0 no match.
 * @param {Query} q
 * @param {Words} w
 */
function wordsScore(q, w) {
  if (w.all.has(q.text)) return 4;
  if (q.digit) return q.near?.test(w.seq) ? 3 : 0;
  const { text, latin } = q;
  let best = 0;
  for (const x of w.alpha) {
    if (x.startsWith(text)) return 2;
    if ((text.length >= (latin ? 4 : 2) && x.includes(text))
      || (latin && text.length >= 4 && LATIN.test(x) && editDistanceAtMost1(text, x))) best = 1;
  }
  return best;
}

/**
 * How well one query word matches an entry: a word of letters found only among the other words (an
 * organization, an alias) counts half a point less than in the name ("mistral small": Mistral-Small
 * before Magistral-Small, whose maker is Mistral AI).
 * @param {Query} q
 * @param {Entry} e
 */
function wordScore(q, e) {
  const other = wordsScore(q, e.other);
  return Math.max(wordsScore(q, e.words), other && !q.digit ? other - 0.5 : other);
}

/**
 * The words of a model's name the query did not match, numbers aside: "Coder", "Distill", "Instruct"
 * (a base model before its variants).
 * @param {Query[]} qs
 * @param {Entry} e
 */
function missed(qs, e) {
  return e.name.filter((w) => !qs.some((q) => wordsScore(q, w))).length;
}

/**
 * The words of a query, a number and the unit after it joined, each once.
 * @param {string} query
 */
function queryWords(query) {
  /** @type {string[]} */
  const out = [];
  for (const t of tokenize(query)) {
    const prev = out[out.length - 1];
    if (prev !== undefined && UNITS.has(t) && NUMBER.test(prev)) out[out.length - 1] = prev + t;
    else out.push(t);
  }
  return [...new Set(out)].map(queryWord);
}

/**
 * The index as the search box uses it, from search-index.json.
 * @param {IndexFile} data
 * @param {string} lang
 * @returns {SearchIndex}
 */
export function prepare(data, lang) {
  // A model's slug spells 3.3 as 3-3 (and 1.7b as 1-7b): only the names of models are read.
  /** @type {(items: IndexEntry[], slugs: boolean) => Entry[]} */
  const entries = (items, slugs) => items.map((x, order) => ({
    s: x.s,
    n: x.n,
    order,
    words: words(slugs ? [x.n, x.s] : [x.n]),
    other: words(x.a),
    name: tokenize(x.n).filter((w) => !DIGIT.test(w)).map((w) => words([w])),
  }));
  const none = data.none?.[lang] ?? "No results";
  return { lang, models: entries(data.models, false), hardware: entries(data.hardware, true), none };
}

/**
 * @param {number[]} a
 * @param {number[]} b
 */
function compareRanks(a, b) {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

/**
 * The best results for a query, best first: pages of models, hardware and pairs.
 * @param {SearchIndex} index
 * @param {string} query
 * @returns {Result[]}
 */
export function search(index, query, limit = 8) {
  const qs = queryWords(query);
  if (!qs.length) return [];
  /** @type {(items: Entry[], named: boolean) => Scored[]} */
  const scored = (items, named) => items.flatMap((entry) => {
    const scores = qs.map((q) => wordScore(q, entry));
    const total = scores.reduce((a, b) => a + b, 0);
    return total ? [{ entry, scores, total, missed: named ? missed(qs, entry) : 0 }] : [];
  });
  const models = scored(index.models, true);
  const hardware = scored(index.hardware, false);
  /** @type {Found[]} */
  const found = [];
  /** @type {[Scored[], "model" | "hardware", string][]} */
  const lists = [[models, "model", "models"], [hardware, "hardware", "hardware"]];
  for (const [list, kind, path] of lists) {
    for (const x of list) {
      if (x.scores.every((s) => s > 0)) {
        found.push({ rank: [-x.total, 0, x.missed, x.entry.order, 0],
          result: { kind, name: x.entry.n, url: `/${index.lang}/${path}/${x.entry.s}/` } });
      }
    }
  }
  // Pairs only when they match better than every page that matches every word on its own.
  const single = -found.reduce((a, f) => Math.min(a, f.rank[0]), 0);
  if (qs.length > 1) {
    for (const m of models) {
      for (const h of hardware) {
        if (!qs.every((_, i) => m.scores[i] || h.scores[i])) continue;
        if (!m.scores.some((s, i) => s && !h.scores[i]) || !h.scores.some((s, i) => s && !m.scores[i])) continue;
        const total = m.scores.reduce((a, s, i) => a + Math.max(s, h.scores[i]), 0);
        if (total <= single) continue;
        const url = `/${index.lang}/models/${m.entry.s}/${h.entry.s}/`;
        found.push({ rank: [-total, 1, m.missed, m.entry.order, h.entry.order],
          result: { kind: "pair", name: `${m.entry.n} · ${h.entry.n}`, url } });
      }
    }
  }
  found.sort((a, b) => compareRanks(a.rank, b.rank) || a.result.name.localeCompare(b.result.name));
  return found.slice(0, limit).map((f) => f.result);
}

// What the box needs in the page's language: the index URL, the language, the words of the box
// (label, placeholder, results list) and, optionally, "No results" (otherwise it comes from the index).
// A small per-language module the build writes (search-<lang>.js) passes them to start(); the box is
// built in the space the style sheet keeps for #search, since it is of no use without JavaScript.
/** @typedef {{ index: string, lang: string, label: string, placeholder: string, results: string, none?: string }} BoxWords */

/**
 * @param {HTMLElement} box
 * @param {BoxWords} words
 */
function build(box, words) {
  const label = document.createElement("label");
  label.htmlFor = "search-q";
  label.className = "visually-hidden";
  label.textContent = words.label;
  const input = document.createElement("input");
  Object.assign(input, { id: "search-q", type: "text", inputMode: "search", enterKeyHint: "search",
    autocomplete: "off", spellcheck: false, placeholder: words.placeholder });
  for (const [name, value] of [["role", "combobox"], ["aria-expanded", "false"], ["aria-controls", "search-results"],
    ["aria-autocomplete", "list"]]) input.setAttribute(name, value);
  const list = document.createElement("ul");
  Object.assign(list, { id: "search-results", hidden: true });
  list.setAttribute("role", "listbox");
  list.setAttribute("aria-label", words.results);
  box.replaceChildren(label, input, list);
  return { input, list };
}

/**
 * The search box in #search, with ``words`` in the page's language.
 * @param {BoxWords} words
 */
export function start(words) {
  const box = document.getElementById("search");
  if (!box) return;
  const { input, list } = build(box, words);
  /** @type {Promise<SearchIndex> | null} */
  let loading = null;
  const load = () => {
    loading ??= fetch(words.index)
      .then((r) => r.json())
      .then((/** @type {IndexFile} */ data) => prepare(data, words.lang))
      .catch((e) => { loading = null; throw e; });
    return loading;
  };
  let active = -1;
  /** @type {Result[]} */
  let results = [];
  // The query the list shows results for (null: the list is closed), and the "no results" message.
  /** @type {string | null} */
  let shown = null;
  let none = "";
  const show = () => {
    const empty = shown !== null && !results.length && tokenize(shown).length > 0;
    const items = results.map((r, i) => {
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
    });
    if (empty) {
      const li = document.createElement("li");
      li.className = "none";
      li.setAttribute("role", "option");
      li.setAttribute("aria-disabled", "true");
      li.setAttribute("aria-selected", "false");
      li.textContent = none;
      items.push(li);
    }
    list.replaceChildren(...items);
    list.hidden = !items.length;
    input.setAttribute("aria-expanded", String(!list.hidden));
    if (active >= 0) input.setAttribute("aria-activedescendant", `search-r${active}`);
    else input.removeAttribute("aria-activedescendant");
  };
  // Search for what the box holds; false when the box changed meanwhile (its own input event follows).
  const update = async () => {
    const query = input.value;
    const index = await load();
    if (input.value !== query) return false;
    none = words.none || index.none;
    results = search(index, query);
    active = results.length ? 0 : -1;
    shown = query;
    show();
    return true;
  };
  input.addEventListener("input", () => { update(); });
  input.addEventListener("keydown", async (ev) => {
    if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
      if (!results.length) return;
      ev.preventDefault();
      active = (active + (ev.key === "ArrowDown" ? 1 : results.length - 1)) % results.length;
      show();
    } else if (ev.key === "Enter") {
      ev.preventDefault();
      // Typed faster than the index loaded: search first, then open the first result.
      if (shown !== input.value && !(await update())) return;
      const r = results[Math.max(active, 0)];
      if (r) window.location.href = r.url;
    } else if (ev.key === "Escape") {
      results = [];
      active = -1;
      shown = null;
      show();
    }
  });
  box.dataset.ready = "1";
}
