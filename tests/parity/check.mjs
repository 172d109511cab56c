// node tests/parity/check.mjs CASES.json — exit 1 and list the disagreements if any.
import { readFileSync } from "node:fs";
import * as display from "../../static/display.js";
import * as sizing from "../../static/sizing.js";
import { runCases, runDisplayCases } from "./compare.mjs";

const data = JSON.parse(readFileSync(process.argv[2], "utf8"));
const problems = [...runCases(sizing, data), ...runDisplayCases(display, data)];
for (const p of problems.slice(0, 40)) console.log(p);
const n = data.cases.length + data.number_cases.length + data.command_cases.length + data.chart_cases.length + data.value_chart_cases.length;
console.log(`${n} cases, ${problems.length} disagreements`);
process.exit(problems.length ? 1 : 0);
