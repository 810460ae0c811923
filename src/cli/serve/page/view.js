// The preview: render requests and their answers, the image, statistics, pan, zoom and time.
import { postRender, unpack } from './api.js';
import { $, el } from './dom.js';
import { clearErrors, showErrors } from './errors.js';
import { updateBake } from './file.js';
import { resetParticles } from './flow.js';
import { graphChanged } from './graph.js';
import { categoryOf } from './schema.js';
import { nodes, state } from './state.js';
import { parseScalar } from './values.js';
import { buildMesh } from './mesh.js';
import { requestThumbnails, setThumbnailView } from './thumbs.js';
import { setCostView } from './costs.js';

// The 3D view asks for the exact gradient; for a node the engine cannot differentiate it
// asks again without (normals then by differences), until the graph or the node changes.
let noGradient = null;
const meshKey = () => JSON.stringify([state.viewed, state.graph?.nodes]);

export function viewRequest() {
  const z = state.dims >= 3 ? [parseScalar($('z').value)] : [];
  let flow;
  if (state.view.mode === 'flow') flow = $('flow-mode').value;
  else if (state.view.mode === '3d' && noGradient !== meshKey()) flow = 'gradient';
  return {
    graph: state.graph,
    node: state.viewed ?? undefined,
    size: [state.view.size, state.view.size],
    origin: [$('origin-x').value, $('origin-y').value, ...z].map((v) => String(v).trim()),
    extent: [$('extent-x').value, $('extent-y').value].map((v) => String(v).trim()),
    normalize: state.view.normalize,
    flow,
  };
}

// What thumbnails and costs follow of the view.
const viewFields = () => {
  const r = viewRequest();
  // Every node's slice: z (the view's z origin) whether or not the viewed node is 3D.
  const origin = [r.origin[0], r.origin[1], String(parseScalar($('z').value)).trim()];
  return { origin, extent: r.extent, normalize: r.normalize };
};
setThumbnailView(viewFields);
setCostView(viewRequest);

let renderQueued = false;
// Whether a render is asked for but not yet sent.
export function renderIsQueued() {
  return renderQueued;
}
export function requestRender() {
  if (renderQueued) return;
  renderQueued = true;
  requestAnimationFrame(() => {
    renderQueued = false;
    render();
  });
}

// At most three requests in flight: one rendering, one waiting on the server, and the newest,
// whose arrival makes the server drop the waiting one. A change beyond that waits for an
// answer and then sends the newest state. An answer older than one already shown is ignored.
const MAX_IN_FLIGHT = 3;
async function render() {
  if (!state.graph) return;
  if (state.inFlight >= MAX_IN_FLIGHT) {
    state.pending = true;
    return;
  }
  const generation = ++state.generation;
  const body = { ...viewRequest(), session: state.session, generation };
  state.inFlight++;
  $('preview').dataset.state = 'rendering';
  $('preview').dataset.requested = String(generation);
  const sent = performance.now();
  try {
    const response = await postRender(body);
    if (response.status === 409) return; // superseded by a newer request of this page
    if (generation <= state.handled) return; // a newer answer is already shown
    if (response.status === 200) {
      const buffer = await response.arrayBuffer();
      if (generation <= state.handled) return;
      state.handled = generation;
      showField(unpack(buffer), performance.now() - sent);
    } else {
      const answer = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
      if (generation <= state.handled) return;
      if (body.flow === 'gradient' && state.view.mode === '3d' && answer.errors?.length && answer.errors.every((e) => e.field === 'flow')) {
        noGradient = meshKey();
        state.pending = true; // asked again, without the gradient, when this one is done
        return;
      }
      state.handled = generation;
      showErrors(answer.errors || [{ node: null, field: 'render', message: answer.error || `HTTP ${response.status}` }]);
    }
  } catch (e) {
    if (generation > state.handled) {
      state.handled = generation;
      showErrors([{ node: null, field: 'render', message: `the server did not answer (${e.message}); is noisegraph serve still running?` }]);
    }
  } finally {
    state.inFlight--;
    $('preview').dataset.generation = String(state.handled);
    if (state.inFlight === 0 && !state.pending && $('preview').dataset.state === 'rendering') $('preview').dataset.state = 'ok';
    if (state.pending) {
      state.pending = false;
      render();
    }
  }
}

// As bake's PNG: the range mapped to 0..255, clamped; NaN is black, an empty range mid-grey.
export function gray(v, lo, hi) {
  const span = hi - lo;
  if (!(span > 0) || !Number.isFinite(span)) return 128;
  const t = (v - lo) / span;
  if (Number.isNaN(t)) return 0;
  return Math.round(Math.min(1, Math.max(0, t)) * 255);
}

const imageBuffer = document.createElement('canvas');

function showField(field, roundTrip) {
  state.field = field;
  const { header, data } = field;
  const [lo, hi] = header.range;
  imageBuffer.width = header.width;
  imageBuffer.height = header.height;
  const ctx = imageBuffer.getContext('2d');
  const image = ctx.createImageData(header.width, header.height);
  for (let i = 0; i < data.length; i++) {
    const g = gray(data[i], lo, hi);
    image.data[4 * i] = g;
    image.data[4 * i + 1] = g;
    image.data[4 * i + 2] = g;
    image.data[4 * i + 3] = 255;
  }
  ctx.putImageData(image, 0, 0);
  drawPreview();
  clearErrors();
  markStale(false);
  $('preview').dataset.state = 'ok';
  $('preview').dataset.node = header.node;
  $('render-info').textContent = `${header.node}: ${header.width}x${header.height}, rendered in ${header.render_ms.toFixed(1)} ms on the ${header.backend}; statistics ${header.stats_ms.toFixed(1)} ms; round trip ${roundTrip.toFixed(0)} ms`;
  showStats(header.stats, header.range);
  if (state.view.mode === 'flow') resetParticles(false);
  if (state.view.mode === '3d') buildMesh();
}

export function drawPreview() {
  const canvas = $('image');
  const tiles = state.view.mode === 'tiled' ? 3 : 1;
  const w = imageBuffer.width || 1;
  const h = imageBuffer.height || 1;
  canvas.width = w * tiles;
  canvas.height = h * tiles;
  const ctx = canvas.getContext('2d');
  for (let ty = 0; ty < tiles; ty++) {
    for (let tx = 0; tx < tiles; tx++) ctx.drawImage(imageBuffer, tx * w, ty * h);
  }
  $('preview').dataset.mode = state.view.mode;
}

export function markStale(stale) {
  $('preview').classList.toggle('stale', stale && !!state.field);
}

function fmt(v) {
  return v === null || v === undefined ? '—' : Number(v).toPrecision(6);
}

function showStats(s, range) {
  const rows = [['min', s.min], ['max', s.max], ['mean', s.mean], ['std', s.std], ['anisotropy', s.anisotropy], ['levels', `${fmt(range[0])} .. ${fmt(range[1])}`]];
  $('stats-table').tBodies[0].replaceChildren(...rows.map(([k, v]) => el('tr', { dataset: { stat: k } }, el('td', {}, k), el('td', {}, typeof v === 'string' ? v : fmt(v)))));
  drawHistogram(s.histogram);
  drawSpectrum(s.spectrum);
}

function drawHistogram(bins) {
  const c = $('histogram');
  const ctx = c.getContext('2d');
  ctx.clearRect(0, 0, c.width, c.height);
  const peak = Math.max(1, ...bins);
  const bw = c.width / bins.length;
  ctx.fillStyle = '#8a8a84';
  bins.forEach((n, i) => {
    const h = (n / peak) * (c.height - 4);
    ctx.fillRect(i * bw + 1, c.height - h, Math.max(1, bw - 2), h);
  });
}

function drawSpectrum(profile) {
  const c = $('spectrum');
  const ctx = c.getContext('2d');
  ctx.clearRect(0, 0, c.width, c.height);
  const points = profile.map((p, r) => [r, p]).filter(([r, p]) => r >= 1 && p > 0).map(([r, p]) => [Math.log2(r), Math.log10(p)]);
  if (points.length < 2) return;
  const maxX = points[points.length - 1][0] || 1;
  const ys = points.map((p) => p[1]);
  const lo = Math.min(...ys);
  const span = Math.max(1e-9, Math.max(...ys) - lo);
  ctx.strokeStyle = '#c83232';
  ctx.beginPath();
  points.forEach(([x, y], i) => {
    const px = 2 + (x / maxX) * (c.width - 4);
    const py = c.height - 2 - ((y - lo) / span) * (c.height - 4);
    if (i === 0) ctx.moveTo(px, py);
    else ctx.lineTo(px, py);
  });
  ctx.stroke();
}

export function setView(origin, extent) {
  if (origin) {
    $('origin-x').value = String(origin[0]);
    $('origin-y').value = String(origin[1]);
  }
  if (extent) {
    $('extent-x').value = String(extent[0]);
    $('extent-y').value = String(extent[1]);
  }
  updateBake();
  requestRender();
  requestThumbnails();
}

function numbers(a, b) {
  return [Number($(a).value), Number($(b).value)];
}

// Zoom by `factor` keeping the point at image fraction (fx, fy) in place.
function zoom(factor, fx = 0.5, fy = 0.5) {
  const [ox, oy] = numbers('origin-x', 'origin-y');
  const [ex, ey] = numbers('extent-x', 'extent-y');
  if (![ox, oy, ex, ey].every(Number.isFinite)) return;
  setView([ox + fx * ex * (1 - factor), oy + fy * ey * (1 - factor)], [ex * factor, ey * factor]);
}

export function setupPanZoom() {
  const preview = $('preview');
  let drag = null;
  preview.addEventListener('pointerdown', (e) => {
    if (state.view.mode === 'tiled' || state.view.mode === '3d' || e.button !== 0) return;
    const [ox, oy] = numbers('origin-x', 'origin-y');
    drag = { x: e.clientX, y: e.clientY, ox, oy };
    preview.setPointerCapture(e.pointerId);
  });
  preview.addEventListener('pointermove', (e) => {
    if (!drag) return;
    const [ex, ey] = numbers('extent-x', 'extent-y');
    const rect = preview.getBoundingClientRect();
    const dx = ((e.clientX - drag.x) / rect.width) * ex;
    const dy = ((e.clientY - drag.y) / rect.height) * ey;
    if (Number.isFinite(drag.ox) && Number.isFinite(drag.oy)) setView([drag.ox - dx, drag.oy - dy], null);
  });
  const end = () => { drag = null; };
  preview.addEventListener('pointerup', end);
  preview.addEventListener('pointercancel', end);
  preview.addEventListener('wheel', (e) => {
    if (state.view.mode === 'tiled' || state.view.mode === '3d') return;
    e.preventDefault();
    const rect = preview.getBoundingClientRect();
    zoom(Math.exp(e.deltaY * 0.0015), (e.clientX - rect.left) / rect.width, (e.clientY - rect.top) / rect.height);
  }, { passive: false });
  $('zoom-in').addEventListener('click', () => zoom(0.5));
  $('zoom-out').addEventListener('click', () => zoom(2));
  $('zoom-reset').addEventListener('click', () => setView([0, 0], [1, 1]));
  for (const id of ['origin-x', 'origin-y', 'extent-x', 'extent-y']) {
    $(id).addEventListener('input', () => { updateBake(); requestRender(); requestThumbnails(); });
  }
}

export function setupTime() {
  const z = $('z');
  const zs = $('z-slider');
  zs.addEventListener('input', () => { z.value = zs.value; updateBake(); requestRender(); requestThumbnails(); });
  z.addEventListener('input', () => { if (Number.isFinite(Number(z.value))) zs.value = z.value; updateBake(); requestRender(); requestThumbnails(); });
  const w = $('w');
  const ws = $('w-slider');
  const setW = (v) => {
    for (const n of nodes()) if (categoryOf(n.type) === 'family' && n.dims === 4) n.w = v;
    graphChanged({ structural: true });
  };
  ws.addEventListener('input', () => { w.value = ws.value; setW(Number(ws.value)); });
  w.addEventListener('input', () => { const v = parseScalar(w.value); if (typeof v === 'number') ws.value = String(v); setW(v); });
}
