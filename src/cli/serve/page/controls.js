// The node cards: one control per input and field of each node, built from the schema.
import { $, el } from './dom.js';
import { graphChanged, removeNode, renameNode, setViewed } from './graph.js';
import { candidates, categoryOf, dimsOf, fieldsOf, inputCount, inputsOf, kindSchema } from './schema.js';
import { ids, nodes, state } from './state.js';
import { fromSlider, parseList, parseScalar, showValue, sliderSpan, toSlider } from './values.js';

function row(nodeId, f, ...content) {
  const r = el('div', { class: 'row', title: f.doc || '', dataset: nodeId === null ? { field: f.name } : { node: nodeId, field: f.name } },
    el('span', { class: 'name' }, f.name), ...content, el('span', { class: 'err' }));
  return r;
}

// Sets `field` of `node` (deleting it for `undefined`) and re-renders.
function setField(node, field, value, structural) {
  if (value === undefined) delete node[field];
  else node[field] = value;
  graphChanged({ structural, key: `${node.id}.${field}` });
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

function parsePoints(text) {
  try { return JSON.parse(text); } catch { return text; }
}

function textControl(node, f, show, parse, cls = 'num') {
  const input = el('input', { type: 'text', class: cls, value: show(node[f.name]), spellcheck: 'false', 'aria-label': `${node.id} ${f.name}` });
  input.addEventListener('input', () => setField(node, f.name, parse(input.value), false));
  return row(node.id, f, input);
}

// One input (a field naming other nodes): a select per id it holds.
function inputControl(node, input) {
  if (input.count === 'one') return row(node.id, input, refSelect(node, input, node[input.name], (v) => setField(node, input.name, v, true)));
  const count = inputCount(node, input);
  const list = Array.isArray(node[input.name]) ? node[input.name].slice() : [];
  const selects = [];
  for (let i = 0; i < count; i++) {
    selects.push(refSelect(node, input, list[i], (v) => {
      const next = Array.isArray(node[input.name]) ? node[input.name].slice() : [];
      next[i] = v;
      setField(node, input.name, next.slice(0, count), true);
    }));
  }
  return row(node.id, input, ...selects);
}

// One field, by its kind in the schema.
function fieldControl(node, f) {
  const kind = kindSchema(node.type);
  if (f.min_dims && dimsOf(node.id) < f.min_dims) return null;
  switch (f.kind) {
    case 'number': case 'integer': case 'axes': return numberControl(node, f);
    case 'choice': return choiceControl(node, f, f.options, false);
    case 'dims': return choiceControl(node, { ...f, default: kind.dims.supported[0] }, kind.dims.supported, true);
    case 'period': return textControl(node, f, (v) => (v === undefined ? '' : showValue(v)),
      (t) => (t.trim() === '' ? undefined : (t.includes(',') ? parseList(t) : parseScalar(t))));
    case 'pair': case 'triple': return textControl(node, f, (v) => (v === undefined ? '' : showValue(v)), parseList);
    // A list of [x, y] points, written as JSON; text that is not JSON yet goes to the server
    // as written, which reports what is wrong with it.
    case 'points': return textControl(node, f, (v) => JSON.stringify(v === undefined ? f.default : v), parsePoints, 'points');
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
  for (const input of inputsOf(node)) card.append(inputControl(node, input));
  for (const f of fieldsOf(node)) {
    const c = fieldControl(node, f);
    if (c) card.append(c);
  }
  card.append(el('div', { class: 'errors', dataset: { nodeErrors: id } }));
  return card;
}

export function buildControls() {
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

export function updateTimeControls() {
  state.dims = state.viewed ? dimsOf(state.viewed) : 2;
  $('time-z').hidden = state.dims < 3;
  $('time-w').hidden = state.dims < 4;
  if (state.dims >= 4) {
    const four = nodes().find((n) => categoryOf(n.type) === 'family' && n.dims === 4);
    const w = four && typeof four.w === 'number' ? four.w : 0;
    $('w').value = String(w);
    $('w-slider').value = String(w);
  }
}
