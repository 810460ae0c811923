// The engine's node schema (`noisegraph::graph::schema`, served in /api/meta): every node
// kind with its category, inputs, fields and dims rule. Nothing here knows a node type by
// name: new kinds in the engine show up with their controls.
import { nodeById, nodes, state } from './state.js';

export function kindSchema(type) {
  return state.meta.schema.nodes.find((k) => k.type === type);
}
export function categoryOf(type) {
  return kindSchema(type)?.category ?? 'unknown';
}
export function typesOf(category) {
  return state.meta.schema.nodes.filter((k) => k.category === category).map((k) => k.type);
}
export function inputsOf(node) {
  return kindSchema(node.type)?.inputs ?? [];
}
export function fieldsOf(node) {
  return kindSchema(node.type)?.fields ?? [];
}
// The ids a node reads, in its inputs' order (the source first).
export function inputIds(node) {
  return inputsOf(node).flatMap((i) => {
    const v = node[i.name];
    if (Array.isArray(v)) return v;
    return v === undefined ? [] : [v];
  });
}
// The number of ids an input holds: its declared count, or one per axis of the source.
export function inputCount(node, input) {
  if (input.count === 'one') return 1;
  if (input.count && input.count.list) return input.count.list;
  return Math.min(4, Math.max(2, dimsOf(node.source)));
}
// The coordinate dimension of a node by its kind's dims rule (as the engine's `dims_of`).
export function dimsOf(id, depth = 0) {
  const n = nodeById(id);
  const kind = n && kindSchema(n.type);
  if (!kind || depth > nodes().length) return 2;
  switch (kind.dims.rule) {
    case 'own': return Number.isInteger(n.dims) ? n.dims : kind.dims.supported[0];
    case 'source': return dimsOf(n.source, depth + 1);
    case 'fixed': return kind.dims.dims;
    default: return inputIds(n).reduce((m, i) => Math.max(m, dimsOf(i, depth + 1)), 2);
  }
}
// Which nodes an input may name (`of`: family, generator or any).
export function accepts(of, type) {
  const category = categoryOf(type);
  if (of === 'family') return category === 'family';
  if (of === 'generator') return category === 'family' || category === 'fractal';
  return true;
}
export function candidates(of, self) {
  return nodes().filter((n) => n.id !== self && accepts(of, n.type)).map((n) => n.id);
}
