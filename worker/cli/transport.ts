// A TCP connection for the CLI's HTTP client, in two implementations behind one shape.
//
// The hook path runs once per tool call, so its start-up cost is the product. Loading `node:net`
// (and the stream machinery under it) and driving a net.Socket costs a hook about as many
// instructions as the rest of its work together (measured with callgrind: bare node ~88M, a
// request over net.Socket +25M, the same request over the TCP binding +4M). So the default drives
// Node's own TCP handle directly, the way lib/net.js does, and falls back to `node:net` when that
// binding is missing or looks different (another Node or Electron), for a host name that needs DNS,
// or when CLAUDE_MEM_HTTP_NET=1.

export interface Conn {
  /** Writes the text as UTF-8. */
  write(data: string): void;
  close(): void;
}

export interface ConnHandlers {
  onConnect(): void;
  /** Bytes as read; the array is the caller's (not reused by the connection). */
  onData(chunk: Uint8Array): void;
  /** The peer closed its side. */
  onEnd(): void;
  onError(code: string, message: string): void;
}

/** The shape of Node's internal bindings this uses (stable since Node 12; checked at run time). */
interface TcpHandle {
  connect(req: object, address: string, port: number): number;
  connect6(req: object, address: string, port: number): number;
  writeUtf8String(req: object, data: string): number;
  readStart(): number;
  close(cb?: () => void): void;
  /** Native setter: only ever assign a function (anything else aborts the process). */
  onread: (ab: ArrayBuffer) => void;
}
interface Raw {
  TCP: new (type: number) => TcpHandle;
  TCPConnectWrap: new () => { oncomplete?: (status: number) => void; address?: string; port?: number };
  socketType: number;
  WriteWrap: new () => { handle?: TcpHandle; oncomplete?: (status: number) => void; async?: boolean; buffer?: unknown };
  streamBaseState: Int32Array;
  kReadBytesOrError: number;
  kArrayBufferOffset: number;
  UV_EOF: number;
}

let raw: Raw | null | undefined;
const noop = (): void => undefined;
/** Node majors whose TCP binding this was tested against; others use node:net. */
const TESTED_MAJORS = new Set([20, 22, 24]);

function rawBindings(): Raw | null {
  if (raw !== undefined) return raw;
  raw = null;
  if (process.env.CLAUDE_MEM_HTTP_NET === '1') return raw;
  if (!TESTED_MAJORS.has(Number(process.versions.node.split('.')[0]))) return raw;
  try {
    const binding = (process as unknown as { binding(name: string): Record<string, unknown> }).binding;
    const tcp = binding('tcp_wrap');
    const sw = binding('stream_wrap');
    const consts = tcp.constants as Record<string, unknown> | undefined;
    const ok =
      typeof tcp.TCP === 'function' &&
      typeof tcp.TCPConnectWrap === 'function' &&
      typeof consts?.SOCKET === 'number' &&
      typeof sw.WriteWrap === 'function' &&
      sw.streamBaseState instanceof Int32Array &&
      typeof sw.kReadBytesOrError === 'number' &&
      typeof sw.kArrayBufferOffset === 'number';
    if (!ok) return raw;
    const proto = (tcp.TCP as { prototype: Record<string, unknown> }).prototype;
    if (!['connect', 'connect6', 'writeUtf8String', 'readStart', 'close'].every((m) => typeof proto[m] === 'function')) return raw;
    raw = {
      TCP: tcp.TCP as Raw['TCP'],
      TCPConnectWrap: tcp.TCPConnectWrap as Raw['TCPConnectWrap'],
      socketType: consts!.SOCKET as number,
      WriteWrap: sw.WriteWrap as Raw['WriteWrap'],
      streamBaseState: sw.streamBaseState as Int32Array,
      kReadBytesOrError: sw.kReadBytesOrError as number,
      kArrayBufferOffset: sw.kArrayBufferOffset as number,
      // libuv's UV_EOF is UV__EOF, -4095, on every platform (uv/errno.h). Not read from
      // process.binding('uv'): building that binding's error table costs a hook ~0.7 M instructions.
      UV_EOF: -4095,
    };
  } catch {
    raw = null;
  }
  return raw;
}

/** libuv status (negative) -> "ECONNREFUSED". Error path only, so node:util loads only then. */
function errName(status: number): string {
  try {
    return (require('node:util') as typeof import('node:util')).getSystemErrorName(status);
  } catch {
    return `E${-status}`;
  }
}

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

function rawConnect(r: Raw, host: string, port: number, h: ConnHandlers): Conn | undefined {
  const v6 = host.includes(':');
  if (!v6 && !IPV4.test(host)) return undefined; // a name: let net resolve it
  const handle = new r.TCP(r.socketType);
  let closed = false;
  const pending = new Set<object>(); // write requests stay referenced until they complete
  const close = () => {
    if (closed) return;
    closed = true;
    handle.onread = noop;
    handle.close();
  };
  const fail = (status: number, what: string) => {
    if (closed) return;
    const code = errName(status);
    close();
    h.onError(code, `${what} ${host}:${port}: ${code}`);
  };
  handle.onread = (ab: ArrayBuffer) => {
    const n = r.streamBaseState[r.kReadBytesOrError];
    // Each read gets a fresh ArrayBuffer (lib/internal/stream_base_commons.js wraps it uncopied too).
    if (n > 0) h.onData(new Uint8Array(ab, r.streamBaseState[r.kArrayBufferOffset], n));
    else if (n === r.UV_EOF) {
      close();
      h.onEnd();
    } else if (n < 0) fail(n, 'read from');
  };
  const req = new r.TCPConnectWrap();
  req.address = host;
  req.port = port;
  req.oncomplete = (status: number) => {
    if (closed) return;
    if (status < 0) return fail(status, 'connect');
    const err = handle.readStart();
    if (err) return fail(err, 'read from');
    h.onConnect();
  };
  const err = v6 ? handle.connect6(req, host, port) : handle.connect(req, host, port);
  if (err) {
    // Report asynchronously, like a socket would.
    setImmediate(() => fail(err, 'connect'));
  }
  return {
    write(data: string) {
      if (closed) return;
      const w = new r.WriteWrap();
      w.handle = handle;
      w.buffer = data;
      w.async = false;
      pending.add(w);
      w.oncomplete = (status: number) => {
        pending.delete(w);
        if (status < 0) fail(status, 'write to');
      };
      // One call into C++ that encodes and writes (no Buffer.from/concat on the way: each costs a
      // hook the first-call compile of its JavaScript).
      const e = handle.writeUtf8String(w, data);
      if (e) {
        pending.delete(w);
        fail(e, 'write to');
      }
    },
    close,
  };
}

function netConnect(host: string, port: number, h: ConnHandlers): Conn {
  // require, not import(): dist/cli-main.js runs in a vm.Script (see loader.ts), where import() has no loader.
  const { connect } = require('node:net') as typeof import('node:net');
  const sock = connect({ host, port });
  sock.on('connect', () => h.onConnect());
  sock.on('data', (c: Buffer) => h.onData(c));
  sock.on('end', () => h.onEnd());
  sock.on('close', () => h.onEnd());
  sock.on('error', (e: NodeJS.ErrnoException) => h.onError(e.code ?? 'ECONNERROR', e.message));
  return { write: (d) => void sock.write(d, 'utf8'), close: () => void sock.destroy() };
}

/**
 * Opens a connection. Handlers are only ever called asynchronously (after this returns); the caller
 * guards against more than one of end/error.
 */
export function openConnection(host: string, port: number, h: ConnHandlers): Conn {
  const bare = host.replace(/^\[|\]$/g, '');
  const r = rawBindings();
  if (r) {
    try {
      const c = rawConnect(r, bare, port, h);
      if (c) return c;
    } catch {
      raw = null; // this runtime's binding is not what we expect: use net from now on
    }
  }
  return netConnect(bare, port, h);
}

/** Which transport a request to this host would use (for diagnostics and tests). */
export function transportFor(host: string): 'tcp_wrap' | 'net' {
  const bare = host.replace(/^\[|\]$/g, '');
  return rawBindings() && (bare.includes(':') || IPV4.test(bare)) ? 'tcp_wrap' : 'net';
}
