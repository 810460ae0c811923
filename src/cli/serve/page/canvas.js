// The node canvas: one box per node (its id and type, its input ports and output, its
// thumbnail, cost and problems), wires from outputs to inputs (SVG), pan, zoom, moving and
// selecting boxes. Boxes and ports are buttons and focusable groups, so every action has a
// key (the shortcuts are listed under the canvas).
import { $, el } from './dom.js';
import { addNode, connect, layoutChanged, layoutOf, removeNodes, renameNode, setPosition, setViewed } from './graph.js';
import { inputCount, inputsOf, inputIds, kindSchema } from './schema.js';
import { ids, nodeById, nodes, state } from './state.js';
import { drawThumbnail } from './thumbs.js';
import { showCosts } from './costs.js';

const BOX_W = 168;
const COLUMN = 210;
const ROW = 150;
const view = { x: 20, y: 20, zoom: 1 };
let issuesShown = [];
// A wire being dragged or picked up by keyboard: { from: id, detach: { node, input, index } }.
let picking = null;

const world = () => $('canvas-world');

// Where each node sits: its saved position, else a column by depth (inputs to the left).
function positions() {
  const layout = layoutOf() || {};
  const depth = new Map();
  const depthOf = (id, seen = new Set()) => {
    if (depth.has(id)) return depth.get(id);
    const n = nodeById(id);
    if (!n || seen.has(id)) return 0;
    seen.add(id);
    const d = inputIds(n).reduce((m, i) => Math.max(m, depthOf(i, seen) + 1), 0);
    depth.set(id, d);
    return d;
  };
  const rows = new Map();
  const out = new Map();
  for (const n of nodes()) {
    const id = n.id;
    const saved = layout[id];
    if (Array.isArray(saved) && saved.length === 2 && saved.every(Number.isFinite)) {
      out.set(id, saved);
      continue;
    }
    const d = depthOf(id);
    const r = rows.get(d) ?? 0;
    rows.set(d, r + 1);
    out.set(id, [d * COLUMN, r * ROW]);
  }
  return out;
}

// The input slots of a node: one per id it may hold.
function slots(node) {
  return inputsOf(node).flatMap((input) => {
    const count = inputCount(node, input);
    const v = node[input.name];
    return Array.from({ length: count }, (_, i) => ({
      input,
      index: i,
      label: input.count === 'one' ? input.name : `${input.name}[${i}]`,
      from: input.count === 'one' ? (typeof v === 'string' ? v : null) : (Array.isArray(v) && typeof v[i] === 'string' && v[i] !== '' ? v[i] : null),
    }));
  });
}

function box(node, [x, y]) {
  const id = node.id;
  const selected = state.selected.has(id);
  const title = el('div', { class: 'ghead', title: 'Drag to move; double-click to rename' },
    el('span', { class: 'gid' }, id), el('span', { class: 'gtype' }, node.type ?? '(no type)'));
  title.addEventListener('dblclick', () => startRename(id));
  const ins = el('div', { class: 'gins' }, ...slots(node).map((s) => {
    const port = el('button', {
      type: 'button', class: 'port in' + (s.from ? ' connected' : ''),
      'aria-label': `${id} input ${s.label}${s.from ? ` (from ${s.from})` : ' (not connected)'}`,
      title: s.from ? `${s.label} ← ${s.from}: drag off to disconnect (Delete)` : `${s.label}: drop a wire here (Enter after picking an output)`,
      dataset: { node: id, input: s.input.name, index: String(s.index), from: s.from ?? '' },
    }, el('span', { class: 'dot' }), s.label);
    port.addEventListener('pointerdown', (e) => startWireFromInput(e, node, s));
    port.addEventListener('keydown', (e) => inputKey(e, node, s));
    return port;
  }));
  const out = el('button', { type: 'button', class: 'port out', 'aria-label': `${id} output`, title: 'Drag to an input to connect (or Enter, then Enter on an input)', dataset: { node: id } }, 'out', el('span', { class: 'dot' }));
  out.addEventListener('pointerdown', (e) => startWire(e, id, null));
  out.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      e.stopPropagation();
      pick(id);
    }
  });
  const thumb = el('canvas', { class: 'thumb', width: 64, height: 64, title: 'Click to view this node', 'aria-label': `thumbnail of ${id}` });
  thumb.addEventListener('click', () => setViewed(id));
  const b = el('div', {
    class: 'gnode' + (selected ? ' selected' : '') + (id === state.viewed ? ' viewed' : ''),
    tabindex: 0, role: 'group', 'aria-label': `node ${id} (${node.type}): Enter views it, F2 renames it, Delete removes it`,
    dataset: { id },
  }, title, el('div', { class: 'gbody' }, ins, thumb, out), el('div', { class: 'gcost' }), el('div', { class: 'gerrors' }));
  // Through the CSSOM: the page's Content-Security-Policy refuses inline style attributes.
  Object.assign(b.style, { left: `${x}px`, top: `${y}px`, width: `${BOX_W}px` });
  title.addEventListener('pointerdown', (e) => startMove(e, id));
  b.addEventListener('keydown', (e) => boxKey(e, node));
  b.addEventListener('focus', () => { if (!state.selected.has(id) && !b.contains(document.activeElement?.closest?.('.port'))) select(id, false); });
  drawThumbnail(id, thumb);
  return b;
}

// Rebuilds the boxes and wires from the graph (keeping focus on the same box or port).
export function drawCanvas() {
  if (!world()) return;
  const focused = document.activeElement;
  const refocus = focused && world().contains(focused)
    ? (focused.classList.contains('gnode') ? `.gnode[data-id="${CSS.escape(focused.dataset.id)}"]`
      : focused.classList.contains('port') ? `.port.${focused.classList.contains('in') ? 'in' : 'out'}[data-node="${CSS.escape(focused.dataset.node)}"]${focused.dataset.input ? `[data-input="${CSS.escape(focused.dataset.input)}"][data-index="${focused.dataset.index}"]` : ''}` : null)
    : null;
  for (const id of [...state.selected]) if (!ids().includes(id)) state.selected.delete(id);
  const pos = positions();
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.id = 'wires';
  svg.setAttribute('aria-hidden', 'true');
  world().replaceChildren(svg, ...nodes().filter((n) => typeof n.id === 'string').map((n) => box(n, pos.get(n.id))));
  drawWires();
  showNodeIssues(issuesShown);
  showCosts();
  applyView();
  if (refocus) world().querySelector(refocus)?.focus();
}

function portCentre(port) {
  const r = port.querySelector('.dot').getBoundingClientRect();
  const w = world().getBoundingClientRect();
  return [(r.x + r.width / 2 - w.x) / view.zoom, (r.y + r.height / 2 - w.y) / view.zoom];
}

function wirePath([x1, y1], [x2, y2]) {
  const dx = Math.max(40, Math.abs(x2 - x1) / 2);
  return `M${x1},${y1} C${x1 + dx},${y1} ${x2 - dx},${y2} ${x2},${y2}`;
}

export function drawWires() {
  const svg = $('wires');
  if (!svg) return;
  const paths = [];
  for (const port of world().querySelectorAll('.port.in.connected')) {
    const out = world().querySelector(`.port.out[data-node="${CSS.escape(port.dataset.from)}"]`);
    if (!out) continue;
    const p = document.createElementNS('http://www.w3.org/2000/svg', 'path');
    p.setAttribute('d', wirePath(portCentre(out), portCentre(port)));
    p.setAttribute('class', 'wire');
    p.dataset.from = port.dataset.from;
    p.dataset.to = `${port.dataset.node}.${port.dataset.input}[${port.dataset.index}]`;
    paths.push(p);
  }
  const temp = document.createElementNS('http://www.w3.org/2000/svg', 'path');
  temp.id = 'temp-wire';
  temp.setAttribute('class', 'wire temp');
  svg.replaceChildren(...paths, temp);
}

function applyView() {
  world().style.transform = `translate(${view.x}px, ${view.y}px) scale(${view.zoom})`;
  $('canvas').dataset.zoom = view.zoom.toFixed(3);
}

function toWorld(clientX, clientY) {
  const r = $('canvas').getBoundingClientRect();
  return [(clientX - r.x - view.x) / view.zoom, (clientY - r.y - view.y) / view.zoom];
}

function zoomAt(factor, clientX, clientY) {
  const r = $('canvas').getBoundingClientRect();
  const cx = clientX ?? r.x + r.width / 2;
  const cy = clientY ?? r.y + r.height / 2;
  const next = Math.min(3, Math.max(0.25, view.zoom * factor));
  const [wx, wy] = toWorld(cx, cy);
  view.zoom = next;
  view.x = cx - r.x - wx * next;
  view.y = cy - r.y - wy * next;
  applyView();
}

// Frames every box in the canvas.
export function fit() {
  const boxes = [...world().querySelectorAll('.gnode')];
  if (!boxes.length) return;
  const xs = boxes.map((b) => b.offsetLeft);
  const ys = boxes.map((b) => b.offsetTop);
  const x1 = Math.max(...boxes.map((b) => b.offsetLeft + b.offsetWidth));
  const y1 = Math.max(...boxes.map((b) => b.offsetTop + b.offsetHeight));
  const r = $('canvas').getBoundingClientRect();
  const x0 = Math.min(...xs);
  const y0 = Math.min(...ys);
  view.zoom = Math.min(1.25, Math.max(0.25, Math.min((r.width - 40) / (x1 - x0), (r.height - 40) / (y1 - y0))));
  view.x = 20 - x0 * view.zoom;
  view.y = 20 - y0 * view.zoom;
  applyView();
}

function select(id, add) {
  if (!add) state.selected = new Set();
  if (add && state.selected.has(id)) state.selected.delete(id);
  else state.selected.add(id);
  for (const b of world().querySelectorAll('.gnode')) b.classList.toggle('selected', state.selected.has(b.dataset.id));
  $('canvas-info').textContent = state.selected.size ? `selected: ${[...state.selected].join(', ')}` : '';
}

// Dragging a box's title moves it and every other selected box.
function startMove(e, id) {
  if (e.button !== 0) return;
  e.preventDefault();
  e.stopPropagation();
  if (e.shiftKey || e.ctrlKey || e.metaKey) {
    select(id, true);
    return;
  }
  if (!state.selected.has(id)) select(id, false);
  world().querySelector(`.gnode[data-id="${CSS.escape(id)}"]`)?.focus({ preventScroll: true });
  const start = toWorld(e.clientX, e.clientY);
  const moving = [...state.selected].map((m) => {
    const b = world().querySelector(`.gnode[data-id="${CSS.escape(m)}"]`);
    return { id: m, b, x: b.offsetLeft, y: b.offsetTop };
  });
  let moved = false;
  const move = (ev) => {
    const [x, y] = toWorld(ev.clientX, ev.clientY);
    moved = true;
    for (const m of moving) {
      m.b.style.left = `${m.x + x - start[0]}px`;
      m.b.style.top = `${m.y + y - start[1]}px`;
    }
    drawWires();
  };
  const up = () => {
    window.removeEventListener('pointermove', move);
    window.removeEventListener('pointerup', up);
    if (!moved) return;
    for (const m of moving) setPosition(m.id, [m.b.offsetLeft, m.b.offsetTop]);
    layoutChanged();
  };
  window.addEventListener('pointermove', move);
  window.addEventListener('pointerup', up);
}

function moveSelected(dx, dy) {
  const pos = positions();
  for (const id of state.selected) {
    const [x, y] = pos.get(id) ?? [0, 0];
    setPosition(id, [x + dx, y + dy]);
  }
  layoutChanged();
  drawCanvas();
}

// A wire from `from`'s output follows the pointer; dropped on an input port it connects
// there. `detach` (an input it was taken from) is disconnected when it is dropped elsewhere.
function startWire(e, from, detach) {
  if (e.button !== 0) return;
  e.preventDefault();
  e.stopPropagation();
  const outPort = world().querySelector(`.port.out[data-node="${CSS.escape(from)}"]`);
  const start = portCentre(outPort);
  const temp = $('temp-wire');
  const move = (ev) => temp.setAttribute('d', wirePath(start, toWorld(ev.clientX, ev.clientY)));
  move(e);
  $('canvas').classList.add('wiring');
  const up = (ev) => {
    window.removeEventListener('pointermove', move);
    window.removeEventListener('pointerup', up);
    $('canvas').classList.remove('wiring');
    temp.removeAttribute('d');
    const target = document.elementFromPoint(ev.clientX, ev.clientY)?.closest('.port.in');
    dropWire(from, detach, target);
  };
  window.addEventListener('pointermove', move);
  window.addEventListener('pointerup', up);
}

function slotOf(port) {
  const node = nodeById(port.dataset.node);
  const input = node && inputsOf(node).find((i) => i.name === port.dataset.input);
  return node && input ? { node, input, index: Number(port.dataset.index) } : null;
}

function dropWire(from, detach, target) {
  const slot = target && slotOf(target);
  if (detach && slot && slot.node === detach.node && slot.input === detach.input && slot.index === detach.index) return;
  if (!slot && !detach) return;
  if (detach && slot) {
    // Moved from one input to another: both in one step.
    const d = detach;
    if (d.input.count === 'one') delete d.node[d.input.name];
    else if (Array.isArray(d.node[d.input.name])) d.node[d.input.name][d.index] = '';
  }
  if (slot) connect(slot.node, slot.input, slot.index, from);
  else connect(detach.node, detach.input, detach.index, null);
}

function startWireFromInput(e, node, s) {
  if (s.from && nodeById(s.from)) startWire(e, s.from, { node, input: s.input, index: s.index });
  else if (picking && e.button === 0) {
    e.preventDefault();
    finishPick(node, s);
  }
}

// Keyboard wiring: Enter on an output picks it up, Enter on an input connects it there.
function pick(id) {
  picking = { from: id };
  $('canvas').classList.add('wiring');
  $('canvas-info').textContent = `connecting from ${id}: focus an input port and press Enter (Escape cancels)`;
}
function finishPick(node, s) {
  const from = picking.from;
  picking = null;
  $('canvas').classList.remove('wiring');
  $('canvas-info').textContent = '';
  connect(node, s.input, s.index, from);
}

function inputKey(e, node, s) {
  if ((e.key === 'Enter' || e.key === ' ') && picking) {
    e.preventDefault();
    e.stopPropagation();
    finishPick(node, s);
  } else if ((e.key === 'Delete' || e.key === 'Backspace') && s.from) {
    e.preventDefault();
    e.stopPropagation();
    connect(node, s.input, s.index, null);
  }
}

function startRename(id) {
  const b = world().querySelector(`.gnode[data-id="${CSS.escape(id)}"]`);
  const label = b?.querySelector('.gid');
  if (!label) return;
  const input = el('input', { type: 'text', class: 'grename', value: id, 'aria-label': `new id for ${id}`, spellcheck: 'false' });
  label.replaceWith(input);
  input.focus();
  input.select();
  let done = false;
  const commit = (keep) => {
    if (done) return;
    done = true;
    const to = input.value.trim();
    const node = nodeById(id);
    if (keep && node && to !== id) {
      renameNode(node, to, input);
      if (nodeById(to)) return;
      $('canvas-info').textContent = to === '' ? 'an id cannot be empty' : `'${to}' is already a node id`;
    }
    drawCanvas();
  };
  input.addEventListener('keydown', (e) => {
    e.stopPropagation();
    if (e.key === 'Enter') commit(true);
    if (e.key === 'Escape') commit(false);
  });
  input.addEventListener('blur', () => commit(true));
  input.addEventListener('pointerdown', (e) => e.stopPropagation());
}

function boxKey(e, node) {
  if (e.target !== e.currentTarget) return;
  const step = e.shiftKey ? 50 : 10;
  const arrows = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
  if (e.key === 'Enter') {
    e.preventDefault();
    setViewed(node.id);
  } else if (e.key === 'F2') {
    e.preventDefault();
    startRename(node.id);
  } else if (e.key === ' ') {
    e.preventDefault();
    select(node.id, e.shiftKey || e.ctrlKey);
  } else if (arrows[e.key]) {
    e.preventDefault();
    if (!state.selected.has(node.id)) select(node.id, false);
    moveSelected(...arrows[e.key]);
  }
}

// The engine's problems at their node: listed in its box, the box and the port marked.
export function showNodeIssues(issues) {
  issuesShown = issues;
  if (!world()) return;
  for (const b of world().querySelectorAll('.gnode')) {
    b.classList.remove('invalid');
    b.querySelector('.gerrors').replaceChildren();
  }
  for (const p of world().querySelectorAll('.port.invalid')) p.classList.remove('invalid');
  for (const i of issues) {
    if (!i.node) continue;
    const b = world().querySelector(`.gnode[data-id="${CSS.escape(i.node)}"]`);
    if (!b) continue;
    b.classList.add('invalid');
    b.querySelector('.gerrors').append(el('div', { dataset: { field: i.field } }, `${i.field}: ${i.message}`));
    for (const p of b.querySelectorAll(`.port.in[data-input="${CSS.escape(i.field)}"]`)) p.classList.add('invalid');
  }
}

// The add menu: the schema's node kinds grouped by category, in the schema's order.
const CATEGORY_LABELS = { family: 'families', fractal: 'fractals', warp: 'warp', pointwise: 'point-wise', mapping: 'mappings' };
export function categories() {
  const seen = [];
  for (const k of state.meta.schema.nodes) if (!seen.includes(k.category)) seen.push(k.category);
  return seen.map((c) => ({ category: c, label: CATEGORY_LABELS[c] ?? c, types: state.meta.schema.nodes.filter((k) => k.category === c).map((k) => k.type) }));
}

let addAt = null;
function openAddMenu(at) {
  const menu = $('add-menu');
  addAt = at;
  menu.hidden = false;
  menu.querySelector('button')?.focus();
}
function closeAddMenu() {
  $('add-menu').hidden = true;
}

function buildAddMenu() {
  const menu = $('add-menu');
  menu.replaceChildren(...categories().map(({ category, label, types }) => el('div', { class: 'menu-group', role: 'group', 'aria-label': label, dataset: { category } },
    el('div', { class: 'menu-label' }, label),
    ...types.map((t) => {
      const b = el('button', { type: 'button', role: 'menuitem', dataset: { type: t }, title: kindSchema(t)?.summary ?? '' }, t);
      b.addEventListener('click', () => {
        closeAddMenu();
        const r = $('canvas').getBoundingClientRect();
        const at = addAt ?? toWorld(r.x + r.width / 2 - BOX_W / 2, r.y + r.height / 3);
        addNode(t, at);
        world().querySelector(`.gnode[data-id="${CSS.escape(state.viewed)}"]`)?.focus();
      });
      return b;
    }))));
  menu.addEventListener('keydown', (e) => {
    const items = [...menu.querySelectorAll('button')];
    const i = items.indexOf(document.activeElement);
    if (e.key === 'Escape') { closeAddMenu(); $('add-menu-button').focus(); }
    if (e.key === 'ArrowDown') { e.preventDefault(); items[(i + 1) % items.length].focus(); }
    if (e.key === 'ArrowUp') { e.preventDefault(); items[(i - 1 + items.length) % items.length].focus(); }
  });
}

function deleteSelected() {
  removeNodes([...state.selected].map(nodeById).filter(Boolean));
}

// Canvas-wide keys (a text field keeps its own keys).
function canvasKey(e) {
  if (e.target.closest('input, textarea, select')) return;
  if (e.key === 'Escape' && picking) {
    picking = null;
    $('canvas').classList.remove('wiring');
    $('canvas-info').textContent = '';
  } else if (e.key === 'Delete' || e.key === 'Backspace') {
    e.preventDefault();
    deleteSelected();
    $('canvas').focus();
  } else if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'a') {
    e.preventDefault();
    state.selected = new Set(ids());
    select(ids()[0], true);
    select(ids()[0], true);
  } else if (e.key === 'a' || e.key === 'A') {
    e.preventDefault();
    openAddMenu(null);
  } else if (e.key === '+' || e.key === '=') {
    zoomAt(1.2);
  } else if (e.key === '-') {
    zoomAt(1 / 1.2);
  } else if (e.key === '0') {
    fit();
  }
}

export function setupCanvas() {
  const canvas = $('canvas');
  buildAddMenu();
  $('add-menu-button').addEventListener('click', () => ($('add-menu').hidden ? openAddMenu(null) : closeAddMenu()));
  $('delete-selected').addEventListener('click', deleteSelected);
  $('fit').addEventListener('click', fit);
  canvas.addEventListener('keydown', canvasKey);
  document.addEventListener('pointerdown', (e) => { if (!e.target.closest('#add-menu, #add-menu-button')) closeAddMenu(); });
  // The background: drag pans; Shift+drag selects the boxes in a rectangle; a click clears
  // the selection; the wheel zooms about the pointer.
  canvas.addEventListener('pointerdown', (e) => {
    if (e.button !== 0 || e.target.closest('.gnode')) return;
    canvas.focus({ preventScroll: true });
    const sx = e.clientX;
    const sy = e.clientY;
    const ox = view.x;
    const oy = view.y;
    const band = e.shiftKey ? el('div', { class: 'band' }) : null;
    if (band) canvas.append(band);
    const r = canvas.getBoundingClientRect();
    let moved = false;
    const move = (ev) => {
      moved = moved || Math.abs(ev.clientX - sx) + Math.abs(ev.clientY - sy) > 3;
      if (band) {
        Object.assign(band.style, { left: `${Math.min(sx, ev.clientX) - r.x}px`, top: `${Math.min(sy, ev.clientY) - r.y}px`, width: `${Math.abs(ev.clientX - sx)}px`, height: `${Math.abs(ev.clientY - sy)}px` });
      } else {
        view.x = ox + ev.clientX - sx;
        view.y = oy + ev.clientY - sy;
        applyView();
      }
    };
    const up = (ev) => {
      window.removeEventListener('pointermove', move);
      window.removeEventListener('pointerup', up);
      if (band) {
        band.remove();
        const x0 = Math.min(sx, ev.clientX);
        const x1 = Math.max(sx, ev.clientX);
        const y0 = Math.min(sy, ev.clientY);
        const y1 = Math.max(sy, ev.clientY);
        for (const b of world().querySelectorAll('.gnode')) {
          const br = b.getBoundingClientRect();
          if (br.x < x1 && br.right > x0 && br.y < y1 && br.bottom > y0) state.selected.add(b.dataset.id);
          b.classList.toggle('selected', state.selected.has(b.dataset.id));
        }
        $('canvas-info').textContent = state.selected.size ? `selected: ${[...state.selected].join(', ')}` : '';
      } else if (!moved) {
        state.selected = new Set();
        select(null, true);
        state.selected.delete(null);
        $('canvas-info').textContent = '';
      }
    };
    window.addEventListener('pointermove', move);
    window.addEventListener('pointerup', up);
  });
  canvas.addEventListener('wheel', (e) => {
    e.preventDefault();
    zoomAt(Math.exp(-e.deltaY * 0.0015), e.clientX, e.clientY);
  }, { passive: false });
  canvas.addEventListener('dblclick', (e) => {
    if (e.target.closest('.gnode')) return;
    openAddMenu(toWorld(e.clientX, e.clientY));
  });
}
