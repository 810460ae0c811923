// The node editor of `noisegraph serve` in Chromium: wires, undo and redo, thumbnails that
// follow only their upstream, cost and parity per node, the 3D mesh view, errors at their
// node, exports, and the budgets (thumbnails of ten nodes, the 512x512 preview).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { graphFolder, startServer, launch, open, idle, pixels, differing } from './server.mjs';

let browser;
const servers = [];

before(async () => {
  browser = await launch();
});

after(async () => {
  await browser?.close();
  for (const s of servers) s.child.kill();
});

async function serve(args) {
  const server = await startServer(args);
  servers.push(server);
  return server;
}

// Four nodes: two chains meeting in `sum`.
const GRAPH = {
  seed: 5,
  output: 'sum',
  nodes: [
    { id: 'base', type: 'perlin', frequency: 4 },
    { id: 'terrain', type: 'fbm', source: 'base', octaves: 3 },
    { id: 'cells', type: 'cellular', frequency: 6 },
    { id: 'sum', type: 'add', inputs: ['terrain', 'cells'] },
  ],
};

const json = async (page) => JSON.parse(await page.locator('#json').inputValue());
const thumbsIdle = (page) => page.waitForFunction(() => window.noisegraphThumbnailsIdle());
const settled = async (page) => {
  await idle(page);
  await thumbsIdle(page);
};

async function centre(page, selector) {
  const b = await page.locator(selector).boundingBox();
  return [b.x + b.width / 2, b.y + b.height / 2];
}

async function drag(page, from, to) {
  await page.mouse.move(...from);
  await page.mouse.down();
  await page.mouse.move((from[0] + to[0]) / 2, (from[1] + to[1]) / 2, { steps: 3 });
  await page.mouse.move(...to, { steps: 3 });
  await page.mouse.up();
}

// A point of the canvas far from every box.
async function emptySpot(page) {
  const b = await page.locator('#canvas').boundingBox();
  return [b.x + b.width - 15, b.y + b.height - 15];
}

// The thumbnail's pixels (grey levels as a string) and how often it was drawn.
async function thumbnail(page, id) {
  return page.evaluate((id) => {
    const c = document.querySelector(`.gnode[data-id="${id}"] canvas.thumb`);
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let s = '';
    for (let i = 0; i < d.length; i += 4) s += String.fromCharCode(d[i]);
    return { pixels: s, count: Number(c.dataset.count) };
  }, id);
}

const outPort = (id) => `.port.out[data-node="${id}"] .dot`;
const inPort = (id, input, index = 0) => `.port.in[data-node="${id}"][data-input="${input}"][data-index="${index}"] .dot`;

test('a box per node; wires connect and disconnect; the preview and the JSON follow; undo and redo', async () => {
  const { file } = graphFolder(GRAPH);
  const { url } = await serve([file]);
  const page = await open(browser, url);
  await thumbsIdle(page);
  assert.deepEqual(await page.locator('.gnode').evaluateAll((bs) => bs.map((b) => `${b.querySelector('.gid').textContent}:${b.querySelector('.gtype').textContent}`)),
    ['base:perlin', 'terrain:fbm', 'cells:cellular', 'sum:add']);
  assert.equal(await page.locator('path.wire:not(.temp)').count(), 3);
  // Ports are labelled buttons (reachable by Tab).
  assert.equal(await page.locator('.port.in[data-node="sum"]').evaluateAll((ps) => ps.map((p) => p.tagName + ' ' + p.getAttribute('aria-label')).join('; ')),
    'BUTTON sum input inputs[0] (from terrain); BUTTON sum input inputs[1] (from cells)');
  const first = await pixels(page);

  // Drag cells' output onto sum's first input: sum = cells + cells.
  await drag(page, await centre(page, outPort('cells')), await centre(page, inPort('sum', 'inputs', 0)));
  await settled(page);
  assert.deepEqual((await json(page)).nodes[3].inputs, ['cells', 'cells']);
  const connected = await pixels(page);
  assert.ok(differing(first, connected) > 1000, 'the preview follows the new wire');
  assert.equal(await page.locator('#preview').getAttribute('data-state'), 'ok');

  // Drag the wire off sum's second input: disconnected, and the engine's complaint is at sum.
  await drag(page, await centre(page, inPort('sum', 'inputs', 1)), await emptySpot(page));
  await settled(page);
  assert.deepEqual((await json(page)).nodes[3].inputs, ['cells', '']);
  assert.match(await page.locator('.gnode[data-id="sum"]').getAttribute('class'), /invalid/);
  assert.match(await page.locator('.gnode[data-id="sum"] .gerrors').textContent(), /inputs/);
  assert.equal(await page.locator('#preview').getAttribute('data-state'), 'error');

  // Undo twice: the wire comes back, then the first graph; redo once: cells + cells again.
  await page.locator('#canvas').focus();
  await page.keyboard.press('Control+z');
  await settled(page);
  assert.deepEqual((await json(page)).nodes[3].inputs, ['cells', 'cells']);
  assert.equal(differing(connected, await pixels(page)), 0);
  await page.keyboard.press('Control+z');
  await settled(page);
  assert.deepEqual((await json(page)).nodes[3].inputs, ['terrain', 'cells']);
  assert.equal(differing(first, await pixels(page)), 0, 'undo gives the first image back');
  await page.keyboard.press('Control+Shift+z');
  await settled(page);
  assert.deepEqual((await json(page)).nodes[3].inputs, ['cells', 'cells']);
  assert.equal(differing(connected, await pixels(page)), 0);
  await page.locator('#undo').click();
  await settled(page);

  // By keyboard: Enter on terrain's output, then Enter on sum's second input.
  await page.locator('.port.out[data-node="terrain"]').focus();
  await page.keyboard.press('Enter');
  await page.locator('.port.in[data-node="sum"][data-index="1"]').focus();
  await page.keyboard.press('Enter');
  await settled(page);
  assert.deepEqual((await json(page)).nodes[3].inputs, ['terrain', 'terrain']);
  // Delete on a focused input port disconnects it.
  await page.locator('.port.in[data-node="sum"][data-index="1"]').focus();
  await page.keyboard.press('Delete');
  await settled(page);
  assert.deepEqual((await json(page)).nodes[3].inputs, ['terrain', '']);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('add from the menu by category, rename, move and multi-select (saved as layout), delete', async () => {
  const { file } = graphFolder(GRAPH);
  const { url } = await serve([file]);
  const page = await open(browser, url);
  await thumbsIdle(page);
  // The menu's groups are the schema's categories, in its order.
  await page.locator('#add-menu-button').click();
  assert.deepEqual(await page.locator('#add-menu .menu-group').evaluateAll((gs) => gs.map((g) => g.dataset.category)),
    ['family', 'fractal', 'warp', 'pointwise', 'mapping']);
  await page.locator('#add-menu .menu-group[data-category="family"] button[data-type="simplex"]').click();
  await settled(page);
  assert.equal(await page.locator('.gnode[data-id="simplex1"]').count(), 1);
  assert.equal(await page.locator('#preview').getAttribute('data-node'), 'simplex1');
  assert.equal((await json(page)).nodes.at(-1).type, 'simplex');

  // A mapping from its group: a transform of the viewed node, its controls from the schema
  // (rotate's slider turns the preview), then removed again with Delete.
  await page.locator('#add-menu-button').click();
  await page.locator('#add-menu .menu-group[data-category="mapping"] button[data-type="transform"]').click();
  await settled(page);
  const mapped = (await json(page)).nodes.at(-1);
  assert.deepEqual([mapped.type, mapped.source], ['transform', 'simplex1']);
  assert.equal(await page.locator('#preview').getAttribute('data-state'), 'ok');
  for (const field of ['translate', 'rotate', 'axis', 'angle', 'scale']) {
    assert.equal(await page.getByLabel(`transform1 ${field}`, { exact: true }).count(), 1, `a ${field} control`);
  }
  await page.getByLabel('transform1 rotate', { exact: true }).fill('30');
  await settled(page);
  assert.equal((await json(page)).nodes.at(-1).rotate, 30);
  assert.equal(await page.locator('#preview').getAttribute('data-state'), 'ok');
  await page.locator('.gnode[data-id="transform1"]').focus();
  await page.keyboard.press('Delete');
  await settled(page);
  assert.equal(await page.locator('.gnode[data-id="transform1"]').count(), 0);
  await page.locator('.gnode[data-id="simplex1"] .gtype').click();
  await settled(page);

  // Rename by double-clicking the title: references follow.
  await page.locator('.gnode[data-id="cells"] .ghead').dblclick();
  await page.locator('.grename').fill('voronoi');
  await page.locator('.grename').press('Enter');
  await settled(page);
  const renamed = await json(page);
  assert.deepEqual(renamed.nodes[3].inputs, ['terrain', 'voronoi']);
  assert.equal(await page.locator('.gnode[data-id="voronoi"]').count(), 1);

  // Shift+click selects two boxes; dragging one title moves both; the layout is saved.
  const before = await page.locator('.gnode[data-id="base"]').boundingBox();
  const before2 = await page.locator('.gnode[data-id="terrain"]').boundingBox();
  await page.locator('.gnode[data-id="base"] .gtype').click();
  await page.keyboard.down('Shift');
  await page.locator('.gnode[data-id="terrain"] .gtype').click();
  await page.keyboard.up('Shift');
  assert.equal(await page.locator('.gnode.selected').count(), 2);
  const grab = await centre(page, '.gnode[data-id="base"] .gtype');
  await drag(page, grab, [grab[0] + 40, grab[1] + 60]);
  await settled(page);
  const moved = await page.locator('.gnode[data-id="base"]').boundingBox();
  const moved2 = await page.locator('.gnode[data-id="terrain"]').boundingBox();
  assert.ok(Math.abs(moved.x - before.x - 40) < 2 && Math.abs(moved.y - before.y - 60) < 2, `base moved by the drag (${moved.x - before.x}, ${moved.y - before.y})`);
  assert.ok(Math.abs(moved2.x - before2.x - 40) < 2 && Math.abs(moved2.y - before2.y - 60) < 2, 'terrain moved with it');
  const layout = (await json(page)).layout;
  assert.ok(Array.isArray(layout.base) && Array.isArray(layout.terrain), JSON.stringify(layout));
  // The engine ignores the layout: the graph still renders, and saves.
  assert.equal(await page.locator('#preview').getAttribute('data-state'), 'ok');
  await page.locator('#save').click();
  await page.waitForFunction(() => /Saved/.test(document.getElementById('banner-text').textContent));
  assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')).layout.base, layout.base);

  // Undo moves them back; Delete removes the selection.
  await page.locator('#canvas').focus();
  await page.keyboard.press('Control+z');
  await settled(page);
  assert.ok(Math.abs((await page.locator('.gnode[data-id="base"]').boundingBox()).x - before.x) < 2);
  await page.locator('.gnode[data-id="simplex1"]').focus();
  await page.keyboard.press('Delete');
  await settled(page);
  assert.equal(await page.locator('.gnode[data-id="simplex1"]').count(), 0);
  assert.ok(!(await json(page)).nodes.some((n) => n.id === 'simplex1'));

  // Pan and zoom: the wheel zooms about the pointer.
  const zoom = Number(await page.locator('#canvas').getAttribute('data-zoom'));
  await page.mouse.move(...(await emptySpot(page)));
  await page.mouse.wheel(0, -300);
  assert.ok(Number(await page.locator('#canvas').getAttribute('data-zoom')) > zoom);
  assert.ok(await page.locator('#shortcuts dt').count() >= 10, 'the shortcuts are listed');
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('a thumbnail changes when something upstream changes, and only then', async () => {
  const { file } = graphFolder(GRAPH);
  const { url } = await serve([file]);
  const page = await open(browser, url);
  await thumbsIdle(page);
  const ids = ['base', 'terrain', 'cells', 'sum'];
  const before = Object.fromEntries(await Promise.all(ids.map(async (id) => [id, await thumbnail(page, id)])));
  for (const id of ids) assert.ok(new Set(before[id].pixels).size > 20, `${id} has a thumbnail`);
  await page.locator('.row[data-node="base"][data-field="frequency"] input[type=text]').fill('9');
  await settled(page);
  const after = Object.fromEntries(await Promise.all(ids.map(async (id) => [id, await thumbnail(page, id)])));
  for (const id of ['base', 'terrain', 'sum']) {
    assert.ok(differing(before[id].pixels, after[id].pixels) > 500, `${id} is downstream of base: its thumbnail changed`);
    assert.equal(after[id].count, before[id].count + 1);
  }
  assert.equal(after.cells.count, before.cells.count, 'cells does not read base: not asked for again');
  assert.equal(differing(before.cells.pixels, after.cells.pixels), 0);
  // Moving a box is not a change of any node.
  const grab = await centre(page, '.gnode[data-id="cells"] .gtype');
  await drag(page, grab, [grab[0] + 30, grab[1] + 10]);
  await settled(page);
  for (const id of ids) assert.equal((await thumbnail(page, id)).count, after[id].count, `${id}: not redrawn for a move`);
  // A click on a thumbnail views its node.
  await page.locator('.gnode[data-id="cells"] canvas.thumb').click();
  await idle(page);
  assert.equal(await page.locator('#preview').getAttribute('data-node'), 'cells');
  await page.close();
});

test('own and total time per node; GPU vs CPU per node', async () => {
  const { file } = graphFolder(GRAPH);
  const { url } = await serve([file]);
  const page = await open(browser, url);
  await page.locator('#measure-costs').click();
  await page.waitForFunction(() => document.querySelectorAll('.gcost[data-total]').length === 4);
  for (const id of ['base', 'terrain', 'cells', 'sum']) {
    const line = page.locator(`.gnode[data-id="${id}"] .gcost`);
    assert.match(await line.textContent(), /own [\d.]+ · total [\d.]+ ms/);
    const own = Number(await line.getAttribute('data-own'));
    const total = Number(await line.getAttribute('data-total'));
    assert.ok(total > 0 && own >= 0 && own <= total, `${id}: own ${own}, total ${total}`);
  }
  assert.match(await page.locator('#costs-info').textContent(), /times on the CPU/);
  assert.equal(await page.locator('.gnode[data-id="base"] .gcost').getAttribute('data-own'), await page.locator('.gnode[data-id="base"] .gcost').getAttribute('data-total'), 'a family reads nothing: own = total');

  await page.locator('#run-parity').click();
  await page.waitForFunction(() => window.noisegraphCostsIdle() && !/measuring/.test(document.getElementById('costs-info').textContent));
  const info = await page.locator('#costs-info').textContent();
  if (/parity needs a GPU adapter/.test(info) && process.env.NOISEGRAPH_REQUIRE_GPU !== '1') {
    // No adapter on this machine: the page says so (CI sets NOISEGRAPH_REQUIRE_GPU=1).
  } else {
    assert.match(info, /GPU .* vs CPU for sum/);
    for (const id of ['terrain', 'cells', 'sum']) {
      assert.match(await page.locator(`.gnode[data-id="${id}"] .gcost`).textContent(), /GPU−CPU \d\.\de[-+]\d+/);
    }
    // A fractal evaluates its family inside its own stage: base is checked there.
    assert.match(await page.locator('.gnode[data-id="base"] .gcost').textContent(), /inside its reader/);
  }
  assert.deepEqual(page.problems, []);
  await page.close();
});

// The mesh canvas copied into a 2D canvas: its pixels (one string) and how many colours.
async function meshPixels(page) {
  return page.evaluate(() => {
    const src = document.getElementById('mesh');
    const c = document.createElement('canvas');
    c.width = 256;
    c.height = 256;
    const ctx = c.getContext('2d');
    ctx.drawImage(src, 0, 0, 256, 256);
    const d = ctx.getImageData(0, 0, 256, 256).data;
    let s = '';
    const colours = new Set();
    for (let i = 0; i < d.length; i += 4) {
      s += String.fromCharCode(d[i], d[i + 1], d[i + 2]);
      colours.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
    }
    return { s, colours: colours.size };
  });
}

test('the 3D view: a lit mesh with exact normals that turns when dragged; tiled 3x3', async () => {
  const { file } = graphFolder(GRAPH);
  const { url } = await serve([file]);
  const page = await open(browser, url);
  await page.locator('#viewed').selectOption('terrain');
  const asked = page.waitForRequest((r) => r.url().endsWith('/api/render') && r.postDataJSON().flow === 'gradient');
  await page.locator('#mode').selectOption('3d');
  await asked;
  await idle(page);
  await page.waitForFunction(() => Number(document.getElementById('mesh').dataset.draws) > 0);
  assert.ok(await page.locator('#mesh').isVisible());
  assert.equal(await page.locator('#preview').getAttribute('data-normals'), 'exact');
  assert.match(await page.locator('#mesh-info').textContent(), /exact gradient/);
  const first = await meshPixels(page);
  assert.ok(first.colours > 100, `the mesh is lit and shaded (${first.colours} colours)`);
  await page.locator('#mesh').screenshot({ path: `${process.env.NOISEGRAPH_SHOTS ?? '/tmp'}/noisegraph-mesh.png` });
  const c = await centre(page, '#mesh');
  await drag(page, c, [c[0] + 120, c[1] + 20]);
  const turned = await meshPixels(page);
  let changed = 0;
  for (let i = 0; i < first.s.length; i += 3) if (first.s.slice(i, i + 3) !== turned.s.slice(i, i + 3)) changed++;
  assert.ok(changed > 5000, `the view turned (${changed} pixels changed)`);
  await page.locator('#height-scale').fill('0.8');
  assert.ok(differing(turned.s, (await meshPixels(page)).s) > 1000, 'the height scale changes the mesh');
  await page.locator('#mesh-tiled').check();
  const tiled = await meshPixels(page);
  assert.ok(tiled.colours > 100);
  await page.locator('#mesh').screenshot({ path: `${process.env.NOISEGRAPH_SHOTS ?? '/tmp'}/noisegraph-mesh-tiled.png` });
  // A node the engine cannot differentiate (3D simplex, classic falloff): the page says so
  // and takes differences; its z slider still slices it.
  await page.locator('#json').fill(JSON.stringify({ seed: 1, output: 's', nodes: [{ id: 's', type: 'simplex', dims: 3, falloff: 'classic', frequency: 4 }] }));
  await idle(page);
  await page.waitForFunction(() => document.getElementById('preview').dataset.normals === 'differences');
  assert.match(await page.locator('#mesh-info').textContent(), /central differences/);
  assert.equal(await page.locator('#preview').getAttribute('data-state'), 'ok');
  assert.ok(await page.locator('#time-z').isVisible());
  const z0 = await meshPixels(page);
  await page.locator('#z-slider').fill('0.5');
  await idle(page);
  assert.ok(differing(z0.s, (await meshPixels(page)).s) > 1000, 'z moves the slice in 3D');
  assert.deepEqual(page.problems, []);
  await page.close();
});

test("the engine's errors at their node: a cycle, a source of the wrong kind, dims", async () => {
  const { file } = graphFolder(GRAPH);
  const { url } = await serve([file]);
  const page = await open(browser, url);
  await page.locator('#json').fill(JSON.stringify({
    seed: 1, output: 'f',
    nodes: [
      { id: 'a', type: 'abs', source: 'b' },
      { id: 'b', type: 'neg', source: 'a' },
      { id: 'p', type: 'perlin', frequency: 3 },
      { id: 'f', type: 'fbm', source: 'p' },
      { id: 'g', type: 'fbm', source: 'f' },
      { id: 'v', type: 'perlin', dims: 3, frequency: [1, 2] },
    ],
  }));
  await settled(page);
  for (const [id, words] of [['b', /cycle: a -> b -> a/], ['g', /source/], ['v', /frequency/]]) {
    const box = page.locator(`.gnode[data-id="${id}"]`);
    assert.match(await box.getAttribute('class'), /invalid/, id);
    assert.match(await box.locator('.gerrors').textContent(), words, `${id}: ${await box.locator('.gerrors').textContent()}`);
  }
  assert.match(await page.locator('.port.in[data-node="g"][data-input="source"]').getAttribute('class'), /invalid/);
  assert.doesNotMatch(await page.locator('.gnode[data-id="p"]').getAttribute('class'), /invalid/);
  // p's thumbnail renders: a problem elsewhere does not blank it.
  assert.ok(new Set((await thumbnail(page, 'p')).pixels).size > 20);
  await page.close();
});

test('export: every bake format, the bake command, the WGSL of the viewed node', async () => {
  const { file } = graphFolder(GRAPH);
  const { url } = await serve([file]);
  const page = await open(browser, url);
  await page.locator('#viewed').selectOption('terrain');
  await idle(page);
  const magic = { png: [0x89, 0x50, 0x4e, 0x47], png16: [0x89, 0x50, 0x4e, 0x47], exr: [0x76, 0x2f, 0x31, 0x01], npy: [0x93, 0x4e, 0x55, 0x4d] };
  for (const [format, bytes] of Object.entries(magic)) {
    await page.locator('#export-format').selectOption(format);
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#download-file').click()]);
    const data = readFileSync(await download.path());
    assert.deepEqual([...data.subarray(0, 4)], bytes, format);
    assert.equal(download.suggestedFilename(), `terrain.${format === 'png16' ? 'png' : format}`);
    if (format === 'png16') {
      assert.equal(data[24], 16, 'a 16-bit PNG');
      assert.match(await page.locator('#bake').inputValue(), / -o terrain.png --size 128x128 --format png16 --node terrain$/);
    }
    if (format === 'npy') assert.match(data.subarray(0, 128).toString('latin1'), /'shape': \(128, 128\)/);
  }
  assert.match(await page.locator('#bake').inputValue(), / -o terrain.npy /);
  // The headerless and TIFF formats: a little-endian TIFF, raw files of 2 and 4 bytes a pixel.
  for (const [format, check] of Object.entries({
    tif: (d) => assert.deepEqual([...d.subarray(0, 4)], [0x49, 0x49, 0x2a, 0x00], 'tif'),
    r16: (d) => assert.equal(d.length, 128 * 128 * 2, 'r16'),
    r32: (d) => assert.equal(d.length, 128 * 128 * 4, 'r32'),
  })) {
    await page.locator('#export-format').selectOption(format);
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#download-file').click()]);
    check(readFileSync(await download.path()));
    assert.equal(download.suggestedFilename(), `terrain.${format}`);
  }
  // A colour ramp: both PNG downloads are 8-bit RGB through it, and the bake line says --ramp.
  await page.locator('#export-format').selectOption('png');
  await page.locator('#png-ramp').selectOption('magma');
  assert.match(await page.locator('#bake').inputValue(), / -o terrain.png --size 128x128 --ramp magma --node terrain$/);
  const [ramped] = await Promise.all([page.waitForEvent('download'), page.locator('#download-file').click()]);
  const [header] = await Promise.all([page.waitForEvent('download'), page.locator('#download-png').click()]);
  for (const download of [ramped, header]) {
    const data = readFileSync(await download.path());
    assert.deepEqual([data[24], data[25]], [8, 2], '8-bit RGB');
  }
  assert.deepEqual(readFileSync(await ramped.path()), readFileSync(await header.path()), 'the same file');
  await page.locator('#png-ramp').selectOption('');
  const [grey] = await Promise.all([page.waitForEvent('download'), page.locator('#download-png').click()]);
  assert.equal(readFileSync(await grey.path())[25], 0, 'grey again');
  await page.locator('#copy-wgsl').click();
  await page.waitForFunction(() => document.getElementById('wgsl-source').textContent.length > 100);
  assert.match(await page.locator('#wgsl-source').textContent(), /fn terrain\(p: vec2<f32>\) -> f32/);
  assert.match(await page.locator('#wgsl-note').textContent(), /terrain_grad/);
  assert.deepEqual(page.problems, []);
  await page.close();
});

const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];

test('budgets: the thumbnails of a 10-node graph within 300 ms of a change; the 512x512 preview within 150 ms', async () => {
  const chain = [
    { id: 'base', type: 'perlin', frequency: 4 },
    { id: 'terrain', type: 'fbm', source: 'base', octaves: 4 },
    { id: 'cells', type: 'cellular', frequency: 5 },
    { id: 'ridges', type: 'ridged', source: 'base', octaves: 3 },
    { id: 'sum', type: 'add', inputs: ['terrain', 'cells'] },
    { id: 'low', type: 'min', inputs: ['sum', 'ridges'] },
    { id: 'folded', type: 'abs', source: 'low' },
    { id: 'scaled', type: 'scale_bias', source: 'folded', scale: 0.8, bias: 0.1 },
    { id: 'clamped', type: 'clamp', source: 'scaled', min: 0, max: 1 },
    { id: 'out', type: 'mix', inputs: ['clamped', 'terrain', 'cells'] },
  ];
  const { file } = graphFolder({ seed: 3, output: 'out', nodes: chain });
  const { url } = await serve([file]);
  const page = await open(browser, url, '?size=512');
  await thumbsIdle(page);
  assert.equal(await page.locator('.gnode').count(), 10);
  const thumbs = [];
  const previews = [];
  for (const f of ['5', '6', '7', '8', '9']) {
    await page.locator('.row[data-node="base"][data-field="frequency"] input[type=text]').fill(f);
    await settled(page);
    thumbs.push(await page.evaluate(() => window.noisegraphThumbnailRefreshMs()));
    previews.push(Number((await page.locator('#render-info').textContent()).match(/rendered in ([\d.]+) ms/)[1]));
  }
  const load = loadavg().map((l) => l.toFixed(2)).join(' ');
  console.log(`# budgets (load average ${load}): thumbnails of 10 nodes refreshed in ${thumbs.map((t) => t.toFixed(0)).join(', ')} ms (median ${median(thumbs).toFixed(0)}); 512x512 preview rendered in ${previews.map((t) => t.toFixed(1)).join(', ')} ms (median ${median(previews).toFixed(1)})`);
  assert.ok(median(thumbs) <= 300, `thumbnails: median ${median(thumbs)} ms over 300 ms (load ${load})`);
  assert.ok(median(previews) <= 150, `preview: median ${median(previews)} ms over 150 ms (load ${load})`);
  await page.close();
});
