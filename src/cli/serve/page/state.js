// The page's state: the working graph, the view, the render sequence; and the graph's nodes.
const query = new URLSearchParams(location.search);
export const state = {
  meta: null,
  graph: null, // the working graph (a JSON value), null while the text does not parse
  viewed: null, // the viewed node's id
  file: { path: null, version: null, loadedCanonical: null, ignoredVersion: null },
  view: {
    size: Number(query.get('size')) || 512,
    origin: ['0', '0'],
    extent: ['1', '1'],
    z: '0',
    mode: ['image', 'tiled', 'flow', '3d'].includes(query.get('mode')) ? query.get('mode') : 'image',
    normalize: 'range',
  },
  session: Math.random().toString(36).slice(2) + Date.now().toString(36),
  generation: 0, // the last request sent
  handled: 0, // the newest request whose answer was shown (image or errors)
  inFlight: 0,
  pending: false,
  field: null, // { header, data }: the last good render
  dims: 2,
  selected: new Set(), // the ids selected on the node canvas
};

export function nodes() {
  return state.graph && Array.isArray(state.graph.nodes) ? state.graph.nodes.filter((n) => n && typeof n === 'object') : [];
}
export function nodeById(id) {
  return nodes().find((n) => n.id === id);
}
export function ids() {
  return nodes().map((n) => n.id).filter((id) => typeof id === 'string');
}
