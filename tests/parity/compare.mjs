// Runs the browser engine on every parity case and lists the disagreements with Python.
// Integers (bytes, counts) must be equal; floats within 1e-9 relative; words and nulls equal.
const INTEGER_KEYS = /(_bytes$|^params_|^max_context$|^max_batch$|^min_gpus$|^ttft_prompt_tokens$)/;

export function runCases(engine, data) {
  const problems = [];
  const facts = { assumptions: data.shared.assumptions, calibration: data.shared.calibration,
    ranges: data.shared.ranges,
    offers: data.offers, api_prices: data.api_prices };
  for (const { inputs, expected } of data.cases) {
    const model = data.models[inputs.model];
    const hw = data.hardware[inputs.hardware];
    const sc = engine.scenario({ formats: data.shared.formats, engines: data.shared.engines,
      kv_cache: data.shared.kv_cache, family_engine: data.shared.family_engine }, { quant: inputs.quant, engine: inputs.engine, kv_dtype: inputs.kv_dtype,
      context: inputs.context, batch: inputs.batch, gpus: inputs.gpus, offload: inputs.offload, vision: inputs.vision });
    const label = JSON.stringify(inputs);
    if (expected.error) {
      const got = engine.checkScenario(model, hw, sc);
      if (got !== expected.error) problems.push(`${label}: Python refused with "${expected.error}", JS with "${got}"`);
      continue;
    }
    let got;
    try {
      got = engine.estimate(model, hw, sc, facts);
      got = { ...got, ...engine.budgetUse(got, inputs.budget, facts.assumptions) };
    } catch (err) {
      problems.push(`${label}: JS threw ${err.message}`);
      continue;
    }
    for (const [key, want] of Object.entries(expected)) {
      const have = got[key];
      if (want === null || typeof want === "string" || typeof want === "boolean") {
        if (have !== want) problems.push(`${label} ${key}: python ${want} js ${have}`);
      } else if (INTEGER_KEYS.test(key)) {
        if (have !== want) problems.push(`${label} ${key}: python ${want} js ${have} (bytes and counts must be equal)`);
      } else if (typeof have !== "number" || Math.abs(have - want) > 1e-9 * Math.abs(want)) {
        problems.push(`${label} ${key}: python ${want} js ${have}`);
      }
    }
  }
  return problems;
}

// Formatting, launch commands and the memory chart: the same text and geometry as Python.
export function runDisplayCases(display, data) {
  const problems = [];
  const formats = Object.fromEntries(Object.entries(data.number_specs).map(([lang, spec]) => [lang, display.numberFormat(spec)]));
  for (const { lang, method, args, expected } of data.number_cases) {
    const got = formats[lang][method](...args);
    if (got !== expected) problems.push(`${lang} ${method}(${args.join(", ")}): python ${JSON.stringify(expected)} js ${JSON.stringify(got)}`);
  }
  for (const { model, memory_utilization, inputs, expected } of data.command_cases) {
    const got = display.launchCommand(data.models[model], data.artifacts[model], memory_utilization, inputs);
    if (JSON.stringify(got) !== JSON.stringify(expected)) {
      problems.push(`${model} ${JSON.stringify(inputs)}: python ${JSON.stringify(expected)} js ${JSON.stringify(got)}`);
    }
  }
  for (const { keys, expected } of data.chart_cases) {
    const got = display.memoryBars(keys, data.shared.memory_chart);
    if (JSON.stringify(got) !== JSON.stringify(expected)) problems.push(`chart ${JSON.stringify(keys)}: python ${JSON.stringify(expected)} js ${JSON.stringify(got)}`);
  }
  // Coordinates agree to a millionth of a unit (Math.log10 and math.log10 may differ in the last bit).
  const close = (/** @type {unknown} */ a, /** @type {unknown} */ b) => JSON.stringify(a, (_, v) =>
    typeof v === "number" ? Math.round(v * 1e6) / 1e6 : v) === JSON.stringify(b, (_, v) =>
    typeof v === "number" ? Math.round(v * 1e6) / 1e6 : v);
  for (const { setups, expected } of data.value_chart_cases) {
    const got = display.valueChart(setups, data.shared.value_chart);
    if (!close(got, expected)) problems.push(`value chart ${JSON.stringify(setups)}: python ${JSON.stringify(expected)} js ${JSON.stringify(got)}`);
  }
  return problems;
}
