// bundle.mjs — make web: each chapter's .wasm and C files, and chapter 13's
// checkpoint, as scripts the page loads with <script> tags (file:// allows those,
// not fetch()). Each script calls attnLoaded(name, files), files mapping a name to
// base64 (binary) or text. And runner.js: the page's worker (wasi.js, then
// scripts/web/runner.js) as one string, ATTN_RUNNER_SRC, started from a blob.
//   node scripts/web/bundle.mjs FILES_DIR OUT_DIR 0 1 2 ... 13
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const [files, out, ...chapters] = process.argv.slice(2);
const write = (rel, name, obj) => {
    const dest = path.join(out, rel);
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    fs.writeFileSync(dest, `attnLoaded(${JSON.stringify(name)}, ${JSON.stringify(obj)});\n`);
};
const list = [];
for (const n of chapters) {
    const srcDir = path.join(files, 'src', `chapter${n}`);
    const sources = {};
    for (const f of fs.readdirSync(srcDir).sort((a, b) => (b === 'main.c') - (a === 'main.c') || a.localeCompare(b)))
        sources[f] = fs.readFileSync(path.join(srcDir, f), 'utf8');
    const wasm = fs.readFileSync(path.join(files, 'wasm', `chapter${n}.wasm`)).toString('base64');
    write(`chapters/chapter${n}.js`, `chapter${n}`, { wasm, sources });
    list.push(Number(n));
}
const m = path.join(files, 'model');
write('model/tang.js', 'model', {
    'tang.bin': fs.readFileSync(path.join(m, 'tang.bin')).toString('base64'),
    'tang.tok': fs.readFileSync(path.join(m, 'tang.tok')).toString('base64'),
    steps: fs.readFileSync(path.join(m, 'steps'), 'utf8').trim(),
});
const here = path.dirname(fileURLToPath(import.meta.url));
const worker = ['wasi.js', 'runner.js'].map((f) => fs.readFileSync(path.join(here, f), 'utf8')).join('\n');
fs.writeFileSync(path.join(out, 'runner.js'), `var ATTN_RUNNER_SRC = ${JSON.stringify(worker)};\n`);
fs.writeFileSync(path.join(out, 'chapters.js'), `var ATTN_CHAPTERS = ${JSON.stringify(list)};\n`);
