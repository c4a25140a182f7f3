// runner.js — the page's worker: runs one program at a time through wasi.js, off the
// page's own thread, so the page stays live while a chapter computes (its Stop button
// ends the worker). make web puts wasi.js and this file into one string (runner.js of
// build/web/, ATTN_RUNNER_SRC) that the page starts as a worker from a blob: a worker
// script cannot be loaded from file://, a blob can.
//   in:  { id, module, args, env, files }        (module: a compiled WebAssembly.Module)
//   out: { id, kind: 'out' | 'err', bytes }       what the program wrote, as it writes it
//        { id, kind: 'done', code, files }        its exit status and its file system after
//        { id, kind: 'error', message }           the runner itself failed
'use strict';
self.onmessage = async (e) => {
    const { id, module, args, env, files } = e.data;
    try {
        const r = await self.AttnWasi.runWasi(module, {
            args, env, files,
            stdout: (bytes) => self.postMessage({ id, kind: 'out', bytes }),
            stderr: (bytes) => self.postMessage({ id, kind: 'err', bytes }),
        });
        self.postMessage({ id, kind: 'done', code: r.code, files: r.files });
    } catch (err) {
        self.postMessage({ id, kind: 'error', message: String(err && err.message ? err.message : err) });
    }
};
