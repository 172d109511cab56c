// node tests/search/run.mjs INDEX.json QUERIES.json — the search box's results for each query in each
// language, as JSON on stdout: {lang: {query: [url, ...]}}. QUERIES.json: {"langs": [...], "queries": [...]}.
import { readFileSync } from "node:fs";
import { prepare, search } from "../../static/search.js";

const data = JSON.parse(readFileSync(process.argv[2], "utf8"));
const { langs, queries, limit } = JSON.parse(readFileSync(process.argv[3], "utf8"));
/** @type {Record<string, Record<string, string[]>>} */
const out = {};
for (const lang of langs) {
  const index = prepare(data, lang);
  out[lang] = {};
  for (const q of queries) out[lang][q] = search(index, q, limit ?? 8).map((r) => r.url);
}
process.stdout.write(JSON.stringify(out));
