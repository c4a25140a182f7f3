# includes.awk — the project's include graph, from the lines of
#     grep -H '^[ \t]*#[ \t]*include[ \t]*"' FILES...
# An include "x" is the file x from the top of the tree (the build's -I.), or
# else x beside the including file. With -v from=FILE it prints every project
# file FILE reaches, one a line; with -v cycles=1 it prints one include cycle
# ("a -> b -> a") if there is one, else nothing. With -v modules=1 a file's
# .c and .h are one node (x.c including y.h and y.c including x.h is the
# cycle x -> y -> x: two files that need each other).
function dirname(p) { return p ~ /\// ? substr(p, 1, match(p, /\/[^\/]*$/) - 1) : "." }
function exists(p,   line, r) { r = (getline line < p); close(p); return r >= 0 }
function norm(p,   n, parts, out, i, k) {   # drop "./" and "dir/.."
    n = split(p, parts, "/"); k = 0
    for (i = 1; i <= n; i++) {
        if (parts[i] == "." || parts[i] == "") continue
        if (parts[i] == ".." && k > 0 && out[k] != "..") { k--; continue }
        out[++k] = parts[i]
    }
    p = ""; for (i = 1; i <= k; i++) p = p (i > 1 ? "/" : "") out[i]
    return p
}
{
    file = $0; sub(/:.*/, "", file)
    inc = $0; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
    target = exists(inc) ? norm(inc) : norm(dirname(file) "/" inc)
    file = norm(file)
    if (modules) { sub(/\.[ch]$/, "", file); sub(/\.[ch]$/, "", target); if (file == target) next }
    edges[file] = edges[file] " " target
}
function visit(f,   n, t, i) {
    if (f in seen) return
    seen[f] = 1
    n = split(edges[f], t, " ")
    for (i = 1; i <= n; i++) { if (!(t[i] in seen)) print t[i]; visit(t[i]) }
}
function dfs(f, path,   n, t, i) {
    if (state[f] == 1) { found = path; return 1 }
    if (state[f] == 2) return 0
    state[f] = 1
    n = split(edges[f], t, " ")
    for (i = 1; i <= n; i++) if (dfs(t[i], path " -> " t[i])) return 1
    state[f] = 2
    return 0
}
END {
    if (from != "") { visit(norm(from)); exit }
    if (cycles) for (f in edges) if (dfs(f, f)) {
        # found is the path that came back to its last node: print from its first visit
        last = found; sub(/.* -> /, "", last)
        print substr(found, index(found, last " -> "))
        exit
    }
}
