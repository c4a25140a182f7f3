// bench_web.cjs — make bench-web: chapter 8's flash attention as WebAssembly in the page
// (headless Chromium, one browser session) against the native build/chapter8, the same
// flags, rounds interleaved; prints each side's median kernel time and their ratio.
// A measurement, never a test: nothing here asserts a time.
//   node tests/web/bench_web.cjs build/chapter8 [rounds]
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { chromium } = require('playwright-core');

const native = path.resolve(process.argv[2] || 'build/chapter8');
const rounds = Number(process.argv[3] || 7);
const flags = ['--quiet', '--impl', 'flash', '--batch', '1', '--heads', '8', '--seq-len', '1024', '--d-k', '64'];
const kernelMs = (text) => Number(/kernel: ([0-9.]+) ms/.exec(text)[1]);
const median = (a) => { const s = [...a].sort((x, y) => x - y); return s[(s.length - 1) >> 1]; };
(async () => {
    const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-chromium-'));
    const context = await chromium.launchPersistentContext(profile, {
        executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
               '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    try {
        const page = context.pages()[0] || await context.newPage();
        await page.goto('file://' + path.resolve(__dirname, '../../build/web/index.html') + '#chapter0');
        await page.waitForFunction(() => window.attnReady === true, null, { timeout: 60000 });
        const web = [], nat = [];
        await page.evaluate((f) => run(8, f), flags); // compile, warm up
        execFileSync(native, flags);
        for (let r = 0; r < rounds; r++) {
            web.push(kernelMs(await page.evaluate(async (f) => (await run(8, f)).stdout, flags)));
            nat.push(kernelMs(execFileSync(native, flags, { env: { LC_ALL: 'C' } }).toString()));
        }
        const cpu = (/model name\s*:\s*(.*)/.exec(fs.readFileSync('/proc/cpuinfo', 'utf8')) || [, os.cpus()[0].model])[1];
        const browser = context.browser() ? context.browser().version() : 'chromium';
        console.log(`chapter 8 flash, ${flags.slice(1).join(' ')}, ${rounds} rounds interleaved, one thread`);
        console.log(`CPU: ${cpu}; browser: Chromium ${browser}`);
        console.log(`wasm (in the page): median ${median(web).toFixed(2)} ms  [${web.map((x) => x.toFixed(1)).join(' ')}]`);
        console.log(`native build/chapter8: median ${median(nat).toFixed(2)} ms  [${nat.map((x) => x.toFixed(1)).join(' ')}]`);
        console.log(`wasm / native = ${(median(web) / median(nat)).toFixed(2)}x`);
    } finally {
        await context.close();
        fs.rmSync(profile, { recursive: true, force: true });
    }
})();
