// Undo and redo: the graph's JSON text after each change (node positions included). Changes
// in quick succession from one control (a slider drag, typing) make one step.
import { $ } from './dom.js';

const history = { past: [], current: null, future: [], lastKey: null, lastTime: 0, applying: false };
const COALESCE_MS = 600;

// Starts afresh from `text` (a file loaded from disk).
export function resetHistory(text) {
  Object.assign(history, { past: [], current: text, future: [], lastKey: null, lastTime: 0 });
  updateButtons();
}

// Records the JSON text now shown; `key` names the control that changed it (the same key
// within COALESCE_MS folds into the last step).
export function remember(key = null) {
  if (history.applying) return;
  const text = $('json').value;
  if (history.current === null) {
    history.current = text;
    return;
  }
  if (text === history.current) return;
  const now = performance.now();
  const fold = key !== null && key === history.lastKey && now - history.lastTime < COALESCE_MS && history.past.length > 0;
  if (!fold) history.past.push(history.current);
  history.current = text;
  history.future = [];
  history.lastKey = key;
  history.lastTime = now;
  updateButtons();
}

function step(from, to, apply) {
  if (from.length === 0) return false;
  to.push(history.current);
  history.current = from.pop();
  history.lastKey = null;
  history.applying = true;
  try {
    apply(history.current);
  } finally {
    history.applying = false;
  }
  updateButtons();
  return true;
}

export const undo = (apply) => step(history.past, history.future, apply);
export const redo = (apply) => step(history.future, history.past, apply);
export const canUndo = () => history.past.length > 0;
export const canRedo = () => history.future.length > 0;

function updateButtons() {
  const u = $('undo');
  const r = $('redo');
  if (u) u.disabled = !canUndo();
  if (r) r.disabled = !canRedo();
}
