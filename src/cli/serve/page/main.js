// The page of `noisegraph serve`: ES modules served from the binary (no build step). The graph
// lives here as a JSON value: the controls (built from /api/meta, the engine's node schema) and
// the JSON text edit it, every change is sent to /api/render, and the engine's answer is either
// the field (f32 samples and statistics) or the validation problems, shown at their fields.
import { fetchFile, fetchMeta, fetchPresets } from './api.js';
import { $, el } from './dom.js';
import { canonical, download, downloadPng, pollFile, save, updateBake, updateDirty } from './file.js';
import { resetParticles, setMode } from './flow.js';
import { addNode, graphChanged, jsonEdited, loadText, setViewed } from './graph.js';
import { state } from './state.js';
import { parseScalar } from './values.js';
import { renderIsQueued, requestRender, setView, setupPanZoom, setupTime } from './view.js';
import { categories, fit, setupCanvas } from './canvas.js';
import { measureCosts, runParity, costsBusy } from './costs.js';
import { copyWgsl, downloadFile } from './file.js';
import { redo, resetHistory, undo } from './history.js';
import { setupMesh } from './mesh.js';
import { lastThumbnailRefreshMs, thumbnailsIdle } from './thumbs.js';

function fillAddTypes() {
  $('add-type').replaceChildren(...categories().map(({ label, types }) => el('optgroup', { label }, ...types.map((t) => el('option', { value: t }, t)))));
}

// Undo and redo restore the JSON text of a step; the graph, the controls and the canvas follow.
function applyText(text) {
  $('json').value = text;
  jsonEdited();
}

function setupHistoryKeys() {
  $('undo').addEventListener('click', () => undo(applyText));
  $('redo').addEventListener('click', () => redo(applyText));
  document.addEventListener('keydown', (e) => {
    if (!(e.ctrlKey || e.metaKey) || e.altKey) return;
    const key = e.key.toLowerCase();
    if (key !== 'z' && key !== 'y') return;
    // A text box keeps its own undo.
    if (e.target.closest && e.target.closest('input[type=text], textarea')) return;
    e.preventDefault();
    if (key === 'y' || e.shiftKey) redo(applyText);
    else undo(applyText);
  });
}

async function start() {
  state.meta = await fetchMeta();
  fillAddTypes();
  const sizes = [...new Set([256, 512, 1024, state.view.size])].filter((s) => s >= 1 && s <= state.meta.max_preview_side).sort((a, b) => a - b);
  $('size').replaceChildren(...sizes.map((s) => el('option', { value: s, selected: s === state.view.size }, `${s}x${s}`)));
  $('flow-mode').replaceChildren(...state.meta.flow_modes.map((m) => el('option', { value: m }, m)));
  $('png-ramp').append(...state.meta.ramps.map((r) => el('option', { value: r }, r)));
  const presets = await fetchPresets();
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
  $('export-format').addEventListener('change', updateBake);
  $('png-ramp').addEventListener('change', updateBake);
  $('download-file').addEventListener('click', downloadFile);
  $('copy-wgsl').addEventListener('click', copyWgsl);
  $('measure-costs').addEventListener('click', measureCosts);
  $('run-parity').addEventListener('click', runParity);
  setupCanvas();
  setupMesh();
  setupHistoryKeys();
  setView([0, 0], [1, 1]);
  $('z').value = '0';
  setupPanZoom();
  setupTime();
  setMode(state.view.mode);
  const answer = await fetchFile();
  state.file.version = answer.version;
  state.file.loadedCanonical = canonical(answer.text);
  loadText(answer.text, { reason: state.file.path && !answer.exists ? `${state.file.path} does not exist yet: Save creates it.` : undefined });
  resetHistory($('json').value);
  updateDirty();
  fit();
  if (state.file.path) setTimeout(pollFile, 1000);
}

// For the browser tests: no render asked for, queued or in flight.
window.noisegraphIdle = () => !!state.meta && !renderIsQueued() && state.inFlight === 0 && !state.pending;
// Every thumbnail current; the time from a change to its last thumbnail; costs answered.
window.noisegraphThumbnailsIdle = () => !!state.meta && thumbnailsIdle();
window.noisegraphThumbnailRefreshMs = lastThumbnailRefreshMs;
window.noisegraphCostsIdle = () => !costsBusy();

start().catch((e) => {
  document.body.prepend(el('div', { class: 'banner' }, `The page could not start: ${e.message}`));
});

