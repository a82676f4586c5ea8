// Static server for the demo: serves what the page loads (web/, dist/, models/ and the package's
// wasm/*.js modules) on 127.0.0.1 with the strict Content-Security-Policy the page must live under.
// Only GET and HEAD, only for a local Host (a page elsewhere cannot reach it by DNS rebinding), only
// files whose real path (symlinks resolved) is inside an allowed place; no request can stop it.
// Usage: node scripts/serve.mjs [--port N]   (N = 0 picks a free port)
import http from 'node:http';
import { open, realpath } from 'node:fs/promises';
import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = realpathSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'));
// Folders served whole, and from wasm/ (which also holds bindings.cpp and its CMakeLists.txt) only the
// package's scripts, as package.json's `files` lists them.
const FOLDERS = ['web', 'dist', 'models'];
const FILES = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).files.filter((f) => /^wasm\/.*\.js$/.test(f));
export const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.css': 'text/css', '.wasm': 'application/wasm', '.json': 'application/json', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.safetensors': 'application/octet-stream', '.md': 'text/markdown; charset=utf-8',
};
export const CSP = [
  "default-src 'self'", "script-src 'self' 'wasm-unsafe-eval'", "style-src 'self'", "img-src 'self' data: blob:",
  "connect-src 'self'", "worker-src 'self'", "object-src 'none'", "base-uri 'none'", "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
const COMMON = { 'Content-Security-Policy': CSP, 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-cache' };
const METHODS = ['GET', 'HEAD'];
// The names this machine answers to; anything else in Host is another site's name pointed at us.
const LOCAL_HOSTS = ['127.0.0.1', 'localhost', '[::1]'];

/** Whether a Host header names this server: a local name, with no port or the port it listens on. */
export function localHost(host, port) {
  if (typeof host !== 'string') return false;
  const m = /^(\[[^\]]*\]|[^:]*)(?::(\d+))?$/.exec(host.toLowerCase());
  return !!m && LOCAL_HOSTS.includes(m[1]) && (m[2] === undefined || Number(m[2]) === port);
}

/** Whether a path relative to the repository (with '/' separators) may be served. */
function allowedPath(rel, folders) {
  return FILES.includes(rel) || folders.some((f) => rel.startsWith(f + '/'));
}

function plain(res, status, text, headers = {}) {
  res.writeHead(status, { ...COMMON, 'Content-Type': 'text/plain; charset=utf-8', ...headers });
  res.end(text + '\n');
}

// options.allow: extra top-level folders to serve (the browser tests add 'tests').
export function createServer(options = {}) {
  const folders = [...FOLDERS, ...(options.allow ?? [])];
  const server = http.createServer(async (req, res) => {
    try {
      await answer(req, res, folders);
    } catch (e) {  // a bug here must cost one request, never the server
      if (!res.headersSent) plain(res, 500, `internal error: ${e?.message ?? String(e)}`);
      else res.destroy();
    }
  });
  // Node answers malformed requests (and a 20 KB header: 431) itself; with the same headers as ours.
  server.on('clientError', (err, socket) => {
    if (!socket.writable) return socket.destroy();
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    const head = Object.entries({ ...COMMON, 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' })
      .map(([k, v]) => `${k}: ${v}\r\n`).join('');
    socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n${head}\r\n`);
  });
  return server;
}

async function answer(req, res, folders) {
  if (!localHost(req.headers.host, req.socket.localPort))
    return plain(res, 403, `this server answers only to ${LOCAL_HOSTS.join(', ')} (Host was ${JSON.stringify(req.headers.host ?? '')})`);
  if (!METHODS.includes(req.method)) return plain(res, 405, `method ${req.method} not allowed`, { Allow: METHODS.join(', ') });
  // Origin-form targets only ("/path?query"); the path is percent-decoded, which may fail.
  const target = req.url ?? '';
  if (!target.startsWith('/')) return plain(res, 400, 'bad request target');
  let rel;
  try {
    rel = decodeURIComponent(target.split(/[?#]/, 1)[0]);
  } catch {
    return plain(res, 400, 'bad percent-encoding in the path');
  }
  if (rel.includes('\0')) return plain(res, 400, 'a NUL byte in the path');
  if (rel === '/' || rel === '/index.html') {
    res.writeHead(302, { ...COMMON, Location: '/web/' });
    return res.end();
  }
  if (rel.endsWith('/')) rel += 'index.html';
  const notFound = () => plain(res, 404, 'not found');
  const file = path.resolve(ROOT, '.' + rel);
  const inside = (f) => f.startsWith(ROOT + path.sep) && allowedPath(path.relative(ROOT, f).split(path.sep).join('/'), folders);
  if (!inside(file)) return notFound();
  // The real path too: a symlink in an allowed folder must not lead out of it.
  let real;
  try {
    real = await realpath(file);
  } catch {
    return notFound();
  }
  if (!inside(real)) return notFound();
  let fh;
  try {
    fh = await open(real, 'r');
  } catch {
    return notFound();
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) return notFound();
    const head = { ...COMMON, 'Content-Type': TYPES[path.extname(real)] ?? 'application/octet-stream', 'Content-Length': st.size };
    if (req.method === 'HEAD') {
      res.writeHead(200, head);
      return res.end();
    }
    const body = await fh.readFile();
    res.writeHead(200, { ...head, 'Content-Length': body.length });
    res.end(body);
  } finally {
    await fh.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--port');
  const port = i > 0 ? Number(process.argv[i + 1]) : Number(process.env.PORT ?? 8080);
  const server = createServer();
  server.listen(port, '127.0.0.1', () => {
    console.log(`attnseq demo: http://127.0.0.1:${server.address().port}/web/`);
  });
}
