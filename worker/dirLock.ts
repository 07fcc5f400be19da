// One writer per data dir, whatever the port and whatever happens to worker.pid: a listening socket
// whose address is derived from the data dir, held for the worker's life. Binding is atomic and the
// kernel closes the socket when the process dies (a SIGKILL included), so no stale lock can outlive
// a worker and no second worker can bind while one lives. worker.pid (./lock.ts) stays what
// clients read (pid, port, spool); this is the guard.
//
//   Linux:   an abstract unix socket, "\0claude-mem-vscode/data-dir/<sha256 of the data dir's
//            device and inode>", padded to fill sun_path (107 bytes after the NUL) so every libuv
//            names it alike (some pad the address, some do not). Two paths to one folder (a
//            symlink) are one lock. No file, so nothing stale.
//   Windows: a named pipe, \\.\pipe\claude-mem-vscode-<sha256 of the resolved path, lower case>;
//            the first instance is exclusive.
//   macOS and other POSIX: a socket file, <dataDir>/worker.sock. A file outlives its process: one
//            whose connect is refused is stale, and is removed and bound again.
//
// The holder answers each connection with one JSON line {pid, port}, so a refused starter can say
// who holds the data dir and where it listens.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';

export interface LockHolder {
  pid?: number;
  port?: number;
}

export type DirLockResult =
  | { ok: true; address: string; setPort(port: number): void; release(): void }
  | { ok: false; address: string; holder?: LockHolder; why: string };

/** sun_path is 108 bytes on Linux: a NUL, then 107 bytes of name. */
const ABSTRACT_NAME_BYTES = 107;

/** The lock's socket address for a data dir (which must exist). */
export function dirLockAddress(dataDir: string, platform: NodeJS.Platform = process.platform): string {
  if (platform === 'linux') {
    const st = fs.statSync(dataDir, { bigint: true });
    const id = createHash('sha256').update(`${st.dev}:${st.ino}`).digest('hex');
    return `\0${`claude-mem-vscode/data-dir/${id}`.padEnd(ABSTRACT_NAME_BYTES, '.')}`;
  }
  if (platform === 'win32') {
    const id = createHash('sha256').update(fs.realpathSync(dataDir).toLowerCase()).digest('hex');
    return `\\\\.\\pipe\\claude-mem-vscode-${id}`;
  }
  return path.join(dataDir, 'worker.sock');
}

/** A printable form of the address for messages ("@" for the abstract namespace's NUL). */
export function showAddress(address: string): string {
  return address.startsWith('\0') ? `@${address.slice(1).replace(/\.+$/, '')}` : address;
}

function listen(server: net.Server, address: string): Promise<NodeJS.ErrnoException | undefined> {
  return new Promise((resolve) => {
    const onError = (e: NodeJS.ErrnoException) => resolve(e);
    server.once('error', onError);
    server.listen(address, () => {
      server.off('error', onError);
      resolve(undefined);
    });
  });
}

/** What the holder says about itself; `refused` when nothing listens (a stale socket file). */
export function askHolder(address: string, timeoutMs = 1000): Promise<{ holder?: LockHolder; refused?: boolean }> {
  return new Promise((resolve) => {
    let text = '';
    const c = net.connect(address);
    const done = (v: { holder?: LockHolder; refused?: boolean }) => {
      clearTimeout(t);
      c.destroy();
      resolve(v);
    };
    const t = setTimeout(() => done({}), timeoutMs);
    c.setEncoding('utf8');
    c.on('data', (d: string) => {
      text += d;
      const nl = text.indexOf('\n');
      if (nl < 0 && text.length < 4096) return;
      try {
        const v = JSON.parse(text.slice(0, nl < 0 ? undefined : nl)) as { pid?: unknown; port?: unknown };
        done({ holder: { pid: typeof v.pid === 'number' ? v.pid : undefined, port: typeof v.port === 'number' ? v.port : undefined } });
      } catch {
        done({});
      }
    });
    c.on('end', () => done({}));
    c.on('error', (e: NodeJS.ErrnoException) => done({ refused: e.code === 'ECONNREFUSED' || e.code === 'ENOENT' }));
  });
}

/** Takes the data dir's lock, or says who holds it. */
export async function holdDirLock(dataDir: string, platform: NodeJS.Platform = process.platform): Promise<DirLockResult> {
  const address = dirLockAddress(dataDir, platform);
  let port = 0;
  for (let attempt = 0; attempt < 2; attempt++) {
    const server = net.createServer((c) => {
      c.on('error', () => {});
      c.end(`${JSON.stringify({ pid: process.pid, port })}\n`);
    });
    const err = await listen(server, address);
    if (!err) {
      server.unref(); // the lock never keeps the process alive by itself
      return {
        ok: true,
        address,
        setPort: (p) => {
          port = p;
        },
        release: () => {
          server.close(); // a socket file is removed by close
        },
      };
    }
    if (err.code !== 'EADDRINUSE') return { ok: false, address, why: `cannot bind ${showAddress(address)} (${err.message})` };
    const asked = await askHolder(address);
    if (asked.holder) return { ok: false, address, holder: asked.holder, why: 'held' };
    const isFile = !address.startsWith('\0') && !address.startsWith('\\\\');
    if (!(asked.refused && isFile)) return { ok: false, address, why: `${showAddress(address)} is bound by a process that does not say who it is` };
    // A socket file nobody listens on: its worker died. Remove it and bind again (once).
    try {
      fs.unlinkSync(address);
    } catch {
      /* another starter removed it first */
    }
  }
  return { ok: false, address, why: `${showAddress(address)} was taken while this worker started` };
}
