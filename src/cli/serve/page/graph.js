// Editing the graph: the JSON text, adding, removing and renaming nodes, the viewed node.
import { $ } from './dom.js';
import { buildControls, updateTimeControls } from './controls.js';
import { clearFieldError, showFieldError } from './errors.js';
import { note, updateBake, updateDirty } from './file.js';
import { candidates, categoryOf, dimsOf, fieldsOf, inputCount, inputsOf } from './schema.js';
import { ids, nodes, state } from './state.js';
import { markStale, requestRender } from './view.js';
import { drawCanvas } from './canvas.js';
import { remember } from './history.js';
import { requestThumbnails } from './thumbs.js';
import { costsStale } from './costs.js';

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
// `key` names the control that made the change (undo folds quick changes of one control).
export function graphChanged({ structural = false, fromText = false, key = null } = {}) {
  if (!fromText) {
    $('json').value = formatGraph(state.graph);
    clearFieldError('json');
  }
  if (structural) buildControls();
  else updateTimeControls();
  updateDirty();
  updateBake();
  drawCanvas();
  remember(fromText ? 'json' : key);
  costsStale();
  requestRender();
  requestThumbnails();
}

// After nodes moved on the canvas: the JSON follows (their `layout`), nothing renders.
export function layoutChanged() {
  $('json').value = formatGraph(state.graph);
  updateDirty();
  remember('layout');
}

// The position of every node on the canvas (the graph's `layout` field, which the engine
// ignores): `[x, y]` in canvas units.
export function layoutOf() {
  const l = state.graph && state.graph.layout;
  return l && typeof l === 'object' && !Array.isArray(l) ? l : null;
}
export function setPosition(id, xy) {
  if (!state.graph) return;
  if (!layoutOf()) state.graph.layout = {};
  state.graph.layout[id] = [Math.round(xy[0]), Math.round(xy[1])];
}

// Wires: `node`'s input `name` (slot `index` of a list) reads `from`; `from` null
// disconnects it (a single input is removed, a list's slot emptied: the engine then says
// what the node lacks).
export function connect(node, input, index, from) {
  if (input.count === 'one') {
    if (from === null) delete node[input.name];
    else node[input.name] = from;
  } else {
    const count = inputCount(node, input);
    const list = Array.isArray(node[input.name]) ? node[input.name].slice(0, count) : [];
    while (list.length < count) list.push('');
    list[index] = from ?? '';
    node[input.name] = list;
  }
  graphChanged({ structural: true });
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
  if (categoryOf(type) === 'family') node.frequency = 4;
  const pick = (of, avoid) => candidates(of, node.id).filter((id) => !avoid.includes(id));
  for (const input of inputsOf(node)) {
    if (input.count === 'one') {
      node[input.name] = (state.viewed && pick(input.of, []).includes(state.viewed) ? state.viewed : pick(input.of, [])[0]) ?? '';
    } else {
      const count = input.count.list || Math.max(2, dimsOf(node.source));
      const pool = pick(input.of, [node.source]);
      node[input.name] = Array.from({ length: count }, (_, i) => pool[i % Math.max(1, pool.length)] ?? '');
    }
  }
  for (const f of fieldsOf(node)) {
    if (f.initial !== undefined) node[f.name] = f.initial;
  }
  return node;
}

// Adds a node of `type` (the add select's when not given), at canvas position `at` when
// given, and views it.
export function addNode(type, at) {
  if (!state.graph) return null;
  if (!Array.isArray(state.graph.nodes)) state.graph.nodes = [];
  const node = newNode(typeof type === 'string' ? type : $('add-type').value);
  state.graph.nodes.push(node);
  if (at) setPosition(node.id, at);
  state.viewed = node.id;
  state.selected = new Set([node.id]);
  graphChanged({ structural: true });
  return node;
}

export function removeNode(node) {
  removeNodes([node]);
}

export function removeNodes(list) {
  if (!state.graph || list.length === 0) return;
  state.graph.nodes = state.graph.nodes.filter((n) => !list.includes(n));
  const layout = layoutOf();
  for (const node of list) {
    if (layout) delete layout[node.id];
    if (state.viewed === node.id) state.viewed = null;
    state.selected.delete(node.id);
  }
  graphChanged({ structural: true });
}

export function renameNode(node, to, input) {
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
  const layout = layoutOf();
  if (layout && Object.prototype.hasOwnProperty.call(layout, from)) {
    layout[to] = layout[from];
    delete layout[from];
  }
  if (state.selected.delete(from)) state.selected.add(to);
  if (state.viewed === from) state.viewed = to;
  graphChanged({ structural: true });
}

export function setViewed(id) {
  state.viewed = id;
  for (const c of document.querySelectorAll('.node')) c.classList.toggle('viewed', c.dataset.card === id);
  for (const b of document.querySelectorAll('.gnode')) b.classList.toggle('viewed', b.dataset.id === id);
  $('viewed').value = id;
  updateTimeControls();
  updateBake();
  requestRender();
}

export function loadText(text, { reason } = {}) {
  $('json').value = text;
  jsonEdited();
  if (reason) note(reason);
}

export function jsonEdited() {
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
