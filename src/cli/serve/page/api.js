// The server's API (src/cli/serve/mod.rs lists the routes): JSON in and out, and the
// preview's binary answer.

const getJson = async (path) => (await fetch(path)).json();
const postJson = (path, body) => fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

// Node kinds (the engine's schema), flow modes, the file, the backend.
export const fetchMeta = () => getJson('/api/meta');
export const fetchPresets = () => getJson('/api/presets');
// { path, text, version, exists }
export const fetchFile = () => getJson('/api/file');
export const fetchFileVersion = () => getJson('/api/file/version');
// Responses (the caller reads the status): the preview, the PNG bake of a view, a save.
export const postRender = (body) => postJson('/api/render', body);
export const postPng = (body) => postJson('/api/png', body);
export const postSave = (body) => postJson('/api/save', body);
// The view in a format `bake` writes (body.format), per-node thumbnails and costs, the
// GPU/CPU parity of the view, a node's WGSL module.
export const postExport = (body) => postJson('/api/export', body);
export const postThumbnails = (body) => postJson('/api/thumbnails', body);
export const postCosts = (body) => postJson('/api/costs', body);
export const postParity = (body) => postJson('/api/parity', body);
export const postWgsl = (body) => postJson('/api/wgsl', body);

// The preview message: u32 length, JSON header, padding to 4 bytes, f32 samples; for a
// gradient or curl flow view (header.flow), then two f32 per pixel, its vectors in view units.
export function unpack(buffer) {
  const length = new DataView(buffer).getUint32(0, true);
  const header = JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, 4, length)));
  const offset = Math.ceil((4 + length) / 4) * 4;
  const pixels = header.width * header.height;
  const data = new Float32Array(buffer, offset, pixels);
  const vectors = header.flow ? new Float32Array(buffer, offset + 4 * pixels, 2 * pixels) : null;
  return { header, data, vectors };
}

