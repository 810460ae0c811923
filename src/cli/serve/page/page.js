// The page of `noisegraph serve`. The graph lives here as a JSON value: the controls (built
// from /api/meta, the engine's own description of every node type and field) and the JSON
// text edit it, every change is sent to /api/render, and the engine's answer is either the
// field (f32 samples and statistics) or the validation problems, shown at their fields.
'use strict';

const $ = (id) => document.getElementById(id);
const el = (tag, props = {}, ...children) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'class') e.className = v;
    else if (k === 'dataset') Object.assign(e.dataset, v);
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
};

const query = new URLSearchParams(location.search);
const state = {
  meta: null,
  graph: null, // the working graph (a JSON value), null while the text does not parse
  viewed: null, // the viewed node's id
  file: { path: null, version: null, loadedCanonical: null, ignoredVersion: null },
  view: {
    size: Number(query.get('size')) || 512,
    origin: ['0', '0'],
    extent: ['1', '1'],
    z: '0',
    mode: ['image', 'tiled', 'flow'].includes(query.get('mode')) ? query.get('mode') : 'image',
    normalize: 'range',
  },
  session: Math.random().toString(36).slice(2) + Date.now().toString(36),
  generation: 0, // the last request sent
  handled: 0, // the newest request whose answer was shown (image or errors)
  inFlight: 0,
  pending: false,
  field: null, // { header, data }: the last good render
  dims: 2,
};

// ---------------------------------------------------------------- metadata and graph helpers

function familyMeta(type) {
  return state.meta.families.find((f) => f.type === type);
}
function pointwiseMeta(type) {
  return state.meta.pointwise.find((p) => p.type === type);
}
function kindOf(type) {
  if (familyMeta(type)) return 'family';
  if (state.meta.fractals.types.includes(type)) return 'fractal';
  if (type === 'warp') return 'warp';
  if (pointwiseMeta(type)) return 'pointwise';
  return 'unknown';
}
function fieldsOf(node) {
  switch (kindOf(node.type)) {
    case 'family': {
      const fam = familyMeta(node.type);
      return state.meta.family_fields
        .filter((f) => f.name !== 'period' || fam.period)
        .concat(fam.params);
    }
    case 'fractal': return state.meta.fractals.fields;
    case 'warp': return state.meta.warp.fields;
    case 'pointwise': return pointwiseMeta(node.type).fields;
    default: return [];
  }
}
function nodes() {
  return state.graph && Array.isArray(state.graph.nodes) ? state.graph.nodes.filter((n) => n && typeof n === 'object') : [];
}
function nodeById(id) {
  return nodes().find((n) => n.id === id);
}
function ids() {
  return nodes().map((n) => n.id).filter((id) => typeof id === 'string');
}
// The coordinate dimension of a node, as the engine's `dims_of`: a family's dims, followed
// through fractal and warp sources; point-wise nodes take the largest of their inputs.
function dimsOf(id, depth = 0) {
  const n = nodeById(id);
  if (!n || depth > nodes().length) return 2;
  switch (kindOf(n.type)) {
    case 'family': return Number.isInteger(n.dims) ? n.dims : familyMeta(n.type).dims[0];
    case 'fractal': case 'warp': return dimsOf(n.source, depth + 1);
    case 'pointwise': {
      const ins = Array.isArray(n.inputs) ? n.inputs : (n.source !== undefined ? [n.source] : []);
      return ins.reduce((m, i) => Math.max(m, dimsOf(i, depth + 1)), 2);
    }
    default: return 2;
  }
}
function candidates(of, self) {
  return nodes().filter((n) => n.id !== self && (of === 'any'
    || (of === 'family' && kindOf(n.type) === 'family')
    || (of === 'generator' && ['family', 'fractal'].includes(kindOf(n.type))))).map((n) => n.id);
}

// ------------------------------------------------------------------------- values in fields

// A typed number, or the text itself when it is not one (so the engine reports it).
function parseScalar(text) {
  const t = String(text).trim();
  if (t !== '' && Number.isFinite(Number(t))) return Number(t);
  return t;
}
function parseList(text) {
  return String(text).split(',').map(parseScalar);
}
function showValue(v) {
  return Array.isArray(v) ? v.join(', ') : String(v);
}
function roundNice(x, log) {
  if (!Number.isFinite(x)) return x;
  if (log || Math.abs(x) >= 1) return Number(x.toPrecision(3));
  return Math.round(x * 1000) / 1000;
}

// A slider's span for a numeric field: its accepted bounds, or the soft span where open.
function sliderSpan(f) {
  const soft = f.soft || [];
  let lo = f.min !== undefined && !f.exclusive_min ? f.min : soft[0];
  let hi = f.max !== undefined ? f.max : soft[1];
  if (lo === undefined) lo = f.min !== undefined ? f.min : 0;
  if (hi === undefined) hi = lo + 1;
  if (f.exclusive_min && soft[0] !== undefined) lo = soft[0];
  return { lo, hi, log: !!f.log && lo > 0 };
}
function toSlider(span, v) {
  if (typeof v !== 'number') return 0;
  const t = span.log ? (Math.log(v) - Math.log(span.lo)) / (Math.log(span.hi) - Math.log(span.lo)) : (v - span.lo) / (span.hi - span.lo);
  return Math.round(Math.min(1, Math.max(0, t)) * 1000);
}
function fromSlider(span, s, integer) {
  const t = s / 1000;
  const v = span.log ? Math.exp(Math.log(span.lo) + t * (Math.log(span.hi) - Math.log(span.lo))) : span.lo + t * (span.hi - span.lo);
  return integer ? Math.round(v) : roundNice(v, span.log);
}

// ------------------------------------------------------------------------------- controls

function row(nodeId, f, ...content) {
  const r = el('div', { class: 'row', title: f.help || '', dataset: nodeId === null ? { field: f.name } : { node: nodeId, field: f.name } },
    el('span', { class: 'name' }, f.name), ...content, el('span', { class: 'err' }));
  return r;
}

// Sets `field` of `node` (deleting it for `undefined`) and re-renders.
function setField(node, field, value, structural) {
  if (value === undefined) delete node[field];
  else node[field] = value;
  graphChanged({ structural });
}

function numberControl(node, f) {
  const present = Object.prototype.hasOwnProperty.call(node, f.name);
  const value = present ? node[f.name] : f.default;
  const integer = f.kind === 'integer';
  const span = sliderSpan(f);
  const text = el('input', { type: 'text', class: 'num' + (present ? '' : ' is-default'), value: showValue(value ?? ''), spellcheck: 'false', 'aria-label': `${node.id} ${f.name}` });
  const slider = el('input', { type: 'range', min: 0, max: 1000, step: 1, value: toSlider(span, value), 'aria-label': `${node.id} ${f.name} slider` });
  if (Array.isArray(value)) slider.disabled = true;
  slider.addEventListener('input', () => {
    const v = fromSlider(span, Number(slider.value), integer);
    text.value = String(v);
    text.classList.remove('is-default');
    setField(node, f.name, v, false);
  });
  text.addEventListener('input', () => {
    text.classList.remove('is-default');
    const v = f.kind === 'axes' && text.value.includes(',') ? parseList(text.value) : parseScalar(text.value);
    slider.disabled = Array.isArray(v);
    if (typeof v === 'number') slider.value = toSlider(span, v);
    setField(node, f.name, v, false);
  });
  return row(node.id, f, slider, text);
}

function choiceControl(node, f, options, structural) {
  const current = node[f.name] ?? f.default;
  const select = el('select', { 'aria-label': `${node.id} ${f.name}` },
    ...options.map((o) => el('option', { value: o, selected: String(o) === String(current) }, String(o) + (o === f.default ? ' (default)' : ''))));
  select.addEventListener('change', () => {
    const v = typeof options[0] === 'number' ? Number(select.value) : select.value;
    setField(node, f.name, v, structural);
  });
  return row(node.id, f, select);
}

function refSelect(node, f, current, onChange) {
  const list = candidates(f.of, node.id);
  const options = list.includes(current) ? list : [current, ...list];
  const select = el('select', { 'aria-label': `${node.id} ${f.name}` },
    ...options.map((id) => el('option', { value: id ?? '', selected: id === current }, id === current && !list.includes(id) ? `${id ?? '(none)'} (missing)` : id)));
  select.addEventListener('change', () => onChange(select.value));
  return select;
}

function textControl(node, f, show, parse) {
  const input = el('input', { type: 'text', class: 'num', value: show(node[f.name]), spellcheck: 'false', 'aria-label': `${node.id} ${f.name}` });
  input.addEventListener('input', () => setField(node, f.name, parse(input.value), false));
  return row(node.id, f, input);
}

function fieldControl(node, f) {
  const dims = kindOf(node.type) === 'family' ? dimsOf(node.id) : 2;
  if (f.min_dims && dims < f.min_dims) return null;
  switch (f.kind) {
    case 'number': case 'integer': case 'axes': return numberControl(node, f);
    case 'choice': return choiceControl(node, f, f.options, false);
    case 'dims': return choiceControl(node, { ...f, default: familyMeta(node.type).dims[0] }, familyMeta(node.type).dims, true);
    case 'ref': return row(node.id, f, refSelect(node, f, node[f.name], (v) => setField(node, f.name, v, true)));
    case 'refs': {
      const count = f.count || Math.min(4, Math.max(2, dimsOf(node.source)));
      const list = Array.isArray(node[f.name]) ? node[f.name].slice() : [];
      const selects = [];
      for (let i = 0; i < count; i++) {
        selects.push(refSelect(node, f, list[i], (v) => {
          const next = Array.isArray(node[f.name]) ? node[f.name].slice() : [];
          next[i] = v;
          setField(node, f.name, next.slice(0, count), true);
        }));
      }
      return row(node.id, f, ...selects);
    }
    case 'period': return textControl(node, f, (v) => (v === undefined ? '' : showValue(v)),
      (t) => (t.trim() === '' ? undefined : (t.includes(',') ? parseList(t) : parseScalar(t))));
    case 'pair': return textControl(node, f, (v) => (v === undefined ? '' : showValue(v)), parseList);
    default: return null;
  }
}

function nodeCard(node, index) {
  const id = typeof node.id === 'string' ? node.id : `nodes[${index}]`;
  const idInput = el('input', { type: 'text', class: 'node-id', value: id, spellcheck: 'false', 'aria-label': 'node id' });
  idInput.addEventListener('change', () => renameNode(node, idInput.value.trim(), idInput));
  const card = el('div', { class: 'node' + (id === state.viewed ? ' viewed' : ''), dataset: { card: id } },
    el('header', {}, idInput, el('span', { class: 'type' }, node.type ?? '(no type)'),
      el('button', { type: 'button', title: 'Preview this node', onclick: () => setViewed(id) }, 'view'),
      el('button', { type: 'button', title: 'Remove this node', 'aria-label': `remove ${id}`, onclick: () => removeNode(node) }, '×')));
  const idRow = el('div', { class: 'row', dataset: { node: id, field: 'id' } }, el('span', { class: 'err' }));
  card.append(idRow);
  for (const f of fieldsOf(node)) {
    const c = fieldControl(node, f);
    if (c) card.append(c);
  }
  card.append(el('div', { class: 'errors', dataset: { nodeErrors: id } }));
  return card;
}

function buildControls() {
  const list = $('nodes');
  list.replaceChildren(...nodes().map(nodeCard));
  $('seed').value = state.graph && state.graph.seed !== undefined ? String(state.graph.seed) : '';
  const out = state.graph ? state.graph.output : undefined;
  const names = ids();
  const outOptions = names.includes(out) || out === undefined ? names : [out, ...names];
  $('output').replaceChildren(...outOptions.map((id) => el('option', { value: id, selected: id === out }, id)));
  if (!names.includes(state.viewed)) state.viewed = names.includes(out) ? out : names[0] ?? null;
  $('viewed').replaceChildren(...names.map((id) => el('option', { value: id, selected: id === state.viewed }, id)));
  updateTimeControls();
}

function updateTimeControls() {
  state.dims = state.viewed ? dimsOf(state.viewed) : 2;
  $('time-z').hidden = state.dims < 3;
  $('time-w').hidden = state.dims < 4;
  if (state.dims >= 4) {
    const four = nodes().find((n) => kindOf(n.type) === 'family' && n.dims === 4);
    const w = four && typeof four.w === 'number' ? four.w : 0;
    $('w').value = String(w);
    $('w-slider').value = String(w);
  }
}

// ---------------------------------------------------------------------- editing the graph

// JSON on one line, with a space after each colon and comma.
function inline(v) {
  if (Array.isArray(v)) return `[${v.map(inline).join(', ')}]`;
  if (v && typeof v === 'object') {
    const entries = Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}: ${inline(x)}`);
    return entries.length ? `{ ${entries.join(', ')} }` : '{}';
  }
  return JSON.stringify(v);
}

// The graph as the examples write it: one line per top-level field and one per node.
function formatGraph(g) {
  if (!g || typeof g !== 'object' || Array.isArray(g)) return JSON.stringify(g, null, 2);
  const lines = Object.entries(g).map(([k, v]) => {
    if (k === 'nodes' && Array.isArray(v)) {
      return `  "nodes": [${v.length ? `\n${v.map((n) => `    ${inline(n)}`).join(',\n')}\n  ` : ''}]`;
    }
    return `  ${JSON.stringify(k)}: ${inline(v)}`;
  });
  return `{\n${lines.join(',\n')}\n}\n`;
}

// After any change of the working graph: the JSON text follows, the cards are rebuilt when
// the change alters which controls exist, and a render is asked for.
function graphChanged({ structural = false, fromText = false } = {}) {
  if (!fromText) {
    $('json').value = formatGraph(state.graph);
    clearFieldError('json');
  }
  if (structural) buildControls();
  else updateTimeControls();
  updateDirty();
  updateBake();
  requestRender();
}

function uniqueId(base) {
  const taken = new Set(ids());
  for (let i = 1; ; i++) {
    const id = `${base}${i}`;
    if (!taken.has(id)) return id;
  }
}

function newNode(type) {
  const node = { id: uniqueId(type), type };
  const kind = kindOf(type);
  if (kind === 'family') node.frequency = 4;
  for (const f of fieldsOf(node)) {
    if (f.initial !== undefined) node[f.name] = f.initial;
    const pick = (of, avoid) => candidates(of, node.id).filter((id) => !avoid.includes(id));
    if (f.kind === 'ref') node[f.name] = (state.viewed && pick(f.of, []).includes(state.viewed) ? state.viewed : pick(f.of, [])[0]) ?? '';
    if (f.kind === 'refs') {
      const count = f.count || Math.max(2, dimsOf(node.source));
      const pool = pick(f.of, [node.source]);
      node[f.name] = Array.from({ length: count }, (_, i) => pool[i % Math.max(1, pool.length)] ?? '');
    }
  }
  return node;
}

function addNode() {
  if (!state.graph) return;
  if (!Array.isArray(state.graph.nodes)) state.graph.nodes = [];
  const node = newNode($('add-type').value);
  state.graph.nodes.push(node);
  state.viewed = node.id;
  graphChanged({ structural: true });
}

function removeNode(node) {
  state.graph.nodes = state.graph.nodes.filter((n) => n !== node);
  if (state.viewed === node.id) state.viewed = null;
  graphChanged({ structural: true });
}

function renameNode(node, to, input) {
  const from = node.id;
  if (to === from) return;
  if (to === '' || ids().includes(to)) {
    input.value = from;
    showFieldError(from, 'id', to === '' ? 'an id cannot be empty' : `'${to}' is already a node id`);
    return;
  }
  node.id = to;
  for (const n of nodes()) {
    for (const key of ['source', 'inputs', 'displace']) {
      if (n[key] === from) n[key] = to;
      if (Array.isArray(n[key])) n[key] = n[key].map((r) => (r === from ? to : r));
    }
  }
  if (state.graph.output === from) state.graph.output = to;
  if (state.viewed === from) state.viewed = to;
  graphChanged({ structural: true });
}

function setViewed(id) {
  state.viewed = id;
  for (const c of document.querySelectorAll('.node')) c.classList.toggle('viewed', c.dataset.card === id);
  $('viewed').value = id;
  updateTimeControls();
  updateBake();
  requestRender();
}

function loadText(text, { reason } = {}) {
  $('json').value = text;
  jsonEdited();
  if (reason) note(reason);
}

function jsonEdited() {
  const text = $('json').value;
  let value;
  try {
    value = JSON.parse(text);
  } catch (e) {
    clearFieldError('json');
    showFieldError(null, 'json', `JSON syntax: ${e.message}`);
    // The controls show the last graph that parsed: editing them would replace the text.
    $('graph-panel').classList.add('locked');
    markStale(true);
    updateDirty();
    return;
  }
  clearFieldError('json');
  $('graph-panel').classList.remove('locked');
  state.graph = value;
  graphChanged({ structural: true, fromText: true });
}

// ------------------------------------------------------------------------------ rendering

function viewRequest() {
  const z = state.dims >= 3 ? [parseScalar($('z').value)] : [];
  return {
    graph: state.graph,
    node: state.viewed ?? undefined,
    size: [state.view.size, state.view.size],
    origin: [$('origin-x').value, $('origin-y').value, ...z].map((v) => String(v).trim()),
    extent: [$('extent-x').value, $('extent-y').value].map((v) => String(v).trim()),
    normalize: state.view.normalize,
    flow: state.view.mode === 'flow' ? $('flow-mode').value : undefined,
  };
}

let renderQueued = false;
function requestRender() {
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
    const response = await fetch('/api/render', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
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

// The preview message: u32 length, JSON header, padding to 4 bytes, f32 samples; for a
// gradient or curl flow view (header.flow), then two f32 per pixel, its vectors in view units.
function unpack(buffer) {
  const length = new DataView(buffer).getUint32(0, true);
  const header = JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, 4, length)));
  const offset = Math.ceil((4 + length) / 4) * 4;
  const pixels = header.width * header.height;
  const data = new Float32Array(buffer, offset, pixels);
  const vectors = header.flow ? new Float32Array(buffer, offset + 4 * pixels, 2 * pixels) : null;
  return { header, data, vectors };
}

// As bake's PNG: the range mapped to 0..255, clamped; NaN is black, an empty range mid-grey.
function gray(v, lo, hi) {
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
}

function drawPreview() {
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

function markStale(stale) {
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

// ------------------------------------------------------------------------------- problems

function rowFor(node, field) {
  const sel = node === null
    ? `.row[data-field="${CSS.escape(field)}"]:not([data-node])`
    : `.row[data-node="${CSS.escape(node)}"][data-field="${CSS.escape(field)}"]`;
  return document.querySelector(sel);
}

function showFieldError(node, field, message) {
  const r = rowFor(node, field);
  if (r) {
    r.classList.add('invalid');
    const err = r.querySelector('.err');
    err.textContent = err.textContent ? `${err.textContent}; ${message}` : message;
    return true;
  }
  const box = node === null ? $('graph-errors') : document.querySelector(`[data-node-errors="${CSS.escape(node)}"]`);
  if (box) {
    box.append(el('div', {}, `${field}: ${message}`));
    return true;
  }
  return false;
}

function clearFieldError(field) {
  const r = rowFor(null, field);
  if (r) {
    r.classList.remove('invalid');
    r.querySelector('.err').textContent = '';
  }
}

function clearErrors() {
  for (const r of document.querySelectorAll('.row.invalid')) {
    if (r.dataset.field === 'json' && !r.dataset.node) continue; // the text's own syntax error
    r.classList.remove('invalid');
    r.querySelector('.err').textContent = '';
  }
  for (const b of document.querySelectorAll('.errors')) b.replaceChildren();
  $('preview-error').hidden = true;
  $('preview-error').textContent = '';
}

// The engine's problems, each at its field; the last good image stays, marked stale.
function showErrors(issues) {
  clearErrors();
  const lines = [];
  for (const i of issues) {
    showFieldError(i.node ?? null, i.field, i.message);
    lines.push(i.node ? `node '${i.node}', ${i.field}: ${i.message}` : `${i.field}: ${i.message}`);
  }
  const box = $('preview-error');
  box.textContent = `${issues.length} problem${issues.length === 1 ? '' : 's'} (marked at the fields):\n${lines.join('\n')}`;
  box.hidden = false;
  markStale(true);
  $('preview').dataset.state = 'error';
}

// ------------------------------------------------------------------------ pan, zoom, time

function setView(origin, extent) {
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

function setupPanZoom() {
  const preview = $('preview');
  let drag = null;
  preview.addEventListener('pointerdown', (e) => {
    if (state.view.mode === 'tiled' || e.button !== 0) return;
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
    if (state.view.mode === 'tiled') return;
    e.preventDefault();
    const rect = preview.getBoundingClientRect();
    zoom(Math.exp(e.deltaY * 0.0015), (e.clientX - rect.left) / rect.width, (e.clientY - rect.top) / rect.height);
  }, { passive: false });
  $('zoom-in').addEventListener('click', () => zoom(0.5));
  $('zoom-out').addEventListener('click', () => zoom(2));
  $('zoom-reset').addEventListener('click', () => setView([0, 0], [1, 1]));
  for (const id of ['origin-x', 'origin-y', 'extent-x', 'extent-y']) {
    $(id).addEventListener('input', () => { updateBake(); requestRender(); });
  }
}

function setupTime() {
  const z = $('z');
  const zs = $('z-slider');
  zs.addEventListener('input', () => { z.value = zs.value; updateBake(); requestRender(); });
  z.addEventListener('input', () => { if (Number.isFinite(Number(z.value))) zs.value = z.value; updateBake(); requestRender(); });
  const w = $('w');
  const ws = $('w-slider');
  const setW = (v) => {
    for (const n of nodes()) if (kindOf(n.type) === 'family' && n.dims === 4) n.w = v;
    graphChanged({ structural: true });
  };
  ws.addEventListener('input', () => { w.value = ws.value; setW(Number(ws.value)); });
  w.addEventListener('input', () => { const v = parseScalar(w.value); if (typeof v === 'number') ws.value = String(v); setW(v); });
}

// ------------------------------------------------------------------------------ flow view

const flow = { particles: [], running: false };

function resetParticles(clear) {
  const count = Math.max(1, Math.min(20000, Math.round(Number($('flow-count').value) || 1500)));
  const canvas = $('particles');
  if (state.field) {
    canvas.width = state.field.header.width;
    canvas.height = state.field.header.height;
  }
  if (clear || flow.particles.length !== count) {
    flow.particles = Array.from({ length: count }, () => spawn(canvas));
    canvas.getContext('2d').clearRect(0, 0, canvas.width, canvas.height);
  }
}

function spawn(canvas) {
  return { x: Math.random() * canvas.width, y: Math.random() * canvas.height, age: Math.floor(Math.random() * 200) };
}

// The field (or one component of its flow vectors) at a fractional pixel position, bilinear.
function sample(x, y, values = state.field.data, stride = 1, component = 0) {
  const { header } = state.field;
  const data = { at: (i) => values[i * stride + component] };
  const w = header.width;
  const h = header.height;
  const x0 = Math.max(0, Math.min(w - 1, Math.floor(x)));
  const y0 = Math.max(0, Math.min(h - 1, Math.floor(y)));
  const x1 = Math.min(w - 1, x0 + 1);
  const y1 = Math.min(h - 1, y0 + 1);
  const fx = Math.min(1, Math.max(0, x - x0));
  const fy = Math.min(1, Math.max(0, y - y0));
  const top = data.at(y0 * w + x0) * (1 - fx) + data.at(y0 * w + x1) * fx;
  const bottom = data.at(y1 * w + x0) * (1 - fx) + data.at(y1 * w + x1) * fx;
  return top * (1 - fy) + bottom * fy;
}

// The direction a particle moves in. `heading`: the value, mapped to 0..1 by the shown range,
// turned into an angle. `gradient` and `curl`: the server's vectors (view units) turned into
// pixels and set to unit length; where they vanish (a peak, a pit), the particle rests.
function velocity(x, y, turns) {
  const { header, vectors } = state.field;
  if (header.flow && vectors && header.flow.mode === $('flow-mode').value) {
    const vx = (sample(x, y, vectors, 2, 0) * header.width) / header.extent[0];
    const vy = (sample(x, y, vectors, 2, 1) * header.height) / header.extent[1];
    const length = Math.hypot(vx, vy);
    return length > 0 && Number.isFinite(length) ? [vx / length, vy / length] : [0, 0];
  }
  const [lo, hi] = header.range;
  const t = gray(sample(x, y), lo, hi) / 255;
  const angle = t * turns * 2 * Math.PI;
  return [Math.cos(angle), Math.sin(angle)];
}

function stepFlow() {
  if (state.view.mode !== 'flow') {
    flow.running = false;
    return;
  }
  const canvas = $('particles');
  const ctx = canvas.getContext('2d');
  if (state.field) {
    const turns = Number($('flow-turns').value) || 2;
    const speed = Number($('flow-speed').value) || 1;
    ctx.globalCompositeOperation = 'destination-out';
    ctx.fillStyle = 'rgba(0,0,0,0.04)';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.globalCompositeOperation = 'source-over';
    ctx.strokeStyle = 'rgba(255,140,30,0.8)';
    ctx.lineWidth = Math.max(1, canvas.width / 512);
    ctx.beginPath();
    for (const p of flow.particles) {
      const [vx, vy] = velocity(p.x, p.y, turns);
      const nx = p.x + vx * speed * (canvas.width / 512);
      const ny = p.y + vy * speed * (canvas.width / 512);
      ctx.moveTo(p.x, p.y);
      ctx.lineTo(nx, ny);
      p.x = nx;
      p.y = ny;
      p.age++;
      if (p.age > 240 || nx < 0 || ny < 0 || nx >= canvas.width || ny >= canvas.height) Object.assign(p, spawn(canvas), { age: 0 });
    }
    ctx.stroke();
  }
  requestAnimationFrame(stepFlow);
}

function setMode(mode) {
  state.view.mode = mode;
  $('mode').value = mode;
  $('particles').hidden = mode !== 'flow';
  $('flow-controls').hidden = mode !== 'flow';
  drawPreview();
  if (mode === 'flow') {
    resetParticles(true);
    if (!flow.running) {
      flow.running = true;
      requestAnimationFrame(stepFlow);
    }
  }
  updateBake();
}

// ------------------------------------------------------------------------ bake command line

function shellQuote(s) {
  return /^[A-Za-z0-9_.\/,=:+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

function updateBake() {
  if (!state.meta) return;
  const r = viewRequest();
  const graphPath = state.file.path ?? 'graph.json';
  const parts = ['noisegraph', 'bake', shellQuote(graphPath), '-o', shellQuote(`${state.viewed ?? 'out'}.png`), '--size', `${r.size[0]}x${r.size[1]}`];
  if (state.graph && state.viewed && state.viewed !== state.graph.output) parts.push('--node', shellQuote(state.viewed));
  if (r.origin.some((v) => Number(v) !== 0)) parts.push('--origin', shellQuote(r.origin.join(',')));
  if (r.extent.some((v) => Number(v) !== 1)) parts.push('--extent', shellQuote(r.extent.join(',')));
  if (r.normalize === 'minmax') parts.push('--normalize', 'minmax');
  $('bake').value = parts.join(' ');
  let noteText = '';
  if (!state.file.path) noteText = 'Download the JSON as graph.json first (serve was started without a graph file).';
  else if (isDirty()) noteText = `Save first: the shown graph differs from ${state.file.path}.`;
  if (state.view.mode === 'tiled') noteText += ' (The tiled view repeats one image; bake writes it once.)';
  $('bake-note').textContent = noteText.trim();
}

// ------------------------------------------------------------------- file: save and reload

function canonical(text) {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return null;
  }
}

function isDirty() {
  const text = $('json').value;
  return (canonical(text) ?? text) !== state.file.loadedCanonical;
}

function updateDirty() {
  const status = $('file-status');
  status.classList.toggle('dirty', !!state.file.path && isDirty());
}

function note(text, actions = []) {
  $('banner-text').textContent = text;
  $('banner-actions').replaceChildren(...actions.map(([label, fn]) => el('button', { type: 'button', onclick: () => { $('banner').hidden = true; fn(); } }, label)));
  $('banner').hidden = false;
}

async function loadFile(reason) {
  const answer = await (await fetch('/api/file')).json();
  state.file.version = answer.version;
  state.file.loadedCanonical = canonical(answer.text);
  loadText(answer.text, { reason });
  updateDirty();
}

async function save(force = false) {
  const text = $('json').value;
  const response = await fetch('/api/save', {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ text, base_version: state.file.version, force }),
  });
  const answer = await response.json().catch(() => ({}));
  if (response.status === 200) {
    state.file.version = answer.version;
    state.file.loadedCanonical = canonical(text);
    updateDirty();
    updateBake();
    note(`Saved ${answer.path}.`);
  } else if (response.status === 409 && answer.conflict) {
    note(answer.error, [['Overwrite it', () => save(true)], ['Load it from disk', () => loadFile(`Loaded ${state.file.path} from disk.`)]]);
  } else if (response.status === 422) {
    showErrors(answer.errors || []);
    note(answer.error);
  } else {
    note(answer.error || `Save failed (HTTP ${response.status}).`);
  }
}

// The file is polled; an edit from another editor reloads the page's graph, unless the page
// has unsaved edits of its own: then the user chooses.
async function pollFile() {
  try {
    const { version } = await (await fetch('/api/file/version')).json();
    if (version && version !== state.file.version && version !== state.file.ignoredVersion) {
      if (!isDirty()) {
        await loadFile(`${state.file.path} changed on disk: reloaded.`);
      } else {
        state.file.ignoredVersion = version;
        note(`${state.file.path} changed on disk. Your unsaved edits are kept.`, [
          ['Load the file (drop my edits)', () => loadFile(`Loaded ${state.file.path} from disk.`)],
          ['Keep my edits', () => {}],
        ]);
      }
    }
  } catch {
    // The server is gone; the render path says so.
  }
  setTimeout(pollFile, 1000);
}

function download(name, blob) {
  const a = el('a', { href: URL.createObjectURL(blob), download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}

async function downloadPng() {
  const response = await fetch('/api/png', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(viewRequest()) });
  if (response.status !== 200) {
    const answer = await response.json().catch(() => ({}));
    showErrors(answer.errors || [{ node: null, field: 'render', message: answer.error || `HTTP ${response.status}` }]);
    return;
  }
  download(`${state.viewed ?? 'preview'}.png`, await response.blob());
}

// ---------------------------------------------------------------------------------- start

function fillAddTypes() {
  const m = state.meta;
  const group = (label, types) => el('optgroup', { label }, ...types.map((t) => el('option', { value: t }, t)));
  $('add-type').replaceChildren(
    group('families', m.families.map((f) => f.type)),
    group('fractals', m.fractals.types),
    group('warp', ['warp']),
    group('point-wise', m.pointwise.map((p) => p.type)));
}

async function start() {
  state.meta = await (await fetch('/api/meta')).json();
  fillAddTypes();
  const sizes = [...new Set([256, 512, 1024, state.view.size])].filter((s) => s >= 1 && s <= state.meta.max_preview_side).sort((a, b) => a - b);
  $('size').replaceChildren(...sizes.map((s) => el('option', { value: s, selected: s === state.view.size }, `${s}x${s}`)));
  $('flow-mode').replaceChildren(...state.meta.flow_modes.map((m) => el('option', { value: m }, m)));
  const presets = await (await fetch('/api/presets')).json();
  $('preset').append(...presets.map((p) => el('option', { value: p.name, title: p.description }, `${p.name}: ${p.description}`)));
  $('preset').addEventListener('change', () => {
    const p = presets.find((x) => x.name === $('preset').value);
    $('preset').value = '';
    if (p) {
      state.viewed = null;
      loadText(p.json, { reason: `Loaded preset ${p.name} (Save writes it to the file).` });
    }
  });
  state.file.path = state.meta.file;
  $('file-status').textContent = state.file.path ? state.file.path : 'no graph file';
  const saveButton = $('save');
  if (!state.file.path) {
    saveButton.disabled = true;
    saveButton.title = 'Save is off: serve was started without a graph file. Use Download JSON, or restart with `noisegraph serve GRAPH.json`.';
    $('file-status').textContent = 'no graph file: Save is off (Download JSON instead)';
  }
  saveButton.addEventListener('click', () => save(false));
  $('download-json').addEventListener('click', () => {
    const name = state.file.path ? state.file.path.split(/[\\/]/).pop() : 'graph.json';
    download(name, new Blob([$('json').value], { type: 'application/json' }));
  });
  $('download-png').addEventListener('click', downloadPng);
  $('json').addEventListener('input', jsonEdited);
  $('seed').addEventListener('input', () => { if (state.graph) { state.graph.seed = parseScalar($('seed').value); graphChanged(); } });
  $('output').addEventListener('change', () => { if (state.graph) { state.graph.output = $('output').value; graphChanged({ structural: true }); } });
  $('viewed').addEventListener('change', () => setViewed($('viewed').value));
  $('add-node').addEventListener('click', addNode);
  $('size').addEventListener('change', () => { state.view.size = Number($('size').value); updateBake(); requestRender(); });
  $('normalize').addEventListener('change', () => { state.view.normalize = $('normalize').value; updateBake(); requestRender(); });
  // Gradient and curl flow views need the server's vectors: a new request.
  $('mode').addEventListener('change', () => { setMode($('mode').value); requestRender(); });
  $('flow-mode').addEventListener('change', () => { resetParticles(true); requestRender(); });
  $('flow-count').addEventListener('change', () => resetParticles(true));
  $('copy-bake').addEventListener('click', () => navigator.clipboard?.writeText($('bake').value));
  setView([0, 0], [1, 1]);
  $('z').value = '0';
  setupPanZoom();
  setupTime();
  setMode(state.view.mode);
  const answer = await (await fetch('/api/file')).json();
  state.file.version = answer.version;
  state.file.loadedCanonical = canonical(answer.text);
  loadText(answer.text, { reason: state.file.path && !answer.exists ? `${state.file.path} does not exist yet: Save creates it.` : undefined });
  updateDirty();
  if (state.file.path) setTimeout(pollFile, 1000);
}

// For the browser tests: no render asked for, queued or in flight.
window.noisegraphIdle = () => !!state.meta && !renderQueued && state.inFlight === 0 && !state.pending;

start().catch((e) => {
  document.body.prepend(el('div', { class: 'banner' }, `The page could not start: ${e.message}`));
});
