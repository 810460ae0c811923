// Starts `noisegraph serve` (the binary in NOISEGRAPH_BIN, as tests/browser.rs passes it) on a
// free port and launches Debian's Chromium headless through playwright-core.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

export const CHROMIUM = process.env.NOISEGRAPH_CHROMIUM || '/usr/bin/chromium';

// A small graph that renders fast in a debug build: Perlin noise under a 3-octave fBm.
export const GRAPH = {
  seed: 5,
  output: 'terrain',
  nodes: [
    { id: 'base', type: 'perlin', frequency: 4 },
    { id: 'terrain', type: 'fbm', source: 'base', octaves: 3 },
  ],
};

// A folder holding `graph.json` (GRAPH, or `graph` when given).
export function graphFolder(graph = GRAPH) {
  const dir = mkdtempSync(join(tmpdir(), 'noisegraph-e2e-'));
  const file = join(dir, 'graph.json');
  writeFileSync(file, JSON.stringify(graph, null, 2) + '\n');
  return { dir, file };
}

// `noisegraph serve ARGS --port 0`; resolves with its URL once it prints it.
export function startServer(args) {
  const bin = process.env.NOISEGRAPH_BIN;
  if (!bin) throw new Error('NOISEGRAPH_BIN is not set: run these tests through `cargo test --test browser`');
  const child = spawn(bin, ['serve', ...args, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/serving (http:\/\/\S+)/);
      if (m) resolve({ url: m[1], child, stderr: () => stderr });
    });
    child.on('exit', (code) => reject(new Error(`noisegraph serve exited with ${code}: ${stderr}`)));
  });
}

export async function launch() {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

// Waits until the page has no render asked for, queued or in flight.
export async function idle(page) {
  await page.waitForFunction(() => window.noisegraphIdle && window.noisegraphIdle());
}

// Opens the page and waits for its first render.
export async function open(browser, url, query = '?size=128') {
  const page = await browser.newPage({ viewport: { width: 1500, height: 1000 } });
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.problems = problems;
  await page.goto(url + query);
  await page.waitForFunction(() => document.getElementById('preview').dataset.generation !== '0');
  await idle(page);
  return page;
}

// The preview canvas's grey levels (its red channel: the image is grey), one character per
// pixel (a string crosses from the browser much faster than an array).
export async function pixels(page) {
  return page.evaluate(() => {
    const c = document.getElementById('image');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const out = new Array(d.length / 4);
    for (let i = 0; i < out.length; i++) out[i] = String.fromCharCode(d[4 * i]);
    return out.join('');
  });
}

// How many pixels differ between two results of `pixels`.
export function differing(a, b) {
  if (a.length !== b.length) return Infinity;
  let n = 0;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) n++;
  return n;
}

// How many grey levels occur.
export function levels(p) {
  return new Set(p).size;
}
