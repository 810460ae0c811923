// The bake command line, Save, reloading the file when it changes on disk, downloads.
import { fetchFile, fetchFileVersion, postExport, postPng, postSave, postWgsl } from './api.js';
import { resetHistory } from './history.js';
import { $, el } from './dom.js';
import { showErrors } from './errors.js';
import { loadText } from './graph.js';
import { state } from './state.js';
import { viewRequest } from './view.js';

function shellQuote(s) {
  return /^[A-Za-z0-9_.\/,=:+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

export function updateBake() {
  if (!state.meta) return;
  const r = viewRequest();
  const graphPath = state.file.path ?? 'graph.json';
  const format = $('export-format') ? $('export-format').value : 'png';
  const ext = format === 'png16' ? 'png' : format;
  const parts = ['noisegraph', 'bake', shellQuote(graphPath), '-o', shellQuote(`${state.viewed ?? 'out'}.${ext}`), '--size', `${r.size[0]}x${r.size[1]}`];
  if (format === 'png16') parts.push('--format', 'png16');
  if (format === 'png' && pngRamp()) parts.push('--ramp', shellQuote(pngRamp()));
  if (state.graph && state.viewed && state.viewed !== state.graph.output) parts.push('--node', shellQuote(state.viewed));
  if (r.origin.some((v) => Number(v) !== 0)) parts.push('--origin', shellQuote(r.origin.join(',')));
  if (r.extent.some((v) => Number(v) !== 1)) parts.push('--extent', shellQuote(r.extent.join(',')));
  if (r.normalize === 'minmax') parts.push('--normalize', 'minmax');
  $('bake').value = parts.join(' ');
  let noteText = '';
  if (!state.file.path) noteText = 'Download the JSON as graph.json first (serve was started without a graph file).';
  else if (isDirty()) noteText = `Save first: the shown graph differs from ${state.file.path}.`;
  if (state.view.mode === 'tiled') noteText += ' (The tiled view repeats one image; bake writes it once.)';
  if (state.view.mode === '3d') noteText += ' (bake writes the heights; `--normal-map` writes normals.)';
  $('bake-note').textContent = noteText.trim();
}

export function canonical(text) {
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

export function updateDirty() {
  const status = $('file-status');
  status.classList.toggle('dirty', !!state.file.path && isDirty());
}

export function note(text, actions = []) {
  $('banner-text').textContent = text;
  $('banner-actions').replaceChildren(...actions.map(([label, fn]) => el('button', { type: 'button', onclick: () => { $('banner').hidden = true; fn(); } }, label)));
  $('banner').hidden = false;
}

async function loadFile(reason) {
  const answer = await fetchFile();
  state.file.version = answer.version;
  state.file.loadedCanonical = canonical(answer.text);
  loadText(answer.text, { reason });
  resetHistory($('json').value);
  updateDirty();
}

export async function save(force = false) {
  const text = $('json').value;
  const response = await postSave({ text, base_version: state.file.version, force });
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
export async function pollFile() {
  try {
    const { version } = await fetchFileVersion();
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

export function download(name, blob) {
  const a = el('a', { href: URL.createObjectURL(blob), download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}

// The colour ramp chosen for 8-bit PNGs (`bake --ramp`), or undefined for grey levels.
const pngRamp = () => ($('png-ramp') && $('png-ramp').value) || undefined;

export async function downloadPng() {
  const response = await postPng({ ...viewRequest(), ramp: pngRamp() });
  if (response.status !== 200) {
    const answer = await response.json().catch(() => ({}));
    showErrors(answer.errors || [{ node: null, field: 'render', message: answer.error || `HTTP ${response.status}` }]);
    return;
  }
  download(`${state.viewed ?? 'preview'}.png`, await response.blob());
}

// The view in the chosen format (`bake --format`): the file `bake` writes for it.
export async function downloadFile() {
  const format = $('export-format').value;
  const ramp = format === 'png' ? pngRamp() : undefined;
  const response = await postExport({ ...viewRequest(), flow: undefined, format, ramp });
  if (response.status !== 200) {
    const answer = await response.json().catch(() => ({}));
    showErrors(answer.errors || [{ node: null, field: 'render', message: answer.error || `HTTP ${response.status}` }]);
    return;
  }
  const ext = format === 'png16' ? 'png' : format;
  download(`${state.viewed ?? 'preview'}.${ext}`, await response.blob());
}

// The viewed node as a WGSL module (`noisegraph wgsl --node ID`): shown and copied.
export async function copyWgsl() {
  const response = await postWgsl({ graph: state.graph, node: state.viewed ?? undefined });
  const answer = await response.json().catch(() => ({}));
  const box = $('wgsl-source');
  if (response.status !== 200) {
    box.textContent = (answer.errors || []).map((e) => `${e.node ? `node '${e.node}', ` : ''}${e.field}: ${e.message}`).join('\n') || answer.error || `HTTP ${response.status}`;
    $('wgsl-details').open = true;
    return;
  }
  box.textContent = answer.source;
  box.dataset.node = answer.node;
  $('wgsl-note').textContent = `fn ${answer.name}(p), ${answer.name}_precise(cell, local)${answer.no_gradient ? '' : `, ${answer.name}_grad(p)`} for node '${answer.node}'${answer.note ? `; ${answer.note}` : ''}`;
  $('wgsl-details').open = true;
  try {
    await navigator.clipboard.writeText(answer.source);
    $('wgsl-note').textContent += ' (copied)';
  } catch {
    // No clipboard (an insecure origin or a denied permission): the text is shown to copy.
  }
}
