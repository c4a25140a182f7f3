// wasi.js — a small WASI (preview 1) for the chapters' WebAssembly, with files in memory.
//
// The page and make test-web's node runner both run the programs through this file:
// await runWasi(module, { args, env, files, stdout, stderr }) runs a compiled chapter
// as its main() would run, with `files` (a Map from an absolute path such as
// "/fixtures/q.npy" to a Uint8Array) as the whole file system, "/" preopened,
// and returns { code, files }: the exit status and the file system afterwards
// (what --dump and --output wrote). stdout and stderr get the bytes written.
// Nothing here knows a chapter: JavaScript only runs the programs.
(function (root) {
    'use strict';
    const E = { SUCCESS: 0, ACCES: 2, BADF: 8, EXIST: 20, INVAL: 28, ISDIR: 31, NOENT: 44, NOSYS: 52,
                NOTDIR: 54, NOTEMPTY: 55, NOTSUP: 58, SPIPE: 70 };
    const FT = { UNKNOWN: 0, CHAR: 2, DIR: 3, FILE: 4 };

    class Exit { constructor(code) { this.code = code; } }

    async function runWasi(module, opts) {
        const args = opts.args || ['program'];
        const env = opts.env || {};
        const fs = new Map(opts.files || []);         // path -> Uint8Array
        const dirs = new Set(['/']);
        for (const p of fs.keys()) for (let d = parent(p); d !== '/'; d = parent(d)) dirs.add(d);
        for (const d of opts.dirs || []) dirs.add(norm(d));
        const enc = new TextEncoder();
        let memory = null;
        const fds = new Map();   // fd -> { kind: 'std'|'file'|'dir', path, pos, append }
        fds.set(0, { kind: 'std' }); fds.set(1, { kind: 'std' }); fds.set(2, { kind: 'std' });
        fds.set(3, { kind: 'dir', path: '/', pre: true });
        let nextFd = 4;

        function parent(p) { const i = p.lastIndexOf('/'); return i <= 0 ? '/' : p.slice(0, i); }
        function norm(p) {
            const out = [];
            for (const part of p.split('/')) {
                if (part === '' || part === '.') continue;
                if (part === '..') out.pop(); else out.push(part);
            }
            return '/' + out.join('/');
        }
        const view = () => new DataView(memory.buffer);
        const bytes = () => new Uint8Array(memory.buffer);
        const str = (ptr, len) => new TextDecoder().decode(bytes().subarray(ptr, ptr + len));
        function resolve(dirfd, ptr, len) {
            const d = fds.get(dirfd);
            if (!d || d.kind !== 'dir') return null;
            return norm(d.path + '/' + str(ptr, len));
        }
        function stat(path) {
            if (dirs.has(path)) return { type: FT.DIR, size: 0 };
            if (fs.has(path)) return { type: FT.FILE, size: fs.get(path).length };
            return null;
        }
        function writeStat(ptr, st, ino) {
            const v = view();
            for (let i = 0; i < 64; i++) v.setUint8(ptr + i, 0);
            v.setBigUint64(ptr + 8, BigInt(ino), true);
            v.setUint8(ptr + 16, st.type);
            v.setBigUint64(ptr + 24, 1n, true);
            v.setBigUint64(ptr + 32, BigInt(st.size), true);
        }
        function inode(path) { let h = 7; for (let i = 0; i < path.length; i++) h = (h * 31 + path.charCodeAt(i)) >>> 0; return h; }
        function grow(path, need) {
            const old = fs.get(path);
            if (old.length >= need) return old;
            const bigger = new Uint8Array(Math.max(need, old.length * 2));
            bigger.set(old);
            // the file's length is kept apart from the buffer's
            return bigger;
        }
        const sizes = new Map(); // path -> logical size when the buffer is larger
        const size = (p) => (sizes.has(p) ? sizes.get(p) : fs.get(p).length);
        function content(p) { return fs.get(p).subarray(0, size(p)); }

        const wasi = {
            args_sizes_get(argc, bufsz) {
                const v = view();
                v.setUint32(argc, args.length, true);
                v.setUint32(bufsz, args.reduce((n, a) => n + enc.encode(a).length + 1, 0), true);
                return 0;
            },
            args_get(argv, buf) {
                const v = view(), b = bytes();
                args.forEach((a, i) => {
                    const e = enc.encode(a);
                    v.setUint32(argv + 4 * i, buf, true);
                    b.set(e, buf); b[buf + e.length] = 0; buf += e.length + 1;
                });
                return 0;
            },
            environ_sizes_get(n, bufsz) {
                const list = Object.entries(env).map(([k, val]) => k + '=' + val);
                view().setUint32(n, list.length, true);
                view().setUint32(bufsz, list.reduce((s, a) => s + enc.encode(a).length + 1, 0), true);
                return 0;
            },
            environ_get(ptrs, buf) {
                const list = Object.entries(env).map(([k, val]) => k + '=' + val);
                list.forEach((a, i) => {
                    const e = enc.encode(a);
                    view().setUint32(ptrs + 4 * i, buf, true);
                    bytes().set(e, buf); bytes()[buf + e.length] = 0; buf += e.length + 1;
                });
                return 0;
            },
            clock_res_get(id, out) { view().setBigUint64(out, 1000n, true); return 0; },
            clock_time_get(id, precision, out) {
                const ms = id === 0 ? Date.now() : (typeof performance !== 'undefined' ? performance.now() : Date.now());
                view().setBigUint64(out, BigInt(Math.round(ms * 1e6)), true);
                return 0;
            },
            random_get(ptr, len) {
                const b = bytes().subarray(ptr, ptr + len);
                for (let i = 0; i < len; i++) b[i] = (Math.random() * 256) | 0;
                return 0;
            },
            sched_yield() { return 0; },
            proc_exit(code) { throw new Exit(code); },
            fd_prestat_get(fd, out) {
                const d = fds.get(fd);
                if (!d || !d.pre) return E.BADF;
                view().setUint8(out, 0);
                view().setUint32(out + 4, 1, true);
                return 0;
            },
            fd_prestat_dir_name(fd, ptr, len) {
                const d = fds.get(fd);
                if (!d || !d.pre) return E.BADF;
                bytes()[ptr] = 47; // "/"
                return 0;
            },
            fd_fdstat_get(fd, out) {
                const d = fds.get(fd);
                if (!d) return E.BADF;
                const v = view();
                for (let i = 0; i < 24; i++) v.setUint8(out + i, 0);
                // stdout and stderr are not terminals (as in a test's redirected run)
                v.setUint8(out, d.kind === 'dir' ? FT.DIR : d.kind === 'file' ? FT.FILE : FT.UNKNOWN);
                v.setUint16(out + 2, d.append ? 1 : 0, true);
                v.setBigUint64(out + 8, 0xffffffffffffffffn, true);
                v.setBigUint64(out + 16, 0xffffffffffffffffn, true);
                return 0;
            },
            fd_fdstat_set_flags() { return 0; },
            fd_filestat_get(fd, out) {
                const d = fds.get(fd);
                if (!d) return E.BADF;
                if (d.kind === 'std') { writeStat(out, { type: FT.UNKNOWN, size: 0 }, 100 + fd); return 0; }
                const st = d.kind === 'dir' ? { type: FT.DIR, size: 0 } : { type: FT.FILE, size: size(d.path) };
                writeStat(out, st, inode(d.path));
                return 0;
            },
            fd_filestat_set_size(fd, n) {
                const d = fds.get(fd);
                if (!d || d.kind !== 'file') return E.BADF;
                n = Number(n);
                const b = grow(d.path, n);
                b.fill(0, n);
                fs.set(d.path, b); sizes.set(d.path, n);
                return 0;
            },
            path_filestat_get(dirfd, flags, ptr, len, out) {
                const p = resolve(dirfd, ptr, len);
                if (p === null) return E.BADF;
                const st = stat(p);
                if (!st) return E.NOENT;
                if (st.type === FT.FILE) st.size = size(p);
                writeStat(out, st, inode(p));
                return 0;
            },
            path_open(dirfd, dirflags, ptr, len, oflags, rbase, rinh, fdflags, out) {
                const p = resolve(dirfd, ptr, len);
                if (p === null) return E.BADF;
                const st = stat(p);
                if (st && (oflags & 4) && (oflags & 1)) return E.EXIST;
                if (!st && !(oflags & 1)) return E.NOENT;
                if (oflags & 2) {
                    if (!st) return E.NOENT;
                    if (st.type !== FT.DIR) return E.NOTDIR;
                }
                if (st && st.type === FT.DIR) {
                    const fd = nextFd++;
                    fds.set(fd, { kind: 'dir', path: p });
                    view().setUint32(out, fd, true);
                    return 0;
                }
                if (!st) {
                    if (!dirs.has(parent(p))) return stat(parent(p)) ? E.NOTDIR : E.NOENT;
                    fs.set(p, new Uint8Array(0)); sizes.delete(p);
                }
                if (oflags & 8) { fs.set(p, new Uint8Array(0)); sizes.delete(p); }
                const fd = nextFd++;
                fds.set(fd, { kind: 'file', path: p, pos: 0, append: (fdflags & 1) !== 0 });
                view().setUint32(out, fd, true);
                return 0;
            },
            fd_close(fd) { if (!fds.has(fd)) return E.BADF; if (fd > 3) fds.delete(fd); return 0; },
            fd_sync() { return 0; },
            fd_datasync() { return 0; },
            fd_advise() { return 0; },
            fd_allocate() { return 0; },
            fd_read(fd, iovs, n, out) {
                const d = fds.get(fd);
                if (!d) return E.BADF;
                if (d.kind === 'dir') return E.ISDIR;
                const v = view();
                let total = 0;
                if (d.kind === 'std') { v.setUint32(out, 0, true); return 0; } // stdin: empty
                const data = content(d.path);
                for (let i = 0; i < n; i++) {
                    const ptr = v.getUint32(iovs + 8 * i, true), len = v.getUint32(iovs + 8 * i + 4, true);
                    const chunk = data.subarray(d.pos, d.pos + len);
                    bytes().set(chunk, ptr);
                    d.pos += chunk.length; total += chunk.length;
                    if (chunk.length < len) break;
                }
                v.setUint32(out, total, true);
                return 0;
            },
            fd_pread() { return E.NOSYS; },
            fd_pwrite() { return E.NOSYS; },
            fd_write(fd, iovs, n, out) {
                const d = fds.get(fd);
                if (!d) return E.BADF;
                if (d.kind === 'dir') return E.ISDIR;
                const v = view();
                let total = 0;
                for (let i = 0; i < n; i++) {
                    const ptr = v.getUint32(iovs + 8 * i, true), len = v.getUint32(iovs + 8 * i + 4, true);
                    const chunk = bytes().slice(ptr, ptr + len);
                    if (d.kind === 'std') {
                        if (fd === 1 && opts.stdout) opts.stdout(chunk);
                        if (fd === 2 && opts.stderr) opts.stderr(chunk);
                        if (fd === 0) return E.BADF;
                    } else {
                        if (d.append) d.pos = size(d.path);
                        const end = d.pos + len;
                        const b = grow(d.path, end);
                        b.set(chunk, d.pos);
                        fs.set(d.path, b);
                        sizes.set(d.path, Math.max(size(d.path), end));
                        d.pos = end;
                    }
                    total += len;
                }
                v.setUint32(out, total, true);
                return 0;
            },
            fd_seek(fd, offset, whence, out) {
                const d = fds.get(fd);
                if (!d) return E.BADF;
                if (d.kind !== 'file') return E.SPIPE;
                const base = whence === 0 ? 0 : whence === 1 ? d.pos : size(d.path);
                const pos = base + Number(offset);
                if (pos < 0) return E.INVAL;
                d.pos = pos;
                view().setBigUint64(out, BigInt(pos), true);
                return 0;
            },
            fd_tell(fd, out) {
                const d = fds.get(fd);
                if (!d || d.kind !== 'file') return E.BADF;
                view().setBigUint64(out, BigInt(d.pos), true);
                return 0;
            },
            fd_readdir(fd, buf, len, cookie, out) {
                const d = fds.get(fd);
                if (!d || d.kind !== 'dir') return E.BADF;
                const prefix = d.path === '/' ? '/' : d.path + '/';
                const names = [];
                for (const p of [...dirs, ...fs.keys()])
                    if (p !== d.path && p.startsWith(prefix) && !p.slice(prefix.length).includes('/'))
                        names.push([p.slice(prefix.length), dirs.has(p) ? FT.DIR : FT.FILE, p]);
                names.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
                let used = 0;
                const v = view();
                for (let i = Number(cookie); i < names.length; i++) {
                    const name = enc.encode(names[i][0]);
                    const ent = new Uint8Array(24 + name.length);
                    const ev = new DataView(ent.buffer);
                    ev.setBigUint64(0, BigInt(i + 1), true);
                    ev.setBigUint64(8, BigInt(inode(names[i][2])), true);
                    ev.setUint32(16, name.length, true);
                    ev.setUint8(20, names[i][1]);
                    ent.set(name, 24);
                    const room = len - used;
                    bytes().set(ent.subarray(0, Math.min(room, ent.length)), buf + used);
                    used += Math.min(room, ent.length);
                    if (used >= len) break;
                }
                v.setUint32(out, used, true);
                return 0;
            },
            path_create_directory(dirfd, ptr, len) {
                const p = resolve(dirfd, ptr, len);
                if (p === null) return E.BADF;
                if (stat(p)) return E.EXIST;
                if (!dirs.has(parent(p))) return E.NOENT;
                dirs.add(p);
                return 0;
            },
            path_remove_directory(dirfd, ptr, len) {
                const p = resolve(dirfd, ptr, len);
                if (p === null) return E.BADF;
                if (!dirs.has(p)) return stat(p) ? E.NOTDIR : E.NOENT;
                for (const q of [...dirs, ...fs.keys()]) if (q.startsWith(p + '/')) return E.NOTEMPTY;
                dirs.delete(p);
                return 0;
            },
            path_unlink_file(dirfd, ptr, len) {
                const p = resolve(dirfd, ptr, len);
                if (p === null) return E.BADF;
                if (dirs.has(p)) return E.ISDIR;
                if (!fs.has(p)) return E.NOENT;
                fs.delete(p); sizes.delete(p);
                return 0;
            },
            path_rename(fd1, p1, l1, fd2, p2, l2) {
                const a = resolve(fd1, p1, l1), b = resolve(fd2, p2, l2);
                if (a === null || b === null) return E.BADF;
                if (!fs.has(a)) return dirs.has(a) ? E.NOTSUP : E.NOENT;
                if (dirs.has(b)) return E.ISDIR;
                if (!dirs.has(parent(b))) return E.NOENT;
                fs.set(b, fs.get(a)); if (sizes.has(a)) sizes.set(b, sizes.get(a)); else sizes.delete(b);
                fs.delete(a); sizes.delete(a);
                return 0;
            },
            path_readlink() { return E.INVAL; },
            path_symlink() { return E.NOTSUP; },
            path_link() { return E.NOTSUP; },
            path_filestat_set_times() { return 0; },
            fd_filestat_set_times() { return 0; },
            poll_oneoff() { return E.NOTSUP; },
            proc_raise() { return E.NOSYS; },
            sock_accept() { return E.NOSYS; },
            sock_recv() { return E.NOSYS; },
            sock_send() { return E.NOSYS; },
            sock_shutdown() { return E.NOSYS; },
            fd_renumber() { return E.NOSYS; },
        };
        // (asynchronous: a browser refuses to instantiate a large module synchronously
        // on its main thread)
        const instance = await WebAssembly.instantiate(module, { wasi_snapshot_preview1: wasi });
        memory = instance.exports.memory;
        let code = 0;
        try {
            instance.exports._start();
        } catch (e) {
            if (e instanceof Exit) code = e.code;
            else throw e;
        }
        const files = new Map();
        for (const p of fs.keys()) files.set(p, content(p).slice());
        return { code, files, dirs: [...dirs] };
    }

    const api = { runWasi };
    if (typeof module !== 'undefined' && module.exports) module.exports = api;
    else root.AttnWasi = api;
})(typeof self !== 'undefined' ? self : this);
