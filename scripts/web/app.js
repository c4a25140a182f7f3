// app.js — the page: pick a chapter, set its flags, run its WebAssembly, show what it says.
//
// JavaScript only runs the programs (wasi.js, in a worker: runner.js), passes flags,
// shows output and draws:
// the flag form is read from the program's own --help, the pictures from the .npy
// files its --dump writes into the in-memory file system, never from its text.
'use strict';

const UI = {
    en: {
        tagline: "each chapter's own C, compiled to WebAssembly, running in this page",
        chapter: 'Chapter', run: 'Run', stop: 'Stop', stopped: 'stopped', generate: 'Generate', lang: '中文',
        poemFirst: 'The first line of a poem:', poemTokens: 'characters to add:',
        loading: 'loading…', running: 'running…', done: (ms, code) => `exit ${code} · ${ms} ms`,
        files: 'Flags that take files or folders run on your own machine: ',
        withFiles: (l) => `; so do ${l}, which work only beside them (training writes a checkpoint file)`,
        mpi: 'Chapter 9 runs attention across processes with MPI (mpirun): it needs several processes and a network, so it is not in the page. Build it with make and run make chapter9.',
        cell: (q, k, w) => `query ${q}, key ${k}\nweight ${w}`,
        heatmapOf: (name) => `${name} (from --dump)`, head: (l, h) => `layer ${l}, head ${h}`,
        heatmapHint: 'Tick --heatmap to draw the attention weights.',
        model: (steps) => `(a model trained for ${steps} steps by make web)`,
    },
    zh: {
        tagline: '每一章自己的 C 代码，编译成 WebAssembly，在本页运行',
        chapter: '章节', run: '运行', stop: '停止', stopped: '已停止', generate: '生成', lang: 'English',
        poemFirst: '诗的第一句：', poemTokens: '续写字数：',
        loading: '加载中……', running: '运行中……', done: (ms, code) => `退出码 ${code} · ${ms} 毫秒`,
        files: '读写文件或文件夹的参数请在自己的电脑上运行：',
        withFiles: (l) => `；只能和它们一起用的 ${l} 也是（训练要写检查点文件）`,
        mpi: '第 9 章用 MPI（mpirun）把注意力分到多个进程上计算：需要多个进程和网络，所以不在本页。请用 make 构建，再运行 make chapter9。',
        cell: (q, k, w) => `查询 ${q}，键 ${k}\n权重 ${w}`,
        heatmapOf: (name) => `${name}（来自 --dump）`, head: (l, h) => `第 ${l} 层，第 ${h} 个头`,
        heatmapHint: '勾选 --heatmap 即可画出注意力权重。',
        model: (steps) => `（make web 训练了 ${steps} 步的模型）`,
    },
};
let lang = /^zh/i.test(navigator.language || '') ? 'zh' : 'en';
const $ = (id) => document.getElementById(id);
const t = (k, ...a) => (typeof UI[lang][k] === 'function' ? UI[lang][k](...a) : UI[lang][k]);

// ---- loading: <script> files that call attnLoaded (file:// allows them, not fetch) ----
const loaded = {}, waiting = {};
window.attnLoaded = (name, data) => {
    loaded[name] = data;
    for (const f of waiting[name] || []) f();
};
function load(name, src) {
    return new Promise((resolve, reject) => {
        if (loaded[name]) return resolve(loaded[name]);
        if (waiting[name]) return waiting[name].push(() => resolve(loaded[name]));
        waiting[name] = [() => resolve(loaded[name])];
        const s = document.createElement('script');
        s.src = src;
        s.onerror = () => reject(new Error('cannot load ' + src));
        document.head.appendChild(s);
    });
}
const unb64 = (s) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
const modules = {};
async function chapterModule(n) {
    if (!modules[n]) {
        const data = await load('chapter' + n, `chapters/chapter${n}.js`);
        modules[n] = { module: await WebAssembly.compile(unb64(data.wasm)), sources: data.sources };
    }
    return modules[n];
}

// ---- running a program: in a worker, so that the page stays live and Stop works ----
// (one worker, started from the blob of ATTN_RUNNER_SRC; where a browser refuses it,
// the program runs on the page's own thread, as wasi.js runs it under node)
let worker = null, nextRun = 1;
const running = new Map(); // id -> { message(data), stop() }
function startWorker() {
    if (typeof ATTN_RUNNER_SRC !== 'string' || typeof Worker === 'undefined') return null;
    try {
        const w = new Worker(URL.createObjectURL(new Blob([ATTN_RUNNER_SRC], { type: 'text/javascript' })));
        w.onmessage = (e) => { const r = running.get(e.data.id); if (r) r.message(e.data); };
        w.onerror = (e) => { e.preventDefault(); for (const r of [...running.values()]) r.message({ kind: 'error', message: e.message || 'the worker failed' }); };
        window.attnInWorker = true;
        return w;
    } catch (e) {
        window.attnInWorker = false;
        return null;
    }
}
// Stop: the worker ends (and what it was running with it); a new one starts on the next run
function stopRuns() {
    if (!worker) return;
    worker.terminate();
    worker = null;
    for (const r of [...running.values()]) r.stop();
}
function inWorker(module, opts, onBytes) {
    return new Promise((resolve, reject) => {
        const id = nextRun++;
        running.set(id, {
            message(d) {
                if (d.kind === 'out' || d.kind === 'err') return onBytes(d.kind, d.bytes);
                running.delete(id);
                if (d.kind === 'done') resolve({ code: d.code, files: d.files });
                else reject(new Error(d.message));
            },
            stop() { running.delete(id); resolve({ code: null, stopped: true, files: new Map() }); },
        });
        worker.postMessage({ id, module, args: opts.args, env: opts.env, files: opts.files });
    });
}
// run(n, args, files, live): { code, files, stdout, pieces, ms, stopped }; live(kind, text)
// gets the output as it comes
async function run(n, args, files, live) {
    const m = await chapterModule(n);
    const pieces = [];
    const dec = { out: new TextDecoder(), err: new TextDecoder() };
    const onBytes = (kind, b) => {
        const text = dec[kind].decode(b, { stream: true });
        pieces.push([kind, text]);
        if (live && text) live(kind, text);
    };
    const opts = { args: ['chapter' + n, ...args], env: { LANG: lang === 'zh' ? 'zh_CN.UTF-8' : 'C' }, files: files || new Map() };
    const t0 = performance.now();
    if (!worker) worker = startWorker();
    const r = worker ? await inWorker(m.module, opts, onBytes)
                     : await AttnWasi.runWasi(m.module, { ...opts, stdout: (b) => onBytes('out', b), stderr: (b) => onBytes('err', b) });
    r.ms = Math.round(performance.now() - t0);
    r.pieces = pieces;
    r.stdout = pieces.filter((p) => p[0] === 'out').map((p) => p[1]).join('');
    return r;
}

// ---- the flags, from the program's own --help ----
// "  --max-seq-len L  causal mask buffer size, max_seq_len (default 8)"
const FLAG = /^ {2}(--[a-z][a-z0-9-]*)(?:, -[a-z])?(?: ((?:[A-Z][A-Z0-9.]*)|(?:[a-z]+(?:\|[a-z]+)+)))?\s+(.*)$/;
function parseHelp(text) {
    const lines = text.split('\n');
    // the flags: the first block of "  --name" lines (after "flags:", or "参数：")
    let at = lines.findIndex((l) => FLAG.test(l));
    if (at < 0) at = lines.length;
    const about = lines.slice(1, Math.max(1, at - 1)).join('\n').trim();
    const flags = [];
    for (const line of lines.slice(at)) {
        if (line.trim() === '') break;
        const m = FLAG.exec(line);
        if (!m) continue;
        const def = /[(（](?:default|默认) ?([^)）]*)[)）]\s*$/.exec(m[3]);
        flags.push({ name: m[1], metavar: m[2] || null, help: m[3], def: def ? def[1] : null });
    }
    return { about, flags };
}
const NOT_IN_FORM = new Set(['--help', '--lang', '--dump']);
// flags that take no file but work only beside one the page cannot give: chapter 13's
// training (--train-steps, --stop-at and --resume write --save's checkpoint; --bench reads
// --batch-tokens). The program refuses them alone, with its sentence; the page lists them
// with the file flags instead of offering them.
const NEEDS_FILE = { 13: new Set(['--train-steps', '--stop-at', '--resume', '--bench']) };
const isFileFlag = (f) => f.metavar === 'FILE' || f.metavar === 'DIR';
const formValues = {}; // chapter -> { flag: value }

async function showChapter(n) {
    stopRuns(); // (what another chapter was running)
    location.hash = 'chapter' + n;
    $('pictures').textContent = '';
    $('tip').hidden = true;  // its canvas is gone: no mouseleave will hide it
    $('out').textContent = '';
    $('poem').hidden = n !== 13;
    if (n === 9) {
        $('about').innerHTML = '';
        $('about').appendChild(Object.assign(document.createElement('p'), { className: 'mpi', textContent: t('mpi') }));
        $('flags').textContent = '';
        $('run').disabled = true;
        $('src').textContent = '';
        $('srcTabs').textContent = '';
        return;
    }
    $('run').disabled = false;
    $('status').textContent = t('loading');
    const help = parseHelp((await run(n, ['--help', '--lang', lang])).stdout);
    current = { n, help, marks: [] };
    $('about').textContent = help.about;
    const form = $('flags');
    form.textContent = '';
    const values = (formValues[n] = formValues[n] || {});
    const files = [], besideFiles = [];
    for (const f of help.flags) {
        if (NOT_IN_FORM.has(f.name)) continue;
        if (isFileFlag(f)) { files.push(f.name); continue; }
        if (NEEDS_FILE[n] && NEEDS_FILE[n].has(f.name)) { besideFiles.push(f.name); continue; }
        const label = document.createElement('label');
        label.title = f.help;
        const input = document.createElement('input');
        input.name = f.name;
        if (f.metavar) {
            input.type = 'text';
            input.placeholder = f.def !== null ? f.def : f.metavar;
            input.value = values[f.name] || '';
            label.append(Object.assign(document.createElement('span'), { className: 'name', textContent: f.name }), input);
        } else {
            input.type = 'checkbox';
            input.checked = !!values[f.name];
            label.append(input, Object.assign(document.createElement('span'), { className: 'name', textContent: f.name }));
        }
        input.addEventListener('change', () => { values[f.name] = input.type === 'checkbox' ? input.checked : input.value; });
        const h = document.createElement('span');
        h.className = 'help';
        h.textContent = f.help.replace(/\s*[(（](?:default|默认)[^)）]*[)）]\s*$/, '');
        label.append(' ', h);
        form.appendChild(label);
    }
    if (files.length) {
        const note = t('files') + files.join(', ') + (besideFiles.length ? t('withFiles', besideFiles.join(', ')) : '');
        form.appendChild(Object.assign(document.createElement('span'), { className: 'help files', textContent: note }));
    }
    showSources(n, null);
    $('status').textContent = '';
}

function formArgs(n) {
    const args = [];
    for (const input of $('flags').querySelectorAll('input')) {
        if (input.type === 'checkbox' && input.checked) args.push(input.name);
        if (input.type === 'text' && input.value.trim() !== '') args.push(input.name, input.value.trim());
    }
    return args;
}
const hasFlag = (name) => current && current.help.flags.some((f) => f.name === name);

// ---- .npy (float32, little-endian, C order) ----
function readNpy(bytes) {
    const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (bytes[0] !== 0x93 || String.fromCharCode(...bytes.subarray(1, 6)) !== 'NUMPY') throw new Error('not a .npy file');
    const major = bytes[6];
    const hlen = major === 1 ? v.getUint16(8, true) : v.getUint32(8, true);
    const start = major === 1 ? 10 : 12;
    const header = new TextDecoder().decode(bytes.subarray(start, start + hlen));
    if (!/'descr': *'<f4'/.test(header)) throw new Error('not float32: ' + header);
    const shape = /'shape': *\(([^)]*)\)/.exec(header)[1].split(',').map((s) => s.trim()).filter(Boolean).map(Number);
    const data = new Float32Array(bytes.slice(start + hlen).buffer);
    return { shape, data };
}

// ---- heatmaps: the weights drawn, a cell under the mouse explained ----
function heatmap(title, w, T, S, offset, labelsQ, labelsK, torchLine) {
    const cell = Math.max(6, Math.min(28, Math.floor(320 / Math.max(T, S))));
    const pad = labelsQ ? 16 : 0; // a row and a column of characters when there are labels
    const fig = document.createElement('figure');
    const c = document.createElement('canvas');
    c.width = S * cell + pad; c.height = T * cell + pad;
    const g = c.getContext('2d');
    g.fillStyle = '#fff';
    g.fillRect(0, 0, c.width, c.height);
    for (let i = 0; i < T; i++) for (let j = 0; j < S; j++) {
        const x = w[offset + i * S + j];
        const a = Math.max(0, Math.min(1, x));
        // white (0) to deep blue (1)
        g.fillStyle = `rgb(${Math.round(255 - 225 * a)},${Math.round(255 - 185 * a)},${Math.round(255 - 60 * a)})`;
        g.fillRect(pad + j * cell, pad + i * cell, cell, cell);
    }
    g.strokeStyle = 'rgba(0,0,0,0.08)';
    for (let i = 0; i <= T; i++) { g.beginPath(); g.moveTo(pad, pad + i * cell); g.lineTo(pad + S * cell, pad + i * cell); g.stroke(); }
    for (let j = 0; j <= S; j++) { g.beginPath(); g.moveTo(pad + j * cell, pad); g.lineTo(pad + j * cell, pad + T * cell); g.stroke(); }
    if (labelsQ) {
        g.fillStyle = '#333';
        g.font = `${Math.min(12, cell)}px sans-serif`;
        g.textAlign = 'center';
        g.textBaseline = 'middle';
        const show = (s) => (s === '\n' ? '↵' : s.trim() === '' ? '␣' : s);
        for (let i = 0; i < T; i++) g.fillText(show(labelsQ[i]), pad / 2, pad + (i + 0.5) * cell);
        for (let j = 0; j < S; j++) g.fillText(show(labelsK[j]), pad + (j + 0.5) * cell, pad / 2);
    }
    const tip = $('tip');
    c.addEventListener('mousemove', (e) => {
        const r = c.getBoundingClientRect();
        const sx = c.width / r.width, sy = c.height / r.height;
        const j = Math.floor(((e.clientX - r.left) * sx - pad) / cell), i = Math.floor(((e.clientY - r.top) * sy - pad) / cell);
        if (i < 0 || j < 0 || i >= T || j >= S) { tip.hidden = true; return; }
        const q = labelsQ ? `${i} ${JSON.stringify(labelsQ[i])}` : String(i);
        const k = labelsK ? `${j} ${JSON.stringify(labelsK[j])}` : String(j);
        tip.textContent = t('cell', q, k, w[offset + i * S + j].toFixed(4)) + (torchLine ? '\nPyTorch: ' + torchLine : '');
        tip.hidden = false;
        tip.style.left = e.clientX + 14 + 'px';
        tip.style.top = e.clientY + 14 + 'px';
    });
    c.addEventListener('mouseleave', () => { tip.hidden = true; });
    c.dataset.pad = pad;
    c.dataset.cell = cell;
    const cap = document.createElement('figcaption');
    cap.textContent = title;
    fig.append(c, cap);
    $('pictures').appendChild(fig);
    return c;
}
// every (T, S) slice of a (..., T, S) array (at most 16)
function drawAll(name, arr, labels, torchLine, titleOf) {
    const s = arr.shape, T = s[s.length - 2], S = s[s.length - 1];
    const lead = s.slice(0, -2), count = lead.reduce((a, b) => a * b, 1);
    for (let k = 0; k < Math.min(count, 16); k++) {
        const idx = [];
        for (let r = k, d = lead.length - 1; d >= 0; d--) { idx.unshift(r % lead[d]); r = Math.floor(r / lead[d]); }
        const title = titleOf ? titleOf(idx) : `${t('heatmapOf', name)}${idx.length ? ' [' + idx.join(', ') + ']' : ''}  (${T} × ${S})`;
        heatmap(title, arr.data, T, S, k * T * S, labels, labels, torchLine);
    }
}

// ---- the chapter's C beside the narration: each step's lines marked ----
let current = null, srcFile = null;
function unquote(lit) { return lit.replace(/\\"/g, '"').replace(/\\\\/g, '\\').replace(/\\n/g, '\n'); }
// narrate_torch("p_attn = scores.softmax(dim=-1)") -> the line's PyTorch
function torchLines(sources) {
    const found = [];
    for (const [file, text] of Object.entries(sources)) {
        text.split('\n').forEach((line, i) => {
            const m = /narrate_torch\("((?:[^"\\]|\\.)*)"/.exec(line);
            if (m && !m[1].includes('%')) found.push({ file, line: i, torch: unquote(m[1]) });
        });
    }
    return found;
}
function softmaxLine(n) {
    const all = torchLines(modules[n].sources);
    const hit = all.find((x) => /softmax/.test(x.torch));
    return hit ? hit.torch : null;
}
function showSources(n, marks) {
    const sources = modules[n].sources;
    const tabs = $('srcTabs');
    tabs.textContent = '';
    if (!srcFile || !(srcFile in sources)) srcFile = Object.keys(sources)[0];
    for (const f of Object.keys(sources)) {
        const b = document.createElement('button');
        b.type = 'button';
        b.textContent = `chapters/…/${f}`;
        b.className = f === srcFile ? 'on' : '';
        b.onclick = () => { srcFile = f; showSources(n, marks); };
        tabs.appendChild(b);
    }
    const pre = $('src');
    pre.textContent = '';
    const marked = new Set((marks || []).filter((m) => m.file === srcFile).flatMap((m) => m.lines));
    sources[srcFile].split('\n').forEach((line, i) => {
        const span = document.createElement('span');
        span.className = 'ln' + (marked.has(i) ? ' mark' : '');
        span.id = `L${i}`;
        span.textContent = line || ' ';
        pre.appendChild(span);
    });
}
// a step's lines: from its narrate_torch line to the next narrate_ call
function stepLines(text, line) {
    const lines = text.split('\n'), out = [line];
    for (let i = line + 1; i < lines.length && i < line + 12; i++) {
        if (/narrate_(torch|step|say|why)\(|^}/.test(lines[i])) break;
        out.push(i);
    }
    return out;
}
function showOutput(n, r) {
    const out = $('out');
    out.textContent = '';
    const torch = torchLines(modules[n].sources);
    const marks = [];
    for (const [kind, text] of r.pieces) {
        for (const piece of text.split(/(?<=\n)/)) {
            // "    PyTorch: scores = torch.matmul(query, key.transpose(-2, -1)) /" (the
            // narration wraps long lines: its first part is the start of the C's string)
            const said = kind === 'out' && /PyTorch[:：] *(.*\S)\s*$/.exec(piece);
            const hit = said && said[1].length > 5 && torch.find((x) => x.torch.startsWith(said[1]));
            const span = document.createElement('span');
            span.textContent = piece;
            if (kind === 'err') span.className = 'err';
            if (hit) {
                const m = { file: hit.file, lines: stepLines(modules[n].sources[hit.file], hit.line) };
                marks.push(m);
                span.className = 'step';
                span.title = `${hit.file}:${hit.line + 1}`;
                span.onclick = () => {
                    srcFile = hit.file;
                    showSources(n, marks);
                    const el = $('L' + hit.line);
                    if (el) { el.classList.add('here'); el.scrollIntoView({ block: 'center' }); }
                };
            }
            out.appendChild(span);
            if (window.attnFirstOutputMs === undefined && piece.length) window.attnFirstOutputMs = Math.round(performance.now());
        }
    }
    showSources(n, marks);
    $('status').textContent = r.stopped ? t('stopped') : t('done', r.ms, r.code);
    out.dataset.exit = r.stopped ? 'stopped' : r.code;
}
// while a program runs: its output as it comes (plain; marked by showOutput at the end),
// and Stop in place of Run
function liveOutput() {
    const out = $('out');
    out.textContent = '';
    return (kind, text) => {
        const span = document.createElement('span');
        span.textContent = text;
        if (kind === 'err') span.className = 'err';
        out.appendChild(span);
        if (window.attnFirstOutputMs === undefined) window.attnFirstOutputMs = Math.round(performance.now());
    };
}
async function busy(work) {
    $('run').hidden = true;
    $('generate').disabled = true;
    $('stop').hidden = false;
    try {
        return await work();
    } finally {
        $('stop').hidden = true;
        $('run').hidden = false;
        $('generate').disabled = false;
    }
}

async function runChapter() {
    const n = current.n;
    const args = formArgs(n);
    const picture = args.includes('--heatmap') || args.includes('--ascii');
    if (picture && hasFlag('--dump')) args.push('--dump', '/out');
    // chapter 13 looks inside make web's model (its default run would train one first)
    const m13 = n === 13 ? await model13() : null;
    if (m13) args.unshift(...m13.ck);
    $('status').textContent = t('running');
    $('pictures').textContent = '';
    $('tip').hidden = true;  // its canvas is gone: no mouseleave will hide it
    const r = await busy(() => run(n, [...args, '--lang', lang], m13 ? m13.files : null, liveOutput()));
    if (current.n !== n) return r; // another chapter was picked meanwhile
    showOutput(n, r);
    if (picture && r.code === 0) {
        const names = [...r.files.keys()].filter((p) => /^\/out\/attn_[a-z0-9_]*\.npy$/.test(p)).sort();
        const weights = names.filter((p) => !/dropped/.test(p));
        for (const p of weights) drawAll(p.slice(5), readNpy(r.files.get(p)), null, softmaxLine(n));
    } else if (hasFlag('--heatmap') && r.code === 0) {
        $('pictures').appendChild(Object.assign(document.createElement('p'), { className: 'help', textContent: t('heatmapHint') }));
    }
    return r;
}

// ---- chapter 13: a poem's first line, the rest generated, every head drawn ----
function parseTokenizer(bytes, vocab) {
    const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const dec = new TextDecoder();
    const pieces = [];
    let at = 4;
    for (let i = 0; i < vocab && at < bytes.length; i++) {
        const len = v.getInt32(at + 4, true);
        pieces.push(dec.decode(bytes.subarray(at + 8, at + 8 + len)));
        at += 8 + len;
    }
    return pieces;
}
async function model13() {
    const model = await load('model', 'model/tang.js');
    const bin = unb64(model['tang.bin']), tok = unb64(model['tang.tok']);
    return { model, bin, tok, files: new Map([['/model/tang.bin', bin], ['/model/tang.tok', tok]]),
             ck: ['--checkpoint', '/model/tang.bin', '--tokenizer', '/model/tang.tok'] };
}
async function generatePoem() {
    $('status').textContent = t('loading');
    const { model, bin, tok, files, ck } = await model13();
    const head = new DataView(bin.buffer);
    const nLayers = head.getInt32(8, true), vocab = Math.abs(head.getInt32(20, true));
    const prompt = $('prompt').value.trim() || '床前明月光，';
    const n = Math.max(1, Math.min(50, Number($('ntokens').value) || 18));
    const seed = $('flags').querySelector('input[name="--seed"]');
    const extra = seed && seed.value.trim() ? ['--seed', seed.value.trim()] : [];
    $('status').textContent = t('running');
    const r = await busy(() => run(13, [...ck, '--prompt', prompt, '--generate', String(n), ...extra, '--lang', lang], files, liveOutput()));
    showOutput(13, r);
    if (r.stopped) return r;
    // the same run again, quiet, with --dump: the poem, and the program's own token ids
    // (tokens.npy) and every layer's attention over the prompt and what followed
    const d = await busy(() => run(13, [...ck, '--prompt', prompt, '--generate', String(n), ...extra, '--quiet', '--dump', '/out'], files));
    if (d.stopped) return r;
    const text = d.stdout.replace(/\n+$/, '');
    $('poemText').textContent = text + '\n' + t('model', model.steps);
    $('pictures').textContent = '';
    $('tip').hidden = true;  // its canvas is gone: no mouseleave will hide it
    if (r.code !== 0 || d.code !== 0 || !d.files.has('/out/tokens.npy')) return r;
    const pieces = parseTokenizer(tok, vocab);   // the labels: each id's piece, read from the tokenizer file
    const labels = Array.from(readNpy(d.files.get('/out/tokens.npy')).data, (i) => pieces[i]);
    await chapterModule(11);
    const line = softmaxLine(11); // chapter 13's attention is chapter 11's
    for (let l = 0; l < nLayers; l++) {
        const p = `/out/attn_${l}.npy`;
        if (!d.files.has(p)) continue;
        drawAll(p.slice(5), readNpy(d.files.get(p)), labels, line, (idx) => t('head', l, idx[0]));
    }
    return r;
}

// ---- the page ----
// a chapter's default run starts by itself (not 9, MPI; not 13, whose page runs
// make web's model on a line of a poem: Generate)
const autoRun = (n) => n !== 9 && n !== 13;
function applyLang() {
    document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
    for (const el of document.querySelectorAll('[data-t]')) el.textContent = t(el.dataset.t);
    $('lang').textContent = t('lang');
}
async function start() {
    const sel = $('chapter');
    const all = [...ATTN_CHAPTERS, 9].sort((a, b) => a - b);
    for (const n of all) sel.appendChild(Object.assign(document.createElement('option'), { value: n, textContent: n === 9 ? '9 (MPI)' : String(n) }));
    const want = /^#chapter(\d+)$/.exec(location.hash);
    sel.value = want && all.includes(Number(want[1])) ? want[1] : '4';
    applyLang();
    sel.onchange = () => showChapter(Number(sel.value)).catch(fail);
    $('run').onclick = () => runChapter().catch(fail);
    $('stop').onclick = stopRuns;
    $('generate').onclick = () => generatePoem().catch(fail);
    $('lang').onclick = () => {
        lang = lang === 'zh' ? 'en' : 'zh';
        applyLang();
        showChapter(Number(sel.value)).then(() => (autoRun(Number(sel.value)) ? runChapter() : null)).catch(fail);
    };
    await showChapter(Number(sel.value));
    if (autoRun(Number(sel.value))) await runChapter();
    window.attnReady = true;
}
function fail(e) {
    $('status').textContent = String(e && e.message ? e.message : e);
    console.error(e);
}
start().catch(fail);
