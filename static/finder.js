// @ts-check
// The buyer's answer in the browser: generator/site/setups.py line by line (the parity vectors and a
// browser test check that both give the same first rows). For a model and a question (context, speed
// per user, users, buy new / used / rent, most devices, budget, engine) it lists every accelerator's
// cheapest setup: the cheapest devices that hold the model and reach the speed, the best format there
// (one with a published checkpoint before one the user quantizes), the engine's default KV cache or its
// 8-bit one. No DOM.

/**
 * @typedef {import("./sizing.js").Model} Model
 * @typedef {import("./sizing.js").Hardware} Hardware
 * @typedef {import("./sizing.js").QuantFormat} QuantFormat
 * @typedef {import("./sizing.js").EngineProfile} EngineProfile
 * @typedef {import("./sizing.js").KVDtype} KVDtype
 * @typedef {import("./sizing.js").CloudOffer} CloudOffer
 * @typedef {import("./sizing.js").Estimate} Estimate
 * @typedef {import("./sizing.js").Facts} Facts
 * @typedef {import("./sizing.js").RigsFile} RigsFile
 * @typedef {import("./sizing.js").RigCost} RigCost
 * @typedef {[number, UnitPrice | null, number | null, CloudOffer | null, RigCost | null]} Cost
 *   what a setup costs, the unit price, $/hour, the instance rented, the rig bought
 * @typedef {import("./display.js").Artifacts} Artifacts
 * @typedef {{ usd: number, date: string, kind: string }} UnitPrice
 * @typedef {Hardware & { used_price: UnitPrice | null }} FinderHardware
 * @typedef {{ candidates: [string, string][], kv8: Record<string, string>, single: string[],
 *   poor_cells: [string, string, boolean, number][] }} Rules setups.py's tables
 * @typedef {{ formats: QuantFormat[], engines: EngineProfile[], kv_cache: KVDtype[],
 *   family_engine: Record<string, string>, hardware: FinderHardware[], offers: CloudOffer[], rules: Rules }} FinderData
 * @typedef {{ context: number, min_tok_s: number, users: number, mode: "buy" | "used" | "rent",
 *   max_devices: number, budget_usd: number | null, engine: string | null, interruptible?: boolean }} Question
 *   interruptible: rentals may be spot or marketplace offers (on demand only by default)
 * @typedef {{ hardware: FinderHardware, devices: number, fmt: string, engine: string, kv_dtype: string, rank: number,
 *   decode_tok_s: number, decode_low: number | null }} Option
 * @typedef {{ hardware: FinderHardware, devices: number, units: number, fmt: string, engine: string, kv_dtype: string,
 *   est: Estimate, cost_usd: number, price: UnitPrice | null, usd_per_hour: number | null,
 *   offer: CloudOffer | null, rig: RigCost | null, may_fall_short: boolean, poor_cell: number | null,
 *   published: boolean }} Setup
 */

/**
 * Whether a checkpoint of the format is published for the model (16-bit weights: the model's own).
 * @param {Artifacts} art
 * @param {string} fmt
 * @param {string} family
 */
function available(art, fmt, family) {
  if (family === "gguf") return art.gguf.length > 0;
  if (family === "mlx") return art.mlx.length > 0;
  if (fmt === "AWQ") return art.awq.length > 0;
  if (fmt === "GPTQ") return art.gptq.length > 0;
  if (fmt === "MXFP4") return art.mxfp4.length > 0;
  return true;
}

/**
 * Device counts to try, fewest first: whole cards of a multi-chip entry, one machine of a single one.
 * @param {typeof import("./sizing.js")} sizing
 * @param {Model} model
 * @param {FinderHardware} hw
 * @param {EngineProfile} engine
 * @param {Rules} rules
 * @param {number} maxDevices
 */
function deviceCounts(sizing, model, hw, engine, rules, maxDevices) {
  if (rules.single.includes(hw.kind)) return [hw.chips];
  const out = [];
  for (let n = hw.chips; n <= maxDevices; n += hw.chips) if (sizing.tpValid(model, engine, n)) out.push(n);
  return out;
}

/**
 * Every (accelerator, devices, format, KV cache) that holds the model at `context` for `users`.
 * @param {typeof import("./sizing.js")} sizing
 * @param {FinderData} data
 * @param {Facts} facts
 * @param {Model} model
 * @param {Artifacts} art
 * @param {number} context
 * @param {number} users
 * @param {number} maxDevices
 * @returns {Option[]}
 */
export function options(sizing, data, facts, model, art, context, users, maxDevices) {
  /** @type {Option[]} */
  const out = [];
  for (const hw of data.hardware) {
    data.rules.candidates.forEach(([fmtName, engineName], rank) => {
      const fmt = data.formats.find((f) => f.name === fmtName);
      const engine = data.engines.find((e) => e.name === engineName);
      if (!fmt || !engine || !sizing.backendsOn(engine, hw).length) return;
      // setups.py UNPUBLISHED_RANK: a format with no published checkpoint ranks after every one with one.
      const unpublished = available(art, fmtName, fmt.family) ? 0 : 2 * data.rules.candidates.length;
      const kvs = [engine.default_kv_dtype, ...(data.rules.kv8[engineName] ? [data.rules.kv8[engineName]] : [])];
      kvs.forEach((kvName, k) => {
        const kv = /** @type {KVDtype} */ (data.kv_cache.find((x) => x.name === kvName));
        for (const devices of deviceCounts(sizing, model, hw, engine, data.rules, maxDevices)) {
          const sc = { fmt, kv, engine, context, batch: users, gpus: devices, offload: 0, vision: false };
          if (sizing.checkScenario(model, hw, sc)) break;
          const est = sizing.estimate(model, hw, sc, facts);
          if (est.verdict === "oom") continue;
          out.push({ hardware: hw, devices, fmt: fmtName, engine: engineName, kv_dtype: kvName,
            rank: rank * 2 + k + unpublished, decode_tok_s: est.decode_tok_s, decode_low: est.decode_tok_s_low });
          if (engine.split !== "tensor") break;
        }
      });
    });
  }
  return out;
}

/**
 * What the question's mode costs for `devices` devices of `hw` ($, or $/hour to rent), the price used, $/hour, the
 * instance rented and the rig bought; or null (setups.py setup_cost: one instance with enough GPUs, on demand
 * unless the question takes spot and marketplace offers; several cards with the rig that takes them).
 * @param {typeof import("./sizing.js")} sizing
 * @param {FinderHardware} hw
 * @param {number} devices
 * @param {Question} q
 * @param {CloudOffer[]} offers
 * @param {RigsFile | null} rigs
 * @returns {Cost | null}
 */
function costOf(sizing, hw, devices, q, offers, rigs) {
  const units = Math.ceil(devices / hw.chips);
  if (q.mode === "rent") {
    const offer = sizing.rental(offers, hw.slug, units, q.interruptible ? sizing.ANY_BILLING : sizing.RENT_BILLING);
    return offer ? [offer.usd_per_hour, null, offer.usd_per_hour, offer, null] : null;
  }
  const price = q.mode === "used" ? hw.used_price : hw.price;
  const got = price ? sizing.bought(hw, units, price.usd, rigs) : null;
  return got ? [got[0], price, null, null, got[1]] : null;
}

/**
 * The answer to `q` from the options at its context (setups.py answer_from): per accelerator the cheapest option
 * that meets the question, the best format at that cost; cheapest first, faster, by slug (the first `limit`, with
 * estimates). Options on a poorly measured engine cell come after the others; one whose decode range reaches
 * below the speed is flagged.
 * @param {typeof import("./sizing.js")} sizing
 * @param {FinderData} data
 * @param {Facts} facts
 * @param {Model} model
 * @param {Question} q
 * @param {Option[]} found
 * @param {number} [limit]
 * @returns {Setup[]}
 */
export function answer(sizing, data, facts, model, q, found, limit) {
  /** @typedef {{ o: Option, c: Cost, short: boolean, poor: number | null, unsure: number }} Priced */
  /** @type {Map<string, Cost | null>} */
  const costs = new Map();
  /** @type {Map<string, Priced>} */
  const best = new Map();
  for (const o of found) {
    if (o.decode_tok_s < q.min_tok_s || o.devices > q.max_devices || (q.engine && o.engine !== q.engine)) continue;
    const key = `${o.hardware.slug}|${o.devices}`;
    if (!costs.has(key)) costs.set(key, costOf(sizing, o.hardware, o.devices, q, data.offers, facts.assumptions.rigs));
    const c = costs.get(key);
    if (!c || (q.budget_usd != null && c[0] > q.budget_usd)) continue;
    const short = o.decode_low != null && o.decode_low < q.min_tok_s;
    const cell = data.rules.poor_cells.find(([e, v, several]) =>
      e === o.engine && v === o.hardware.vendor && several === o.devices > 1);
    const poor = cell ? cell[3] : null;
    /** @type {Priced} */
    const p = { o, c, short, poor, unsure: poor != null ? 1 : 0 };
    const cur = best.get(o.hardware.slug);
    // setups.py _Priced.choice: well measured first, cheapest, best format, fastest.
    if (!cur || (p.unsure - cur.unsure || c[0] - cur.c[0] || o.rank - cur.o.rank || cur.o.decode_tok_s - o.decode_tok_s) < 0) {
      best.set(o.hardware.slug, p);
    }
  }
  // setups.py _Priced.key: well measured first, cheapest, fewest cards bought, fastest, by slug.
  const cards = (/** @type {Priced} */ p) => (p.c[4] ? p.c[4].cards : Math.ceil(p.o.devices / p.o.hardware.chips));
  const ranked = [...best.values()].sort((a, b) => a.unsure - b.unsure || a.c[0] - b.c[0] || cards(a) - cards(b) ||
    b.o.decode_tok_s - a.o.decode_tok_s || (a.o.hardware.slug < b.o.hardware.slug ? -1 : a.o.hardware.slug > b.o.hardware.slug ? 1 : 0));
  return ranked.slice(0, limit ?? ranked.length).map(({ o, c: [cost, price, hourly, offer, rig], short, poor }) => {
    const sc = { fmt: /** @type {QuantFormat} */ (data.formats.find((f) => f.name === o.fmt)),
      kv: /** @type {KVDtype} */ (data.kv_cache.find((k) => k.name === o.kv_dtype)),
      engine: /** @type {EngineProfile} */ (data.engines.find((e) => e.name === o.engine)),
      context: q.context, batch: q.users, gpus: o.devices, offload: 0, vision: false };
    const est = sizing.estimate(model, o.hardware, sc, facts);
    return { hardware: o.hardware, devices: o.devices, units: Math.ceil(o.devices / o.hardware.chips), fmt: o.fmt,
      engine: o.engine, kv_dtype: o.kv_dtype, est, cost_usd: cost, price, usd_per_hour: hourly, offer, rig,
      may_fall_short: short, poor_cell: poor, published: o.rank < 2 * data.rules.candidates.length };
  });
}
