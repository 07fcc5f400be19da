// Process, HTTP and measurement helpers shared by both sides of the comparison.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * A keep-alive JSON client for one worker; `token` adds the bearer header. A request sent on a
 * kept-alive socket the server had just closed (its idle timeout: bun closes one after 10 s, e.g.
 * while a bench lets a worker settle) fails with EPIPE (or ECONNRESET) before the server saw it;
 * that one request is sent again on a new socket (Node's documented `reusedSocket` retry: EPIPE
 * for any request, ECONNRESET for a GET only, so an import is never sent twice), any other error
 * rejects. `retried` counts those resends.
 */
export function client(port, token) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const stats = { retried: 0 };
  const req = (method, path, body, timeoutMs = 30_000, isRetry = false) =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
      const headers = { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}) };
      const r = http.request({ host: '127.0.0.1', port, method, path, agent, headers, timeout: timeoutMs }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            /* text */
          }
          resolve({ status: res.statusCode, body: parsed, text, headers: res.headers });
        });
        res.on('error', reject);
      });
      r.on('timeout', () => r.destroy(new Error(`${method} ${path} timed out after ${timeoutMs} ms`)));
      r.on('error', (e) => {
        if (!isRetry && r.reusedSocket && (e.code === 'EPIPE' || (e.code === 'ECONNRESET' && method === 'GET'))) {
          stats.retried++;
          resolve(req(method, path, body, timeoutMs, true));
        } else reject(e);
      });
      r.end(payload);
    });
  return { req: (method, path, body, timeoutMs) => req(method, path, body, timeoutMs), close: () => agent.destroy(), stats };
}

/** Polls GET path on port until accept(res) or the deadline; resolves ms since t0, or rejects. */
export async function waitFor(port, path, accept, { t0 = performance.now(), timeoutMs = 60_000, intervalMs = 15, proc } = {}) {
  const c = client(port);
  try {
    for (;;) {
      if (proc && proc.exitCode !== null) throw new Error(`process exited (${proc.exitCode}) before ${path} answered`);
      try {
        const r = await c.req('GET', path, undefined, 1000);
        if (accept(r)) return performance.now() - t0;
      } catch {
        /* not up yet */
      }
      if (performance.now() - t0 > timeoutMs) throw new Error(`${path} on port ${port} not ready after ${timeoutMs} ms`);
      await sleep(intervalMs);
    }
  } finally {
    c.close();
  }
}

/** Spawns a long-running process in its own process group, output to a log file. */
export function spawnLogged(cmd, args, { env, cwd, log }) {
  const fd = fs.openSync(log, 'a');
  const proc = spawn(cmd, args, { env, cwd, stdio: ['ignore', fd, fd], detached: true });
  fs.closeSync(fd);
  return proc;
}

/** SIGTERM the process group we created, then SIGKILL it if it is still there after graceMs. */
export async function stopGroup(proc, graceMs = 10_000) {
  if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((r) => proc.once('exit', r));
  try {
    process.kill(-proc.pid, 'SIGTERM');
  } catch {
    /* gone */
  }
  const t = setTimeout(() => {
    try {
      process.kill(-proc.pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }, graceMs);
  await exited;
  clearTimeout(t);
  // Anything the worker left behind in its group (helpers it spawned) goes too.
  try {
    process.kill(-proc.pid, 'SIGKILL');
  } catch {
    /* none left */
  }
}

/** The pids of a process and all its descendants, the root first (Linux /proc). */
export function treePids(rootPid) {
  const children = new Map();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(d));
    } catch {
      /* raced with exit */
    }
  }
  const out = [];
  const stack = [rootPid];
  while (stack.length) {
    const pid = stack.pop();
    out.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** Resident memory of a process and all its descendants, bytes (Linux /proc). */
export function treeRss(rootPid) {
  let total = 0;
  let count = 0;
  for (const pid of treePids(rootPid)) {
    try {
      const kb = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
      total += kb * 1024;
      count++;
    } catch {
      /* gone */
    }
  }
  return { bytes: total, processes: count };
}

/** Runs one short-lived command with stdin; resolves wall time (ms), exit code, stdout, stderr. */
export function timed(cmd, args, { env, input, cwd, timeoutMs = 120_000 }) {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const p = spawn(cmd, args, { env, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    const out = [];
    const err = [];
    p.stdout.on('data', (c) => out.push(c));
    p.stderr.on('data', (c) => err.push(c));
    const timer = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
    p.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ ms: performance.now() - t0, code: code ?? (signal ? 128 : -1), stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
    p.on('error', (e) => {
      clearTimeout(timer);
      resolve({ ms: performance.now() - t0, code: -1, stdout: '', stderr: String(e) });
    });
    p.stdin.on('error', () => {});
    p.stdin.end(input ?? '');
  });
}

export function pct(values, p) {
  if (!values.length) return NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

export const median = (v) => pct(v, 50);

/** Runs `total` calls of fn with `concurrency` in flight; latencies (ms) of the successful ones, failures counted. */
export async function loadRun(fn, total, concurrency, stop = () => false) {
  const lat = [];
  let failures = 0;
  let firstError;
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total && !stop()) {
        const i = next++;
        const s = performance.now();
        try {
          const r = await fn(i);
          if (r.status >= 300) {
            failures++;
            firstError ??= `${r.status} ${typeof r.body === 'string' ? r.body.slice(0, 200) : JSON.stringify(r.body).slice(0, 200)}`;
            continue;
          }
          lat.push(performance.now() - s);
        } catch (e) {
          failures++;
          firstError ??= String(e);
        }
      }
    }),
  );
  const wall = performance.now() - t0;
  return { lat, wall, rps: lat.length / (wall / 1000), failures, firstError };
}

/** CPU time (ms) used by a process tree so far: utime + stime of each, from /proc (Linux). */
export function treeCpuMs(rootPid) {
  const tick = 1000 / 100; // USER_HZ is 100 on Linux
  let total = 0;
  for (const pid of treePids(rootPid)) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += (Number(f[11]) + Number(f[12])) * tick;
    } catch {
      /* raced with exit */
    }
  }
  return total;
}
