// The flow view: particles moving along the field's heading, gradient or curl.
import { $ } from './dom.js';
import { updateBake } from './file.js';
import { state } from './state.js';
import { drawPreview, gray } from './view.js';

const flow = { particles: [], running: false };

export function resetParticles(clear) {
  const count = Math.max(1, Math.min(20000, Math.round(Number($('flow-count').value) || 1500)));
  const canvas = $('particles');
  if (state.field) {
    canvas.width = state.field.header.width;
    canvas.height = state.field.header.height;
  }
  if (clear || flow.particles.length !== count) {
    flow.particles = Array.from({ length: count }, () => spawn(canvas));
    canvas.getContext('2d').clearRect(0, 0, canvas.width, canvas.height);
  }
}

function spawn(canvas) {
  return { x: Math.random() * canvas.width, y: Math.random() * canvas.height, age: Math.floor(Math.random() * 200) };
}

// The field (or one component of its flow vectors) at a fractional pixel position, bilinear.
function sample(x, y, values = state.field.data, stride = 1, component = 0) {
  const { header } = state.field;
  const data = { at: (i) => values[i * stride + component] };
  const w = header.width;
  const h = header.height;
  const x0 = Math.max(0, Math.min(w - 1, Math.floor(x)));
  const y0 = Math.max(0, Math.min(h - 1, Math.floor(y)));
  const x1 = Math.min(w - 1, x0 + 1);
  const y1 = Math.min(h - 1, y0 + 1);
  const fx = Math.min(1, Math.max(0, x - x0));
  const fy = Math.min(1, Math.max(0, y - y0));
  const top = data.at(y0 * w + x0) * (1 - fx) + data.at(y0 * w + x1) * fx;
  const bottom = data.at(y1 * w + x0) * (1 - fx) + data.at(y1 * w + x1) * fx;
  return top * (1 - fy) + bottom * fy;
}

// The direction a particle moves in. `heading`: the value, mapped to 0..1 by the shown range,
// turned into an angle. `gradient` and `curl`: the server's vectors (view units) turned into
// pixels and set to unit length; where they vanish (a peak, a pit), the particle rests.
function velocity(x, y, turns) {
  const { header, vectors } = state.field;
  if (header.flow && vectors && header.flow.mode === $('flow-mode').value) {
    const vx = (sample(x, y, vectors, 2, 0) * header.width) / header.extent[0];
    const vy = (sample(x, y, vectors, 2, 1) * header.height) / header.extent[1];
    const length = Math.hypot(vx, vy);
    return length > 0 && Number.isFinite(length) ? [vx / length, vy / length] : [0, 0];
  }
  const [lo, hi] = header.range;
  const t = gray(sample(x, y), lo, hi) / 255;
  const angle = t * turns * 2 * Math.PI;
  return [Math.cos(angle), Math.sin(angle)];
}

function stepFlow() {
  if (state.view.mode !== 'flow') {
    flow.running = false;
    return;
  }
  const canvas = $('particles');
  const ctx = canvas.getContext('2d');
  if (state.field) {
    const turns = Number($('flow-turns').value) || 2;
    const speed = Number($('flow-speed').value) || 1;
    ctx.globalCompositeOperation = 'destination-out';
    ctx.fillStyle = 'rgba(0,0,0,0.04)';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.globalCompositeOperation = 'source-over';
    ctx.strokeStyle = 'rgba(255,140,30,0.8)';
    ctx.lineWidth = Math.max(1, canvas.width / 512);
    ctx.beginPath();
    for (const p of flow.particles) {
      const [vx, vy] = velocity(p.x, p.y, turns);
      const nx = p.x + vx * speed * (canvas.width / 512);
      const ny = p.y + vy * speed * (canvas.width / 512);
      ctx.moveTo(p.x, p.y);
      ctx.lineTo(nx, ny);
      p.x = nx;
      p.y = ny;
      p.age++;
      if (p.age > 240 || nx < 0 || ny < 0 || nx >= canvas.width || ny >= canvas.height) Object.assign(p, spawn(canvas), { age: 0 });
    }
    ctx.stroke();
  }
  requestAnimationFrame(stepFlow);
}

export function setMode(mode) {
  state.view.mode = mode;
  $('mode').value = mode;
  $('particles').hidden = mode !== 'flow';
  $('flow-controls').hidden = mode !== 'flow';
  $('mesh').hidden = mode !== '3d';
  $('image').hidden = mode === '3d';
  $('mesh-controls').hidden = mode !== '3d';
  drawPreview();
  if (mode === 'flow') {
    resetParticles(true);
    if (!flow.running) {
      flow.running = true;
      requestAnimationFrame(stepFlow);
    }
  }
  updateBake();
}
