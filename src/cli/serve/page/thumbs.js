// A thumbnail on every node: its own output over the view, rendered by the engine
// (/api/thumbnails, one request for every node that needs one). A node's thumbnail is
// asked for again only when its signature changes: the node, anything upstream of it, the
// seed, or the view (origin, extent, z, levels). Positions on the canvas are not in it.
import { postThumbnails } from './api.js';
import { inputIds } from './schema.js';
import { nodeById, nodes, state } from './state.js';

export const THUMB_SIDE = 64;
// id -> { sig, image (ImageData) | null, errors, count }: what is drawn, and how many times
// it was redrawn (the tests read the count).
const drawn = new Map();
// id -> signature asked for and not yet answered.
const asked = new Map();
const thumbs = { queued: false, inFlight: 0, generation: 0, changedAt: null, lastRefreshMs: null };

// The node and everything upstream, in graph order, with the seed and the view.
function signature(id) {
  const keep = new Set();
  const todo = [id];
  while (todo.length) {
    const next = todo.pop();
    if (keep.has(next)) continue;
    keep.add(next);
    const n = nodeById(next);
    if (n) todo.push(...inputIds(n));
  }
  const upstream = nodes().filter((n) => keep.has(n.id));
  return JSON.stringify([state.graph?.seed, viewKey(), upstream]);
}

let viewKeyFn = () => null;
// The view fields thumbnails follow (set by the view module, which owns them).
export function setThumbnailView(fn) {
  viewKeyFn = fn;
}
function viewKey() {
  return viewKeyFn();
}

// Asks for the thumbnails whose signature changed (once per frame at most).
export function requestThumbnails() {
  if (thumbs.changedAt === null) thumbs.changedAt = performance.now();
  if (thumbs.queued) return;
  thumbs.queued = true;
  requestAnimationFrame(() => {
    thumbs.queued = false;
    send();
  });
}

function stale() {
  return nodes().map((n) => n.id).filter((id) => typeof id === 'string').map((id) => [id, signature(id)])
    .filter(([id, sig]) => drawn.get(id)?.sig !== sig && asked.get(id) !== sig);
}

async function send() {
  if (!state.graph) return;
  const wanted = stale();
  if (wanted.length === 0) {
    settle();
    return;
  }
  for (const [id, sig] of wanted) asked.set(id, sig);
  const generation = ++thumbs.generation;
  const view = viewKey();
  thumbs.inFlight++;
  try {
    const response = await postThumbnails({
      graph: state.graph, nodes: wanted.map(([id]) => id), size: [THUMB_SIDE, THUMB_SIDE],
      origin: view.origin, extent: view.extent, normalize: view.normalize,
      session: state.session, generation,
    });
    if (response.status !== 200) return; // superseded (409) or refused: asked again below
    const answer = await response.json();
    const sent = new Map(wanted);
    for (const t of answer.thumbnails) {
      const sig = sent.get(t.node);
      if (asked.get(t.node) === sig) asked.delete(t.node);
      if (sig !== signature(t.node)) continue; // changed while in flight
      let image = null;
      if (t.gray) {
        image = new ImageData(t.width, t.height);
        t.gray.forEach((g, i) => {
          image.data[4 * i] = g;
          image.data[4 * i + 1] = g;
          image.data[4 * i + 2] = g;
          image.data[4 * i + 3] = 255;
        });
      }
      const count = (drawn.get(t.node)?.count ?? 0) + 1;
      drawn.set(t.node, { sig, image, errors: t.errors ?? null, count });
      const canvas = document.querySelector(`.gnode[data-id="${CSS.escape(t.node)}"] canvas.thumb`);
      if (canvas) drawThumbnail(t.node, canvas);
    }
  } catch {
    // The server is gone: the preview says so.
  } finally {
    thumbs.inFlight--;
    for (const [id, sig] of wanted) if (asked.get(id) === sig) asked.delete(id);
    if (stale().length) requestThumbnails();
    else settle();
  }
}

function settle() {
  if (thumbs.inFlight === 0 && !thumbs.queued && thumbs.changedAt !== null && stale().length === 0) {
    thumbs.lastRefreshMs = performance.now() - thumbs.changedAt;
    thumbs.changedAt = null;
  }
}

// Draws the node's thumbnail (or its problem) into `canvas`.
export function drawThumbnail(id, canvas) {
  const d = drawn.get(id);
  const ctx = canvas.getContext('2d');
  canvas.dataset.count = String(d?.count ?? 0);
  canvas.dataset.current = String(!!d && d.sig === signature(id));
  canvas.classList.toggle('failed', !!d?.errors);
  if (!d) {
    ctx.fillStyle = '#333';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    return;
  }
  if (d.image) {
    ctx.putImageData(d.image, 0, 0);
    canvas.title = `${id}: click to view this node`;
  } else {
    ctx.fillStyle = '#5a1d1a';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.strokeStyle = '#e77';
    ctx.beginPath();
    ctx.moveTo(8, 8);
    ctx.lineTo(56, 56);
    ctx.moveTo(56, 8);
    ctx.lineTo(8, 56);
    ctx.stroke();
    canvas.title = (d.errors || []).map((e) => `${e.node ?? ''} ${e.field}: ${e.message}`).join('\n');
  }
}

// For the tests: every thumbnail current, nothing asked for or in flight; and the time
// from the first change to the last thumbnail drawn.
export function thumbnailsIdle() {
  return !thumbs.queued && thumbs.inFlight === 0 && stale().length === 0;
}
export function lastThumbnailRefreshMs() {
  return thumbs.lastRefreshMs;
}
