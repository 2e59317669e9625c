// tests/workloads/lang_node.js: a Node.js program for the perf map test (tests/tier_langs.py).
//
// hotLoop runs for SECS seconds (argv[2], default 2) in one call, so V8
// compiles it on the stack (OSR) and its JIT code holds nearly every sample;
// run with `node --perf-basic-prof` it is named in /tmp/perf-PID.map. With
// `late` (argv[3]) hotLoop runs 1.5 s, then lateLoop SECS seconds.
function hotLoop(ms) {
  const end = Date.now() + ms;
  let acc = 0;
  while (Date.now() < end)
    for (let i = 0; i < 100000; i++) acc = (acc + Math.imul(i, 2654435761)) | 0;
  return acc;
}

// Compiled only when first called, after sprof's last timed re-read of the
// process (1 s after its first sample): named from a perf map that grew.
function lateLoop(ms) {
  const end = Date.now() + ms;
  let acc = 1;
  while (Date.now() < end)
    for (let i = 0; i < 100000; i++) acc = (acc * 31 + i) | 0;
  return acc;
}

function main() {
  const secs = Number(process.argv[2] || 2);
  if (process.argv[3] === "late")
    return hotLoop(1500) + lateLoop(1000 * secs);
  return hotLoop(1000 * secs);
}

console.log(main());
