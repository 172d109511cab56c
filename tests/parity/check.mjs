// node tests/parity/check.mjs CASES.json — exit 1 and list the disagreements if any.
import { readFileSync } from "node:fs";
import * as sizing from "../../static/sizing.js";
import { runCases } from "./compare.mjs";

const data = JSON.parse(readFileSync(process.argv[2], "utf8"));
const problems = runCases(sizing, data);
for (const p of problems.slice(0, 40)) console.log(p);
console.log(`${data.cases.length} cases, ${problems.length} disagreements`);
process.exit(problems.length ? 1 : 0);
