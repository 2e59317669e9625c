// tests/formats/validate_speedscope.js: checks a speedscope file against
// tests/data/speedscope-schema.json with ajv, plus what a schema cannot say
// and speedscope's importer insists on: frame indices in range, one weight
// per sample, endValue >= startValue.
//   node validate_speedscope.js SCHEMA FILE   -> exit 0, or messages and 1
"use strict";
const fs = require("fs");
const Ajv = require("ajv");

const [schemaPath, filePath] = process.argv.slice(2);
const schema = JSON.parse(fs.readFileSync(schemaPath, "utf8"));
const data = JSON.parse(fs.readFileSync(filePath, "utf8"));
const ajv = new Ajv({ allErrors: true, strict: false });
const errors = [];

if (!ajv.validate(schema, data))
  for (const e of ajv.errors) errors.push(`schema: ${e.instancePath || "/"} ${e.message}`);
const nframes = data.shared && Array.isArray(data.shared.frames) ? data.shared.frames.length : 0;
(data.profiles || []).forEach((p, i) => {
  if (p.type !== "sampled" || !Array.isArray(p.samples) || !Array.isArray(p.weights)) return;
  if (p.samples.length !== p.weights.length)
    errors.push(`profile ${i}: ${p.samples.length} samples but ${p.weights.length} weights`);
  if (p.endValue < p.startValue) errors.push(`profile ${i}: endValue < startValue`);
  p.samples.forEach((s, j) => s.forEach((f) => {
    if (f >= nframes) errors.push(`profile ${i} sample ${j}: frame ${f} out of range (${nframes})`);
  }));
});
if (errors.length) {
  console.error(errors.join("\n"));
  process.exit(1);
}
console.log(`ok: ${data.profiles.length} profiles, ${nframes} frames`);
