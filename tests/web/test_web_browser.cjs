// test_web_browser.cjs — make test-web's second part: the page (build/web/index.html,
// opened from file://) in Debian's headless Chromium, driven by playwright-core.
//
// It runs chapter 4 with --heatmap, hovers a cell and checks the tooltip against the
// weights the native program dumps, checks the picture is not blank, switches to
// Chinese and checks the narration is the native program's, runs chapter 13's
// generation and checks every head is drawn, shows chapter 9's note, checks the layout
// at a phone's width (the C below the narration, nothing cut off), and fails on any
// console error. Screenshots go to build/web-test/. Ends with the suite line
// "test_web_browser: N passed, M failed".
//   node tests/web/test_web_browser.cjs [build]
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { chromium } = require('playwright-core');

const BUILD = process.argv[2] || 'build';
const root = path.resolve(__dirname, '../..');
const shots = path.join(root, 'build/web-test');
fs.mkdirSync(shots, { recursive: true });
let passed = 0, failed = 0;
function check(ok, what, detail) {
    if (ok) passed++;
    else { failed++; console.log(`FAIL: ${what}${detail !== undefined ? ': ' + String(detail).slice(0, 400) : ''}`); }
}
function readNpy(file) {
    const b = fs.readFileSync(file);
    const hlen = b.readUInt16LE(8);
    const header = b.subarray(10, 10 + hlen).toString();
    const shape = /'shape': *\(([^)]*)\)/.exec(header)[1].split(',').map((s) => s.trim()).filter(Boolean).map(Number);
    const data = new Float32Array(b.buffer.slice(b.byteOffset + 10 + hlen, b.byteOffset + b.length));
    return { shape, data };
}
// a canvas with more than a few colours (not blank)
const canvasColours = (page, i) => page.evaluate((i) => {
    const c = document.querySelectorAll('#pictures canvas')[i];
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const seen = new Set();
    for (let k = 0; k < d.length; k += 4) seen.add((d[k] << 16) | (d[k + 1] << 8) | d[k + 2]);
    return seen.size;
}, i);

(async () => {
    const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-chromium-'));
    const context = await chromium.launchPersistentContext(profile, {
        executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
        headless: true,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
               '--disable-background-networking', '--disable-component-update', '--disable-sync'],
        viewport: { width: 1400, height: 900 },
        locale: 'en-US',
    });
    const errors = [];
    try {
        const page = context.pages()[0] || await context.newPage();
        page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
        page.on('pageerror', (e) => errors.push(String(e)));
        const url = 'file://' + path.join(root, 'build/web/index.html') + '#chapter4';
        await page.goto(url);
        await page.waitForFunction(() => window.attnReady === true, null, { timeout: 30000 });
        const first = await page.evaluate(() => window.attnFirstOutputMs);
        console.log(`first output ${first} ms after the page started loading (chapter 4's default run)`);
        check(typeof first === 'number', 'the default run shows output');
        const native = execFileSync(path.join(root, BUILD, 'chapter4'), [], { env: { LC_ALL: 'C' } }).toString();
        const shown = await page.textContent('#out');
        check(shown === native, "chapter 4's default run in the page is the native program's", shown.slice(0, 200));

        // --heatmap: the weights drawn from --dump's attn_weights.npy
        await page.check('input[name="--heatmap"]');
        await page.click('#run');
        await page.waitForSelector('#pictures canvas', { timeout: 30000 });
        check((await canvasColours(page, 0)) > 4, 'the heatmap is not blank');
        const dump = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-dump-'));
        execFileSync(path.join(root, BUILD, 'chapter4'), ['--heatmap', '--dump', dump, '--quiet'], { env: { LC_ALL: 'C' } });
        const w = readNpy(path.join(dump, 'attn_weights.npy'));
        const T = w.shape[w.shape.length - 2], S = w.shape[w.shape.length - 1];
        const box = await (await page.$('#pictures canvas')).boundingBox();
        const qi = T - 1, kj = 1;
        await page.mouse.move(box.x + (kj + 0.5) * box.width / S, box.y + (qi + 0.5) * box.height / T);
        await page.waitForSelector('#tip:not([hidden])');
        const tip = await page.textContent('#tip');
        const want = w.data[qi * S + kj].toFixed(4);
        check(tip.includes(`query ${qi}, key ${kj}`) && tip.includes(`weight ${want}`), `the tooltip names cell (${qi}, ${kj}) and its weight ${want}`, tip);
        check(/PyTorch: .*softmax/.test(tip), "the tooltip shows the step's PyTorch line", tip);
        await page.mouse.move(box.x + 0.5 * box.width / S, box.y + 0.5 * box.height / T);
        check((await page.textContent('#tip')).includes('query 0, key 0'), 'the tooltip follows the mouse');
        const marked = await page.$$eval('#src .ln.mark', (l) => l.length);
        check(marked > 0, "the steps' C lines are marked beside the narration", marked);
        const steps = await page.$$('#out .step');
        check(steps.length >= 4, "the narration's PyTorch lines are steps tied to the C", steps.length);
        if (steps.length >= 2) {
            const said = (await steps[1].textContent()).replace(/^\s*PyTorch[:：]\s*/, '').trim();
            await steps[1].click();
            const here = await page.textContent('#src .ln.here');
            check(/narrate_torch\("/.test(here) && here.includes(said.slice(0, 20)), "clicking a step marks its narrate_torch line in the C", `${said} | ${here}`);
        }
        await page.screenshot({ path: path.join(shots, 'ch04_heatmap.png'), fullPage: false });
        fs.rmSync(dump, { recursive: true, force: true });

        // Chinese: the narration is the native program's --lang zh
        await page.evaluate(() => { window.attnReady = false; });
        await page.click('#lang');
        await page.waitForFunction(() => document.querySelector('#run').textContent === '运行' && /[\u4e00-\u9fff]/.test(document.querySelector('#out').textContent), null, { timeout: 30000 });
        await page.waitForSelector('#pictures canvas', { timeout: 30000 });
        const zh = execFileSync(path.join(root, BUILD, 'chapter4'), ['--lang', 'zh'], { env: { LC_ALL: 'C' } }).toString();
        const zhShown = await page.textContent('#out');
        check(zhShown.startsWith(zh.split('\n')[0]) && /[\u4e00-\u9fff]/.test(zhShown), 'after the switch the narration is Chinese, as --lang zh', zhShown.slice(0, 120));
        check((await page.textContent('label[title] .help')).length > 0, "the form's help comes from the program's --help");
        await page.screenshot({ path: path.join(shots, 'ch04_zh.png') });
        await page.click('#lang'); // back to English
        await page.waitForFunction(() => document.querySelector('#run').textContent === 'Run');

        // the programs run in a worker: the page stays live, its output comes as it is
        // written, and Stop ends a long run (chapter 8's default run takes seconds as wasm)
        check(await page.evaluate(() => window.attnInWorker === true), 'the programs run in a worker, off the page\'s thread');
        await page.selectOption('#chapter', '8');
        await page.waitForFunction(() => document.querySelectorAll('#flags input').length > 0 && document.querySelector('#status').textContent === '');
        await page.click('#run');
        await page.waitForFunction(() => document.querySelector('#out').textContent.startsWith('Chapter 8'), null, { timeout: 30000 });
        check(await page.isVisible('#stop') && !(await page.isVisible('#run')), 'while a program runs, Stop is shown in place of Run');
        await page.click('#stop');
        await page.waitForFunction(() => !document.querySelector('#run').hidden, null, { timeout: 10000 });
        check((await page.textContent('#status')) === 'stopped', 'Stop ends the run (the page answered a click during it)', await page.textContent('#status'));
        check((await page.textContent('#out')).startsWith('Chapter 8'), 'what the stopped run printed stays shown');

        // chapter 13: a poem's first line, the rest generated, every head drawn
        await page.selectOption('#chapter', '13');
        await page.waitForSelector('#poem:not([hidden])');
        await page.waitForSelector('#flags input[name="--temperature"]'); // chapter 13's form, not the last one's
        // training needs --save's file, which the page cannot give: listed with the file flags, not offered
        const offered = await page.$$eval('#flags input', (l) => l.map((i) => i.name));
        const training = ['--train-steps', '--stop-at', '--resume', '--bench'];
        check(training.every((f) => !offered.includes(f)) && offered.includes('--temperature'),
              "chapter 13's form offers no flag that works only beside a file (training), and offers the others", offered.join(' '));
        const note = await page.textContent('#flags .files');
        check(training.every((f) => note.includes(f)) && note.includes('--save'),
              'the note under the form names the training flags beside the file flags', note);
        await page.fill('#prompt', '床前明月光，');
        await page.fill('#ntokens', '12');
        await page.click('#generate');
        await page.waitForFunction(() => document.querySelectorAll('#pictures canvas').length > 0 && document.querySelector('#poemText').textContent.length > 0, null, { timeout: 60000 });
        const poem = await page.textContent('#poemText');
        check(poem.startsWith('床前明月光'), 'the generated poem continues the first line', poem);
        const bin = fs.readFileSync(path.join(root, 'build/web-files/model/tang.bin'));
        const heads = bin.readInt32LE(8) * bin.readInt32LE(12);
        const canvases = await page.$$eval('#pictures canvas', (l) => l.length);
        check(canvases === heads, `every head of every layer drawn (${heads})`, canvases);
        let blank = 0;
        for (let i = 0; i < canvases; i++) if ((await canvasColours(page, i)) <= 4) blank++;
        check(blank === 0, "no head's picture is blank", blank);
        const c0 = await page.$('#pictures canvas');
        const hb = await c0.boundingBox();
        const pad = Number(await c0.getAttribute('data-pad')), cell = Number(await c0.getAttribute('data-cell'));
        await page.mouse.move(hb.x + pad + 0.5 * cell, hb.y + pad + 3.5 * cell);
        check(/query \d+ "/.test(await page.textContent('#tip')), "a head's tooltip names the characters", await page.textContent('#tip'));
        await page.screenshot({ path: path.join(shots, 'ch13_poem.png'), fullPage: false });

        // chapter 9: explained, not run
        await page.selectOption('#chapter', '9');
        await page.waitForFunction(() => /MPI/.test(document.querySelector('#about').textContent));
        check(await page.isDisabled('#run'), "chapter 9 (MPI) is explained, and its Run is off");

        // a phone's width (390 CSS pixels): the C goes below the narration, nothing is cut off
        // at the right, and every flag's help is inside the page
        await page.setViewportSize({ width: 390, height: 844 });
        await page.selectOption('#chapter', '5');
        check(await page.isHidden('#tip'), "another chapter's page hides the last chapter's tooltip");
        await page.waitForFunction(() => document.querySelectorAll('#flags input').length > 0);
        const phone = await page.evaluate(() => {
            const r = (q) => document.querySelector(q).getBoundingClientRect();
            const helps = [...document.querySelectorAll('#flags .help')].map((h) => h.getBoundingClientRect().right);
            return { page: document.documentElement.scrollWidth, left: r('#left'), right: r('#right'),
                     help: Math.max(...helps) };
        });
        check(phone.page <= 390, 'at 390 pixels the page is no wider than the screen', phone.page);
        check(phone.right.top >= phone.left.bottom - 1 && phone.right.width > 300,
              'at 390 pixels the C is below the narration, at full width', JSON.stringify(phone.right));
        check(phone.help <= 390, "at 390 pixels every flag's help is on the screen", phone.help);
        await page.screenshot({ path: path.join(shots, 'ch05_phone.png'), fullPage: true });
        await page.setViewportSize({ width: 1400, height: 900 });
    } catch (e) {
        check(false, 'the page test ran to its end', e && e.stack ? e.stack : e);
    } finally {
        check(errors.length === 0, 'no console error', errors.join(' | '));
        await context.close();
        fs.rmSync(profile, { recursive: true, force: true });
    }
    console.log(`test_web_browser: ${passed} passed, ${failed} failed`);
    process.exitCode = failed ? 1 : 0;
})();
