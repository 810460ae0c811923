// `noisegraph serve` in a real browser (Debian's Chromium, headless): the page renders the
// graph, follows its controls, shows the engine's errors at their fields, views any node,
// saves the one file, reloads it when it changes on disk, and its view modes work.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { GRAPH, graphFolder, startServer, launch, open, idle, pixels, differing, levels } from './server.mjs';

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

const frequencyRow = '.row[data-node="base"][data-field="frequency"]';

test('the page renders the graph with its statistics', async () => {
  const { file } = graphFolder();
  const { url } = await serve([file]);
  const page = await open(browser, url);
  const px = await pixels(page);
  assert.equal(px.length, 128 * 128);
  assert.ok(levels(px) > 50, `a noise image has many grey levels (got ${levels(px)})`);
  assert.equal(await page.locator('#preview').getAttribute('data-node'), 'terrain');
  assert.match(await page.locator('#render-info').textContent(), /rendered in [\d.]+ ms/);
  for (const stat of ['min', 'max', 'mean', 'std']) {
    const text = await page.locator(`#stats tr[data-stat="${stat}"] td:last-child`).textContent();
    assert.ok(Number.isFinite(Number(text)), `${stat}: ${text}`);
  }
  // One control per declared field, built from the engine's metadata.
  assert.equal(await page.locator('.row[data-node="terrain"][data-field="octaves"] input[type=text]').inputValue(), '3');
  assert.equal(await page.locator('.row[data-node="terrain"][data-field="gain"] input[type=text]').inputValue(), '0.5');
  assert.match(await page.locator('#bake').inputValue(), new RegExp(`^noisegraph bake ${file.replace(/[.\\/]/g, '\\$&')} -o terrain.png --size 128x128$`));
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('moving a frequency slider changes the preview; an invalid value shows the error at its field', async () => {
  const { file } = graphFolder();
  const { url } = await serve([file]);
  const page = await open(browser, url);
  const before = await pixels(page);
  await page.locator(`${frequencyRow} input[type=range]`).fill('700');
  await idle(page);
  const moved = await pixels(page);
  assert.ok(differing(before, moved) > 1000, 'the preview follows the slider');
  const frequency = JSON.parse(await page.locator('#json').inputValue()).nodes[0].frequency;
  assert.ok(frequency > 4, `the JSON follows the slider (frequency ${frequency})`);
  assert.equal(await page.locator(`${frequencyRow} input[type=text]`).inputValue(), String(frequency));

  await page.locator(`${frequencyRow} input[type=text]`).fill('-3');
  await idle(page);
  const row = page.locator(frequencyRow);
  assert.match(await row.getAttribute('class'), /invalid/);
  assert.match(await row.locator('.err').textContent(), /greater than 0/);
  assert.match(await page.locator('#preview-error').textContent(), /node 'base', frequency/);
  // The last good image stays, marked stale: never a blank one.
  assert.match(await page.locator('#preview').getAttribute('class'), /stale/);
  assert.equal(differing(moved, await pixels(page)), 0);

  // A family parameter out of its bounds, and a bad view field, each at its own field.
  await page.locator(`${frequencyRow} input[type=text]`).fill('4');
  await page.locator('#origin-x').fill('east');
  await idle(page);
  assert.match(await page.locator('.row[data-field="origin"] .err').textContent(), /finite number/);
  assert.doesNotMatch(await row.getAttribute('class'), /invalid/);
  await page.locator('#origin-x').fill('0');
  await idle(page);
  assert.equal(await page.locator('#preview').getAttribute('data-state'), 'ok');
  assert.doesNotMatch(await page.locator('#preview').getAttribute('class') ?? '', /stale/);
  assert.equal(differing(before, await pixels(page)), 0, 'frequency 4 again: the first image again');
  await page.close();
});

test('switching the viewed node, adding and removing nodes', async () => {
  const { file } = graphFolder();
  const { url } = await serve([file]);
  const page = await open(browser, url);
  const fbm = await pixels(page);
  await page.locator('#viewed').selectOption('base');
  await idle(page);
  assert.equal(await page.locator('#preview').getAttribute('data-node'), 'base');
  assert.ok(differing(fbm, await pixels(page)) > 1000);
  assert.match(await page.locator('.node[data-card="base"]').getAttribute('class'), /viewed/);
  assert.match(await page.locator('#bake').inputValue(), / --node base/);

  await page.locator('#add-type').selectOption('cellular');
  await page.locator('#add-node').click();
  await idle(page);
  assert.equal(await page.locator('#preview').getAttribute('data-node'), 'cellular1');
  assert.equal(await page.locator('#preview').getAttribute('data-state'), 'ok');
  // Its own parameters come from the family: a select for `metric`, a slider for `jitter`.
  const metric = page.locator('.row[data-node="cellular1"][data-field="metric"] select');
  assert.deepEqual(await metric.locator('option').evaluateAll((os) => os.map((o) => o.value)),
    ['euclidean', 'euclidean_squared', 'manhattan', 'chebyshev']);
  await page.locator('.row[data-node="cellular1"][data-field="jitter"] input[type=text]').fill('1.5');
  await idle(page);
  assert.match(await page.locator('.row[data-node="cellular1"][data-field="jitter"] .err').textContent(), /\[0, 1\]/);

  // Removing a node another one reads gives the engine's error at the reading field.
  await page.locator('[aria-label="remove base"]').click();
  await idle(page);
  assert.match(await page.locator('.row[data-node="terrain"][data-field="source"] .err').textContent(), /base/);
  await page.close();
});

test('a curve node edits its points as JSON text; bad points show the error at the field', async () => {
  const { file } = graphFolder();
  const { url } = await serve([file]);
  const page = await open(browser, url);
  await page.locator('#add-type').selectOption('curve');
  await page.locator('#add-node').click();
  await idle(page);
  const id = await page.locator('#preview').getAttribute('data-node');
  assert.match(id, /^curve/);
  assert.equal(await page.locator('#preview').getAttribute('data-state'), 'ok');
  const row = page.locator(`.row[data-node="${id}"][data-field="points"]`);
  const text = row.locator('input[type=text]');
  assert.deepEqual(JSON.parse(await text.inputValue()), [[-1, -1], [1, 1]], 'the default points');
  const before = await pixels(page);
  await text.fill('[[-1, 1], [0, -1], [1, 1]]');
  await idle(page);
  const node = JSON.parse(await page.locator('#json').inputValue()).nodes.find((n) => n.id === id);
  assert.deepEqual(node.points, [[-1, 1], [0, -1], [1, 1]]);
  assert.equal(await page.locator('#preview').getAttribute('data-state'), 'ok');
  assert.ok(differing(before, await pixels(page)) > 1000, 'the preview follows the points');
  await text.fill('[[0, 0], [-1, 1]]');
  await idle(page);
  assert.match(await row.getAttribute('class'), /invalid/);
  assert.match(await row.locator('.err').textContent(), /point 1/);
  await page.locator(`.row[data-node="${id}"][data-field="mode"] select`).selectOption('free');
  await text.fill('[[-1, 0], [1, 1]]');
  await idle(page);
  assert.doesNotMatch(await row.getAttribute('class'), /invalid/);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('Save writes the file atomically; Save is off without a file', async () => {
  const { dir, file } = graphFolder();
  const { url } = await serve([file]);
  const page = await open(browser, url);
  await page.locator('#seed').fill('99');
  await idle(page);
  assert.match(await page.locator('#file-status').getAttribute('class'), /dirty/);
  await page.locator('#save').click();
  await page.waitForFunction(() => /Saved/.test(document.getElementById('banner-text').textContent));
  const saved = JSON.parse(readFileSync(file, 'utf8'));
  assert.equal(saved.seed, 99);
  assert.deepEqual(saved.nodes, GRAPH.nodes);
  // Written as the examples are: one line per node.
  assert.match(readFileSync(file, 'utf8'), /^ {4}\{ "id": "base", "type": "perlin", "frequency": 4 \},$/m);
  assert.deepEqual(readdirSync(dir), ['graph.json'], 'no temporary file is left');
  assert.doesNotMatch(await page.locator('#file-status').getAttribute('class'), /dirty/);

  const bare = await serve([]);
  const page2 = await open(browser, bare.url);
  assert.ok(await page2.locator('#save').isDisabled());
  assert.match(await page2.locator('#file-status').textContent(), /Save is off/);
  await page.close();
  await page2.close();
});

test('a change on disk reloads the page, unless it has unsaved edits', async () => {
  const { file } = graphFolder();
  const { url } = await serve([file]);
  const page = await open(browser, url);
  writeFileSync(file, JSON.stringify({ ...GRAPH, seed: 123 }, null, 2));
  await page.waitForFunction(() => JSON.parse(document.getElementById('json').value).seed === 123, null, { timeout: 10000 });
  await idle(page);
  assert.match(await page.locator('#banner-text').textContent(), /changed on disk: reloaded/);

  await page.locator('#seed').fill('7');
  await idle(page);
  writeFileSync(file, JSON.stringify({ ...GRAPH, seed: 456 }, null, 2));
  await page.waitForFunction(() => /unsaved edits are kept/.test(document.getElementById('banner-text').textContent), null, { timeout: 10000 });
  assert.equal(JSON.parse(await page.locator('#json').inputValue()).seed, 7);
  // Saving now would overwrite the other editor's change: the page asks first.
  await page.locator('#save').click();
  await page.waitForFunction(() => /changed on disk since/.test(document.getElementById('banner-text').textContent));
  assert.equal(JSON.parse(readFileSync(file, 'utf8')).seed, 456);
  await page.close();
});

test('tiled 3x3, pan, far origins, time and the flow view', async () => {
  const { file } = graphFolder();
  const { url } = await serve([file]);
  const page = await open(browser, url);
  const single = await pixels(page);

  await page.locator('#mode').selectOption('tiled');
  const tiled = await page.evaluate(() => {
    const c = document.getElementById('image');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    // Every tile equals the first.
    let same = true;
    for (let y = 0; y < 128 && same; y++) for (let x = 0; x < 128; x++) {
      const a = (y * c.width + x) * 4;
      const b = ((y + 256) * c.width + x + 128) * 4;
      if (d[a] !== d[b]) { same = false; break; }
    }
    return { width: c.width, height: c.height, same };
  });
  assert.deepEqual(tiled, { width: 384, height: 384, same: true });

  await page.locator('#mode').selectOption('image');
  const box = await page.locator('#preview').boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 + box.width / 4, box.y + box.height / 2, { steps: 4 });
  await page.mouse.up();
  await idle(page);
  assert.ok(Math.abs(Number(await page.locator('#origin-x').inputValue()) + 0.25) < 0.02, 'a quarter-width drag pans by a quarter of the extent');
  assert.ok(differing(single, await pixels(page)) > 1000);

  await page.locator('#origin-x').fill('1000000.5');
  await page.locator('#origin-y').fill('-2500000');
  await idle(page);
  assert.equal(await page.locator('#preview').getAttribute('data-state'), 'ok');
  assert.match(await page.locator('#bake').inputValue(), / --origin 1000000.5,-2500000/);
  const far = await pixels(page);
  assert.ok(levels(far) > 50, 'noise far from the origin');

  // A 3D graph gets a z slider, which moves the slice.
  await page.locator('#json').fill(JSON.stringify({ ...GRAPH, nodes: [{ id: 'base', type: 'perlin', frequency: 4, dims: 3 }, GRAPH.nodes[1]] }));
  await idle(page);
  assert.ok(await page.locator('#time-z').isVisible());
  const z0 = await pixels(page);
  await page.locator('#z-slider').fill('0.5');
  await idle(page);
  assert.ok(differing(z0, await pixels(page)) > 1000);
  assert.match(await page.locator('#bake').inputValue(), / --origin 1000000.5,-2500000,0.5/);

  await page.locator('#mode').selectOption('flow');
  await page.waitForTimeout(500);
  const trails = await page.evaluate(() => {
    const c = document.getElementById('particles');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let drawn = 0;
    for (let i = 3; i < d.length; i += 4) if (d[i] > 0) drawn++;
    return drawn;
  });
  assert.ok(trails > 500, `particles leave trails (${trails} pixels)`);

  // Gradient and curl modes ask the server for the field's exact vectors and follow them.
  for (const mode of ['gradient', 'curl']) {
    const answered = page.waitForResponse((r) => r.url().endsWith('/api/render') && r.request().postDataJSON().flow === mode && r.status() === 200);
    await page.locator('#flow-mode').selectOption(mode);
    const body = await (await answered).body();
    const length = body.readUInt32LE(0);
    const header = JSON.parse(body.subarray(4, 4 + length).toString());
    assert.deepEqual(header.flow, { mode, components: 2 });
    assert.equal(body.length, Math.ceil((4 + length) / 4) * 4 + 3 * 4 * header.width * header.height, `${mode}: samples and two vector components per pixel`);
    await idle(page);
    await page.waitForTimeout(500);
    const drawn = await page.evaluate(() => {
      const c = document.getElementById('particles');
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++;
      return n;
    });
    assert.ok(drawn > 500, `${mode}: particles leave trails (${drawn} pixels)`);
  }
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('the shown image is the answer to the newest request', async () => {
  const { file } = graphFolder();
  const { url } = await serve([file]);
  const page = await open(browser, url);
  const slider = page.locator(`${frequencyRow} input[type=range]`);
  for (let i = 0; i < 12; i++) await slider.fill(String(300 + 40 * i));
  await idle(page);
  const preview = page.locator('#preview');
  assert.equal(await preview.getAttribute('data-generation'), await preview.getAttribute('data-requested'));
  const last = await pixels(page);
  // The same state rendered afresh gives the same image.
  const again = await open(browser, url, '?size=128');
  await again.locator('#json').fill(await page.locator('#json').inputValue());
  await idle(again);
  assert.equal(differing(last, await pixels(again)), 0);
  await page.close();
  await again.close();
});

test('presets, renaming, 4D time, JSON syntax errors and downloads', async () => {
  const { file } = graphFolder();
  const { url } = await serve([file]);
  const page = await open(browser, url);

  // Renaming a node renames its references.
  const id = page.locator('.node[data-card="base"] .node-id');
  await id.fill('lattice');
  await id.press('Enter');
  await idle(page);
  const renamed = JSON.parse(await page.locator('#json').inputValue());
  assert.deepEqual(renamed.nodes.map((n) => n.id), ['lattice', 'terrain']);
  assert.equal(renamed.nodes[1].source, 'lattice');
  assert.equal(await page.locator('#preview').getAttribute('data-state'), 'ok');

  // A 4D graph: z and w sliders; w sets `w` of every 4D node.
  await page.locator('#json').fill(JSON.stringify({ seed: 1, output: 'n', nodes: [{ id: 'n', type: 'simplex', dims: 4, frequency: 3 }] }));
  await idle(page);
  assert.ok(await page.locator('#time-w').isVisible());
  const w0 = await pixels(page);
  await page.locator('#w-slider').fill('1.5');
  await idle(page);
  assert.equal(JSON.parse(await page.locator('#json').inputValue()).nodes[0].w, 1.5);
  assert.ok(differing(w0, await pixels(page)) > 1000);

  // Broken JSON: the error at the text, the controls locked, the image kept.
  await page.locator('#json').fill('{"seed": 1, "output": ');
  assert.match(await page.locator('.row[data-field="json"] .err').textContent(), /JSON syntax/);
  assert.match(await page.locator('#graph-panel').getAttribute('class'), /locked/);

  // A preset replaces the graph; Download PNG gives bake's pixels for it, Download JSON its text.
  await page.locator('#preset').selectOption('cells');
  await idle(page);
  assert.equal(await page.locator('#preview').getAttribute('data-state'), 'ok');
  assert.doesNotMatch(await page.locator('#graph-panel').getAttribute('class') ?? '', /locked/);
  const [png] = await Promise.all([page.waitForEvent('download'), page.locator('#download-png').click()]);
  const bytes = readFileSync(await png.path());
  assert.deepEqual([...bytes.subarray(1, 4)], [...Buffer.from('PNG')]);
  assert.equal(bytes.readUInt32BE(16), 128, 'PNG width');
  const [json] = await Promise.all([page.waitForEvent('download'), page.locator('#download-json').click()]);
  assert.equal(json.suggestedFilename(), 'graph.json');
  assert.equal(JSON.parse(readFileSync(await json.path(), 'utf8')).output, JSON.parse(await page.locator('#json').inputValue()).output);
  assert.deepEqual(page.problems, []);
  await page.close();
});
