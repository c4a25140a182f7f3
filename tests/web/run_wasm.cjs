// run_wasm.cjs — run a chapter's .wasm under node through the page's own WASI
// (scripts/web/wasi.js), as the native program runs: same arguments, stdout,
// stderr and exit status, and the files it reads and writes on this disk.
//
//   node tests/web/run_wasm.cjs build/web-files/wasm/chapter4.wasm --heatmap --dump out
//
// The program's file system is in memory: each argument (or --flag=VALUE's value)
// that names an existing file or folder here is copied in first (a folder with its
// files), at the same path (relative ones under "/", the program's working folder),
// with the folder of each one that does not exist yet; afterwards every file it
// wrote or changed is written back to where it belongs here. LC_ALL, LC_MESSAGES,
// LANG and ATTN_MAX_BYTES are passed on.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { runWasi } = require('../../scripts/web/wasi.js');

const [wasmFile, ...args] = process.argv.slice(2);
const files = new Map(), dirs = [], real = new Map(), loaded = new Map();
const keyOf = (p) => (path.isAbsolute(p) ? path.normalize(p) : path.posix.normalize('/' + p));
function load(p) {
    const key = keyOf(p);
    if (real.has(key)) return;
    let st;
    try { st = fs.statSync(p); } catch { return; }
    real.set(key, path.resolve(p));
    if (st.isDirectory()) {
        dirs.push(key);
        for (const f of fs.readdirSync(p)) load(path.join(p, f));
    } else if (st.isFile()) {
        const data = new Uint8Array(fs.readFileSync(p));
        files.set(key, data); loaded.set(key, data);
    }
}
for (const a of args) {
    const v = a.startsWith('--') && a.includes('=') ? a.slice(a.indexOf('=') + 1) : a;
    if (v === '' || v.startsWith('--') || v.length > 4096) continue;
    if (fs.existsSync(v)) load(v);
    else if (fs.existsSync(path.dirname(v) || '.')) load(path.dirname(v) || '.');
}
const env = {};
for (const k of ['LC_ALL', 'LC_MESSAGES', 'LANG', 'ATTN_MAX_BYTES']) if (process.env[k] !== undefined) env[k] = process.env[k];
const module_ = new WebAssembly.Module(fs.readFileSync(wasmFile));
const out = [], err = [];
runWasi(module_, {
    args: [path.basename(wasmFile, '.wasm'), ...args], env, files, dirs,
    stdout: (b) => out.push(b), stderr: (b) => err.push(b),
}).then(finish);
function finish(r) {
function realDir(key) {
    if (real.has(key)) return real.get(key);
    const up = path.posix.dirname(key);
    if (up === key) return null;
    const base = realDir(up);
    if (!base) return null;
    const d = path.join(base, path.posix.basename(key));
    fs.mkdirSync(d, { recursive: true });
    real.set(key, d);
    return d;
}
for (const d of r.dirs) realDir(d);
const same = (a, b) => a && b && a.length === b.length && a.every((x, i) => x === b[i]);
for (const [key, data] of r.files) {
    if (same(loaded.get(key), data)) continue;
    const dir = realDir(path.posix.dirname(key));
    if (!dir) continue;
    fs.writeFileSync(path.join(dir, path.posix.basename(key)), data);
}
for (const key of loaded.keys()) if (!r.files.has(key)) fs.rmSync(real.get(key), { force: true });
fs.writeSync(1, Buffer.concat(out));
fs.writeSync(2, Buffer.concat(err));
process.exitCode = r.code;
}
