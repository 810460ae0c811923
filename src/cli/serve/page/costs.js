// Cost per node (own time and total, on the server's backend, over the current view:
// /api/costs) and the parity check (the view's node and its upstream run on the GPU and on
// the CPU path: the largest difference per node, /api/parity), shown in the nodes' boxes.
import { postCosts, postParity } from './api.js';
import { $ } from './dom.js';
import { inputIds } from './schema.js';
import { nodeById, state } from './state.js';

// id -> { own, total } | { errors }; id -> { max_abs, tolerance, ok }.
const shown = { costs: new Map(), parity: new Map(), parityUpstream: new Set(), stale: false, busy: 0 };

// The request fields of the view (set by the view module).
let viewRequestFn = () => ({});
export function setCostView(fn) {
  viewRequestFn = fn;
}

export function costsStale() {
  if (shown.costs.size || shown.parity.size) {
    shown.stale = true;
    showCosts();
  }
}

function fmtMs(ms) {
  return ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2);
}

export function showCosts() {
  for (const b of document.querySelectorAll('.gnode')) {
    const line = b.querySelector('.gcost');
    const c = shown.costs.get(b.dataset.id);
    const p = shown.parity.get(b.dataset.id);
    const parts = [];
    if (c && c.total !== undefined) parts.push(`own ${fmtMs(c.own)} · total ${fmtMs(c.total)} ms`);
    if (p) parts.push(`GPU−CPU ${p.max_abs.toExponential(1)}${p.ok ? '' : ' (over tolerance)'}`);
    else if (shown.parityUpstream.has(b.dataset.id)) parts.push('GPU−CPU: inside its reader’s stage');
    line.textContent = parts.join('\n');
    line.classList.toggle('stale', shown.stale);
    line.classList.toggle('over', !!p && !p.ok);
    if (c) {
      line.dataset.own = String(c.own);
      line.dataset.total = String(c.total);
    }
  }
}

async function run(post, body, handle) {
  shown.busy++;
  $('costs-info').textContent = 'measuring…';
  try {
    const response = await post(body);
    const answer = await response.json().catch(() => ({}));
    if (response.status === 200) {
      handle(answer);
      shown.stale = false;
    } else {
      const why = answer.error || (answer.errors || []).map((e) => `${e.node ? `${e.node} ` : ''}${e.field}: ${e.message}`).join('; ') || `HTTP ${response.status}`;
      $('costs-info').textContent = why;
      return;
    }
  } catch (e) {
    $('costs-info').textContent = `the server did not answer (${e.message})`;
    return;
  } finally {
    shown.busy--;
  }
  showCosts();
}

export function measureCosts() {
  const r = viewRequestFn();
  return run(postCosts, { graph: state.graph, size: r.size, origin: r.origin, extent: r.extent, normalize: r.normalize }, (answer) => {
    shown.costs = new Map(answer.costs.filter((c) => c.total_ms !== undefined).map((c) => [c.node, { own: c.own_ms, total: c.total_ms }]));
    $('costs-info').textContent = `times on the ${answer.backend} at ${answer.size[0]}x${answer.size[1]} (own: total less the nodes it reads)`;
  });
}

export function runParity() {
  const r = viewRequestFn();
  return run(postParity, { graph: r.graph, node: r.node, size: r.size, origin: r.origin, extent: r.extent }, (answer) => {
    shown.parity = new Map(answer.parity.map((p) => [p.node, p]));
    // Nodes the stages evaluate inline (a fractal's family): checked within their reader.
    shown.parityUpstream = new Set();
    const todo = [answer.node];
    while (todo.length) {
      const id = todo.pop();
      if (shown.parityUpstream.has(id)) continue;
      shown.parityUpstream.add(id);
      const n = nodeById(id);
      if (n) todo.push(...inputIds(n));
    }
    $('costs-info').textContent = `GPU (${answer.gpu}) vs CPU for ${answer.node} and its upstream: largest difference per node`;
  });
}

export const costsBusy = () => shown.busy > 0;
