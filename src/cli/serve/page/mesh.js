// The 3D view: the viewed node as a lit heightmap mesh in WebGL2. Heights are the values
// mapped by the shown levels and the height scale; normals come from the engine's exact
// gradient (the preview's gradient vectors, as the flow view's), or, for a node the engine
// cannot differentiate, from central differences (the page says which). Drag orbits the
// camera, the wheel zooms; "3x3" draws the mesh nine times edge to edge, for seams.
import { $ } from './dom.js';
import { state } from './state.js';

const GRID = 256; // vertices per side at most
const mesh = { gl: null, program: null, vao: null, count: 0, yaw: 0.7, pitch: 0.65, distance: 2.2, built: null, draws: 0 };

const VERTEX = `#version 300 es
in vec3 position;
in vec3 normal;
uniform mat4 mvp;
uniform vec2 tile;
out vec3 vNormal;
out float vHeight;
void main() {
  vNormal = normal;
  vHeight = position.y;
  gl_Position = mvp * vec4(position + vec3(tile.x, 0.0, tile.y), 1.0);
}`;
const FRAGMENT = `#version 300 es
precision highp float;
in vec3 vNormal;
in float vHeight;
uniform vec3 light;
uniform float scale;
out vec4 color;
void main() {
  vec3 n = normalize(vNormal);
  float diffuse = max(dot(n, normalize(light)), 0.0);
  float t = scale > 0.0 ? clamp(vHeight / scale + 0.5, 0.0, 1.0) : 0.5;
  vec3 base = mix(vec3(0.22, 0.32, 0.42), vec3(0.86, 0.84, 0.78), t);
  color = vec4(base * (0.25 + 0.75 * diffuse), 1.0);
}`;

function compile(gl, type, source) {
  const s = gl.createShader(type);
  gl.shaderSource(s, source);
  gl.compileShader(s);
  if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(s));
  return s;
}

function context() {
  if (mesh.gl) return mesh.gl;
  const gl = $('mesh').getContext('webgl2', { antialias: true, preserveDrawingBuffer: true });
  if (!gl) return null;
  const p = gl.createProgram();
  gl.attachShader(p, compile(gl, gl.VERTEX_SHADER, VERTEX));
  gl.attachShader(p, compile(gl, gl.FRAGMENT_SHADER, FRAGMENT));
  gl.linkProgram(p);
  if (!gl.getProgramParameter(p, gl.LINK_STATUS)) throw new Error(gl.getProgramInfoLog(p));
  mesh.gl = gl;
  mesh.program = p;
  return gl;
}

export function meshAvailable() {
  return !!(mesh.gl || document.createElement('canvas').getContext('webgl2'));
}

const heightScale = () => {
  const v = Number($('height-scale').value);
  return Number.isFinite(v) ? v : 0.3;
};

// Builds the mesh of the shown field: positions on [-0.5, 0.5]^2 (x right, z down the image),
// height = scale x (the value mapped to 0..1 by the levels - 0.5), normal (-dh/dx, 1, -dh/dz).
export function buildMesh() {
  const gl = context();
  const f = state.field;
  if (!gl || !f) return;
  const { header, data, vectors } = f;
  const w = header.width;
  const h = header.height;
  const [lo, hi] = header.range;
  const span = hi - lo > 0 ? hi - lo : 1;
  const s = heightScale();
  const exact = !!(header.flow && header.flow.mode === 'gradient' && vectors);
  const nx = Math.min(GRID, w);
  const nz = Math.min(GRID, h);
  const positions = new Float32Array(nx * nz * 3);
  const normals = new Float32Array(nx * nz * 3);
  const at = (x, y) => data[Math.min(h - 1, Math.max(0, y)) * w + Math.min(w - 1, Math.max(0, x))];
  for (let j = 0; j < nz; j++) {
    const py = Math.round((j * (h - 1)) / Math.max(1, nz - 1));
    for (let i = 0; i < nx; i++) {
      const px = Math.round((i * (w - 1)) / Math.max(1, nx - 1));
      const k = j * nx + i;
      const v = data[py * w + px];
      positions[3 * k] = px / w - 0.5;
      positions[3 * k + 1] = s * ((v - lo) / span - 0.5);
      positions[3 * k + 2] = py / h - 0.5;
      // dv per mesh unit: the view's extent spans one mesh unit.
      let dx;
      let dz;
      if (exact) {
        dx = vectors[2 * (py * w + px)] * header.extent[0];
        dz = vectors[2 * (py * w + px) + 1] * header.extent[1];
      } else {
        dx = ((at(px + 1, py) - at(px - 1, py)) / 2) * w;
        dz = ((at(px, py + 1) - at(px, py - 1)) / 2) * h;
      }
      const gx = (s * dx) / span;
      const gz = (s * dz) / span;
      const len = Math.hypot(gx, 1, gz) || 1;
      normals[3 * k] = -gx / len;
      normals[3 * k + 1] = 1 / len;
      normals[3 * k + 2] = -gz / len;
    }
  }
  const indices = new Uint32Array((nx - 1) * (nz - 1) * 6);
  let n = 0;
  for (let j = 0; j + 1 < nz; j++) {
    for (let i = 0; i + 1 < nx; i++) {
      const a = j * nx + i;
      indices.set([a, a + nx, a + 1, a + 1, a + nx, a + nx + 1], n);
      n += 6;
    }
  }
  const p = mesh.program;
  if (mesh.vao) gl.deleteVertexArray(mesh.vao);
  mesh.vao = gl.createVertexArray();
  gl.bindVertexArray(mesh.vao);
  const attribute = (name, values) => {
    const b = gl.createBuffer();
    gl.bindBuffer(gl.ARRAY_BUFFER, b);
    gl.bufferData(gl.ARRAY_BUFFER, values, gl.STATIC_DRAW);
    const loc = gl.getAttribLocation(p, name);
    gl.enableVertexAttribArray(loc);
    gl.vertexAttribPointer(loc, 3, gl.FLOAT, false, 0, 0);
  };
  attribute('position', positions);
  attribute('normal', normals);
  const ib = gl.createBuffer();
  gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, ib);
  gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, indices, gl.STATIC_DRAW);
  gl.bindVertexArray(null);
  mesh.count = indices.length;
  mesh.built = { exact, node: header.node };
  $('mesh-info').textContent = `${header.node}: ${nx}x${nz} vertices; normals from ${exact ? "the engine's exact gradient" : 'central differences (the engine cannot differentiate this node: see the flow view)'}`;
  $('preview').dataset.normals = exact ? 'exact' : 'differences';
  drawMesh();
}

function perspective(fovy, aspect, near, far) {
  const f = 1 / Math.tan(fovy / 2);
  return [f / aspect, 0, 0, 0, 0, f, 0, 0, 0, 0, (far + near) / (near - far), -1, 0, 0, (2 * far * near) / (near - far), 0];
}
function lookAt(eye, target) {
  const sub = (a, b) => a.map((v, i) => v - b[i]);
  const norm = (a) => { const l = Math.hypot(...a) || 1; return a.map((v) => v / l); };
  const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
  const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  const z = norm(sub(eye, target));
  const x = norm(cross([0, 1, 0], z));
  const y = cross(z, x);
  return [x[0], y[0], z[0], 0, x[1], y[1], z[1], 0, x[2], y[2], z[2], 0, -dot(x, eye), -dot(y, eye), -dot(z, eye), 1];
}
function multiply(a, b) {
  const out = new Array(16).fill(0);
  for (let c = 0; c < 4; c++) for (let r = 0; r < 4; r++) for (let k = 0; k < 4; k++) out[c * 4 + r] += a[k * 4 + r] * b[c * 4 + k];
  return out;
}

export function drawMesh() {
  const gl = mesh.gl;
  if (!gl || !mesh.vao) return;
  const canvas = $('mesh');
  const tiles = $('mesh-tiled').checked ? 3 : 1;
  const size = Math.round(canvas.clientWidth * (window.devicePixelRatio || 1)) || 512;
  if (canvas.width !== size) {
    canvas.width = size;
    canvas.height = size;
  }
  gl.viewport(0, 0, canvas.width, canvas.height);
  gl.clearColor(0.13, 0.13, 0.14, 1);
  gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
  gl.enable(gl.DEPTH_TEST);
  gl.useProgram(mesh.program);
  const d = mesh.distance * (tiles === 3 ? 2.6 : 1);
  const eye = [d * Math.cos(mesh.pitch) * Math.sin(mesh.yaw), d * Math.sin(mesh.pitch), d * Math.cos(mesh.pitch) * Math.cos(mesh.yaw)];
  const mvp = multiply(perspective(0.8, 1, 0.05, 50), lookAt(eye, [0, 0, 0]));
  gl.uniformMatrix4fv(gl.getUniformLocation(mesh.program, 'mvp'), false, mvp);
  gl.uniform3f(gl.getUniformLocation(mesh.program, 'light'), 0.5, 0.8, 0.3);
  gl.uniform1f(gl.getUniformLocation(mesh.program, 'scale'), heightScale());
  gl.bindVertexArray(mesh.vao);
  const tileLoc = gl.getUniformLocation(mesh.program, 'tile');
  const half = (tiles - 1) / 2;
  for (let ty = 0; ty < tiles; ty++) {
    for (let tx = 0; tx < tiles; tx++) {
      gl.uniform2f(tileLoc, tx - half, ty - half);
      gl.drawElements(gl.TRIANGLES, mesh.count, gl.UNSIGNED_INT, 0);
    }
  }
  gl.bindVertexArray(null);
  mesh.draws++;
  canvas.dataset.draws = String(mesh.draws);
  canvas.dataset.yaw = mesh.yaw.toFixed(3);
}

export function setupMesh() {
  const canvas = $('mesh');
  let drag = null;
  canvas.addEventListener('pointerdown', (e) => {
    if (e.button !== 0) return;
    drag = { x: e.clientX, y: e.clientY, yaw: mesh.yaw, pitch: mesh.pitch };
    canvas.setPointerCapture(e.pointerId);
    e.stopPropagation();
  });
  canvas.addEventListener('pointermove', (e) => {
    if (!drag) return;
    mesh.yaw = drag.yaw - (e.clientX - drag.x) * 0.01;
    mesh.pitch = Math.min(1.5, Math.max(0.05, drag.pitch + (e.clientY - drag.y) * 0.01));
    drawMesh();
  });
  const end = () => { drag = null; };
  canvas.addEventListener('pointerup', end);
  canvas.addEventListener('pointercancel', end);
  canvas.addEventListener('wheel', (e) => {
    e.preventDefault();
    e.stopPropagation();
    mesh.distance = Math.min(8, Math.max(0.6, mesh.distance * Math.exp(e.deltaY * 0.0015)));
    drawMesh();
  }, { passive: false });
  canvas.addEventListener('keydown', (e) => {
    const turn = { ArrowLeft: [-0.1, 0], ArrowRight: [0.1, 0], ArrowUp: [0, 0.1], ArrowDown: [0, -0.1] }[e.key];
    if (!turn) return;
    e.preventDefault();
    mesh.yaw += turn[0];
    mesh.pitch = Math.min(1.5, Math.max(0.05, mesh.pitch + turn[1]));
    drawMesh();
  });
  $('height-scale').addEventListener('input', buildMesh);
  $('mesh-tiled').addEventListener('change', drawMesh);
}
