// Server-side time of `noisegraph serve` previews: every preset at SIZE x SIZE, RUNS times
// each, against a running server (start it with `cargo run --release -- serve --port 8765`).
//   node benches/serve_presets.mjs [URL] [SIZE] [RUNS] [SERVER_PID]
// Prints, per preset, the median render time (plan and engine run, wall clock), statistics
// time and round trip. With the server's process id (Linux), also the CPU time the server's
// threads spent per request (from /proc/PID/task/*/schedstat), which other processes on a
// busy machine do not inflate. The figures in BENCHMARKS.md come from this script.
import { readdirSync, readFileSync } from 'node:fs';

const url = process.argv[2] || 'http://127.0.0.1:8765/';
const size = Number(process.argv[3] || 512);
const runs = Number(process.argv[4] || 9);
const pid = process.argv[5];

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

// Nanoseconds the server's threads have run, summed (threads that ended are not counted:
// the server's render threads live as long as it does).
function cpuNs() {
  let total = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // The thread ended meanwhile.
    }
  }
  return total;
}

const presets = await (await fetch(new URL('api/presets', url))).json();
const meta = await (await fetch(new URL('api/meta', url))).json();
console.log(`${size}x${size} previews on the ${meta.backend}, median of ${runs} runs (one warm-up run first)`);
console.log(`preset      render ms  stats ms  round trip ms${pid ? '  server CPU ms' : ''}`);
for (const p of presets) {
  const body = JSON.stringify({ graph: JSON.parse(p.json), size: [size, size] });
  const render = [];
  const stats = [];
  const trip = [];
  const cpu = [];
  for (let i = 0; i <= runs; i++) {
    const c = pid ? cpuNs() : 0;
    const t = performance.now();
    const response = await fetch(new URL('api/render', url), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
    const buffer = await response.arrayBuffer();
    const elapsed = performance.now() - t;
    const used = pid ? (cpuNs() - c) / 1e6 : 0;
    if (response.status !== 200) throw new Error(`${p.name}: HTTP ${response.status}`);
    const length = new DataView(buffer).getUint32(0, true);
    const header = JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, 4, length)));
    if (i === 0) continue;
    render.push(header.render_ms);
    stats.push(header.stats_ms);
    trip.push(elapsed);
    cpu.push(used);
  }
  const f = (x, w) => x.toFixed(1).padStart(w);
  console.log(`${p.name.padEnd(10)} ${f(median(render), 10)} ${f(median(stats), 9)} ${f(median(trip), 14)}${pid ? f(median(cpu), 15) : ''}   (render min ${Math.min(...render).toFixed(1)}, max ${Math.max(...render).toFixed(1)})`);
}
