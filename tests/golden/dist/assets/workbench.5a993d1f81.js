// Interactive workbench on pair pages: the controls re-run the sizing model (sizing.js, the same
// numbers as the build) and every [data-field] element shows the new value. Without JavaScript the
// section stays hidden and the static report is complete.

const root = document.getElementById("workbench");
const dataEl = document.getElementById("wb-data");

function interpolate(template, values) {
  return template.replace(/\{(\w+)\}/g, (_, key) => (key in values ? values[key] : `{${key}}`));
}

async function main() {
  const data = JSON.parse(dataEl.textContent);
  const t = JSON.parse(document.getElementById("wb-i18n").textContent);
  // Formats, engines, constants and calibration are the same on every page: one cached asset.
  const [sizing, shared] = await Promise.all([import(data.sizing_url), fetch(data.shared_url).then((r) => r.json())]);
  Object.assign(data, shared);
  const compareMenu = document.getElementById("wb-compare");
  for (const [slug, name] of data.hardware_names) {
    if (slug !== data.hardware.slug) compareMenu.append(new Option(name, slug));
  }
  const locale = { en: "en", fr: "fr", zh: "zh-Hans-CN" }[data.lang] || "en";
  const nf = (digits) => new Intl.NumberFormat(locale, { minimumFractionDigits: digits, maximumFractionDigits: digits });
  const num = (v, d = 0) => (v == null || !Number.isFinite(v) ? "—" : nf(d).format(v));
  const sig = (v) => (v == null || !Number.isFinite(v) ? "—" : num(v, Math.abs(v) < 10 ? 2 : Math.abs(v) < 100 ? 1 : 0));
  const [kib, mib, gib, tib] = t.units;
  const bytes = (n) => {
    if (n == null) return "—";
    const a = Math.abs(n);
    if (a < 1024 ** 2) return `${num(n / 1024, 1)}\u00a0${kib}`;
    if (a < 1024 ** 3) return `${num(n / 1024 ** 2, 0)}\u00a0${mib}`;
    if (a < 1024 ** 4) return `${num(n / 1024 ** 3, 1)}\u00a0${gib}`;
    return `${num(n / 1024 ** 4, 2)}\u00a0${tib}`;
  };
  const pct = (v) => new Intl.NumberFormat(locale, { style: "percent", maximumFractionDigits: 0 }).format(v);
  const usd = (v) => (v == null ? "—" : new Intl.NumberFormat(locale, { style: "currency", currency: "USD",
    minimumFractionDigits: Math.abs(v) >= 0.1 || v === 0 ? 2 : 3, maximumFractionDigits: Math.abs(v) >= 0.1 || v === 0 ? 2 : 3 }).format(v));
  const tokS = (v) => (v == null ? "—" : interpolate(t.tok_s, { n: sig(v) }));
  const secs = (v) => (v == null ? "—" : interpolate(t.seconds, { n: sig(v) }));
  const tokens = (n) => (n >= 1024 && n % 1024 === 0 ? `${num(n / 1024)}K` : num(n));
  const verdictHtml = (v) => {
    const span = document.createElement("span");
    span.className = `verdict v-${v}`;
    span.textContent = t[v];
    return span;
  };

  const display = {
    verdict: (v) => verdictHtml(v),
    max_context: (v) => interpolate(t.tokens, { n: num(v) }),
    min_gpus: (v) => (v == null ? "—" : num(v)),
    decode_tok_s: tokS, prefill_tok_s: tokS, ttft_s: secs, usd_per_mtok: usd,
    decode_tok_s_low: sig, decode_tok_s_high: sig, prefill_tok_s_low: sig, prefill_tok_s_high: sig,
    ttft_s_low: sig, ttft_s_high: sig,
  };
  const format = (key, v) => (display[key] ? display[key](v) : key.endsWith("_bytes") ? bytes(v) : num(v));

  const form = document.getElementById("wb-form");
  const errorEl = document.getElementById("wb-error");
  const steps = data.context_steps;
  const facts = { assumptions: data.assumptions, calibration: data.calibration, ranges: data.ranges,
    offers: data.offers, api_prices: data.api_prices };
  let current = null;

  function read() {
    const f = new FormData(form);
    return {
      quant: f.get("quant"), engine: f.get("engine"), kv_dtype: f.get("kv_dtype"),
      context: Math.max(1, Math.min(Number(f.get("context")) || 1, data.model.architecture.max_context)),
      batch: Math.max(1, Number(f.get("batch")) || 1), gpus: Math.max(1, Number(f.get("gpus")) || 1),
      offload: Number(f.get("offload")) || 0,
    };
  }

  function commands(keys, s) {
    const a = data.artifacts;
    const out = {};
    const fmt = s.quant;
    if (a.gguf.length) {
      const parts = ["llama-server", "-hf", `${a.gguf[0]}:${fmt.toUpperCase()}`, "-c", String(s.context * s.batch), "-ngl",
        s.offload ? String(Math.round(data.model.architecture.num_layers * (1 - s.offload))) : "99", "-fa", "on"];
      if (s.kv_dtype === "q8_0" || s.kv_dtype === "q4_0") parts.push("-ctk", s.kv_dtype, "-ctv", s.kv_dtype);
      if (s.batch > 1) parts.push("--parallel", String(s.batch));
      out["llama.cpp"] = parts.join(" ");
    }
    const repo = { AWQ: a.awq[0], GPTQ: a.gptq[0], FP8: a.fp8[0] }[fmt] || data.model.hf_id;
    const vparts = ["vllm", "serve", repo, "--max-model-len", String(s.context), "--gpu-memory-utilization", "0.9"];
    if (s.gpus > 1) vparts.push("--tensor-parallel-size", String(s.gpus));
    if (s.kv_dtype === "fp8") vparts.push("--kv-cache-dtype", "fp8");
    if (s.batch > 1) vparts.push("--max-num-seqs", String(s.batch));
    out.vllm = vparts.join(" ");
    if (a.ollama) out.ollama = `FROM ${a.ollama}\nPARAMETER num_ctx ${s.context}`;
    if (a.mlx.length) out.mlx = `mlx_lm.server --model ${a.mlx[0]} --max-tokens ${Math.min(s.context, 4096)}`;
    return out;
  }

  function render(keys, s) {
    for (const el of document.querySelectorAll("[data-field]")) {
      const key = el.dataset.field;
      if (!(key in keys)) continue;
      const v = keys[key];
      el.dataset.value = v == null ? "" : String(v);
      const shown = format(key, v);
      if (shown instanceof Node) el.replaceChildren(shown);
      else el.textContent = shown;
    }
    const banner = document.getElementById("banner");
    banner.className = `banner v-${keys.verdict}`;
    const p = banner.querySelector("p");
    const engineLabel = data.engines.find((e) => e.name === keys.engine).label;
    p.textContent = `${interpolate(t.banner, { quant: keys.quant, engine: engineLabel, ctx: tokens(s.context),
      total: bytes(keys.total_bytes), usable: bytes(keys.usable_bytes), pct: pct(keys.utilization) })} ${
      keys.verdict === "oom" ? interpolate(t.short, { over: bytes(keys.total_bytes - keys.usable_bytes) })
        : interpolate(t.headroom, { h: bytes(keys.headroom_bytes) })}`;
    const svg = document.getElementById("memchart");
    if (svg) {
      const scale = Math.max(keys.total_bytes, keys.usable_bytes) || 1;
      let x = 10;
      for (const [cls, n] of [["weights", keys.weights_bytes], ["kv_cache", keys.kv_cache_bytes], ["overhead", keys.overhead_bytes]]) {
        const rect = svg.querySelector(`rect.seg-${cls}`);
        const w = (n / scale) * 580;
        rect.setAttribute("x", x.toFixed(1));
        rect.setAttribute("width", w.toFixed(1));
        x += w;
      }
      const ux = 10 + (keys.usable_bytes / scale) * 580;
      for (const line of svg.querySelectorAll("line.limit")) { line.setAttribute("x1", ux.toFixed(1)); line.setAttribute("x2", ux.toFixed(1)); }
      const label = svg.querySelector("text.limit-label");
      if (label) {
        label.setAttribute("x", ux.toFixed(1));
        label.setAttribute("text-anchor", ux > 300 ? "end" : "start");
        label.textContent = interpolate(t.usable, { u: bytes(keys.usable_bytes) });
      }
    }
    const cmds = commands(keys, s);
    for (const code of document.querySelectorAll("[data-command]")) {
      const text = cmds[code.dataset.command];
      if (text) code.textContent = text;
    }
    document.getElementById("wb-offload-out").textContent = pct(s.offload);
  }

  function update() {
    const s = read();
    const sc = sizing.scenario(data, s);
    const problem = sc.fmt && sc.engine && sc.kv ? sizing.checkScenario(data.model, data.hardware, sc) : "unknown option";
    errorEl.textContent = problem;
    form.querySelector("[name=context_slider]").value = String(Math.max(0, steps.findLastIndex((c) => c <= s.context)));
    if (problem) return;
    const keys = sizing.estimate(data.model, data.hardware, sc, facts);
    current = { keys, s };
    render(keys, s);
  }

  function fixKv() {
    // Keep the KV dtype valid for the chosen engine (its default otherwise).
    const eng = data.engines.find((e) => e.name === form.engine.value);
    const kv = data.kv_cache.find((k) => k.name === form.kv_dtype.value);
    for (const opt of form.kv_dtype.options) {
      const k = data.kv_cache.find((x) => x.name === opt.value);
      opt.disabled = !k.engines.includes(eng.name);
    }
    if (!kv.engines.includes(eng.name)) form.kv_dtype.value = eng.default_kv_dtype;
  }

  function fixEngine() {
    // A format change picks the engine that loads it when the current one cannot.
    const fmt = data.formats.find((f) => f.name === form.quant.value);
    const eng = data.engines.find((e) => e.name === form.engine.value);
    if (!eng.formats.includes(fmt.family)) {
      const natural = { gguf: "llama.cpp", mlx: "mlx" }[fmt.family] || "vllm";
      form.engine.value = natural;
    }
  }

  form.addEventListener("input", (ev) => {
    const name = ev.target.name;
    if (name === "context_slider") form.context.value = String(steps[Number(ev.target.value)]);
    if (name === "quant") fixEngine();
    if (name === "quant" || name === "engine") fixKv();
    update();
  });
  form.addEventListener("change", (ev) => {
    if (ev.target.name === "quant" || ev.target.name === "engine") { fixEngine(); fixKv(); update(); }
  });
  for (const b of root.querySelectorAll("button[data-context]")) {
    b.addEventListener("click", () => { form.context.value = b.dataset.context; update(); });
  }
  form.addEventListener("submit", (ev) => ev.preventDefault());

  // Two-hardware comparison: the other accelerator's facts come from its JSON, the numbers from the sizing model.
  const compare = document.getElementById("wb-compare");
  const cmpTable = document.getElementById("wb-compare-table");
  const cmpCache = new Map();
  async function renderCompare() {
    const slug = compare.value;
    if (!slug || !current) { cmpTable.hidden = true; return; }
    if (!cmpCache.has(slug)) cmpCache.set(slug, (await (await fetch(`/api/v1/hardware/${slug}.json`)).json()).facts);
    const other = cmpCache.get(slug);
    const sc = sizing.scenario(data, current.s);
    const problem = sizing.checkScenario(data.model, other, sc);
    const b = problem ? null : sizing.estimate(data.model, other, sc, { ...facts, offers: [] });
    document.getElementById("wb-cmp-b").textContent = other.name;
    for (const row of cmpTable.querySelectorAll("tbody tr")) {
      const key = row.dataset.key;
      const cells = row.querySelectorAll("td");
      for (const [cell, keys] of [[cells[0], current.keys], [cells[1], b]]) {
        if (!keys) { cell.textContent = problem; continue; }
        const shown = format(key, keys[key]);
        if (shown instanceof Node) cell.replaceChildren(shown);
        else cell.textContent = shown;
        cell.dataset.value = keys[key] == null ? "" : String(keys[key]);
      }
    }
    cmpTable.hidden = false;
  }
  compare.addEventListener("change", renderCompare);
  form.addEventListener("input", () => { if (compare.value) renderCompare(); });

  // Live token simulator: wait the time to first token, then stream placeholder tokens at the decode rate.
  const simOut = document.getElementById("wb-sim-out");
  const simStatus = document.getElementById("wb-sim-status");
  let timer = null;
  document.getElementById("wb-sim-start").addEventListener("click", () => {
    if (!current) return;
    clearTimeout(timer);
    const { keys } = current;
    const rate = keys.decode_tok_s;
    const ttft = keys.ttft_s ?? 0;
    const total = 200;
    simOut.textContent = "";
    simStatus.textContent = interpolate(t.sim_prefill, { n: num(keys.ttft_prompt_tokens) });
    const start = performance.now();
    timer = setTimeout(function tick() {
      const elapsed = (performance.now() - start) / 1000 - ttft;
      if (simStatus.dataset.phase !== "decode") {
        simStatus.dataset.phase = "decode";
        simStatus.textContent = interpolate(t.sim_decode, { t: secs(ttft), speed: tokS(rate) });
      }
      const due = Math.min(total, Math.floor(elapsed * rate));
      const have = simOut.textContent.length / 4;
      if (due > have) simOut.textContent += "tok ".repeat(due - have);
      if (due >= total) {
        simStatus.dataset.phase = "";
        simStatus.textContent = interpolate(t.sim_done, { n: num(total), t: secs(ttft + total / rate) });
        return;
      }
      timer = setTimeout(tick, Math.max(16, 1000 / Math.min(rate, 60)));
    }, ttft * 1000);
  });

  fixKv();
  update();
  root.dataset.ready = "1";
}

if (root && dataEl) main();
