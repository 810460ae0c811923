// The engine's problems, each shown at its field.
import { $, el } from './dom.js';
import { markStale } from './view.js';
import { showNodeIssues } from './canvas.js';

function rowFor(node, field) {
  const sel = node === null
    ? `.row[data-field="${CSS.escape(field)}"]:not([data-node])`
    : `.row[data-node="${CSS.escape(node)}"][data-field="${CSS.escape(field)}"]`;
  return document.querySelector(sel);
}

export function showFieldError(node, field, message) {
  const r = rowFor(node, field);
  if (r) {
    r.classList.add('invalid');
    const err = r.querySelector('.err');
    err.textContent = err.textContent ? `${err.textContent}; ${message}` : message;
    return true;
  }
  const box = node === null ? $('graph-errors') : document.querySelector(`[data-node-errors="${CSS.escape(node)}"]`);
  if (box) {
    box.append(el('div', {}, `${field}: ${message}`));
    return true;
  }
  return false;
}

export function clearFieldError(field) {
  const r = rowFor(null, field);
  if (r) {
    r.classList.remove('invalid');
    r.querySelector('.err').textContent = '';
  }
}

export function clearErrors() {
  for (const r of document.querySelectorAll('.row.invalid')) {
    if (r.dataset.field === 'json' && !r.dataset.node) continue; // the text's own syntax error
    r.classList.remove('invalid');
    r.querySelector('.err').textContent = '';
  }
  for (const b of document.querySelectorAll('.errors')) b.replaceChildren();
  $('preview-error').hidden = true;
  $('preview-error').textContent = '';
  showNodeIssues([]);
}

// The engine's problems, each at its field; the last good image stays, marked stale.
export function showErrors(issues) {
  clearErrors();
  const lines = [];
  for (const i of issues) {
    showFieldError(i.node ?? null, i.field, i.message);
    lines.push(i.node ? `node '${i.node}', ${i.field}: ${i.message}` : `${i.field}: ${i.message}`);
  }
  showNodeIssues(issues);
  const box = $('preview-error');
  box.textContent = `${issues.length} problem${issues.length === 1 ? '' : 's'} (marked at the fields):\n${lines.join('\n')}`;
  box.hidden = false;
  markStale(true);
  $('preview').dataset.state = 'error';
}
