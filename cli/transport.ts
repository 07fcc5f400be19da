// A TCP connection for the CLI's HTTP client, over node:net (public APIs only: Node's internal
// bindings can change under any Node or Electron update). The hand-written HTTP/1.1 in ./client
// still spares a hook `node:http` and its parser.

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

/**
 * Opens a connection. Handlers are only ever called asynchronously (after this returns); the caller
 * guards against more than one of end/error.
 */
export function openConnection(host: string, port: number, h: ConnHandlers): Conn {
  // require, not import(): dist/cli-main.js runs in a vm.Script (see loader.ts), where import() has no loader.
  const { connect } = require('node:net') as typeof import('node:net');
  const sock = connect({ host: host.replace(/^\[|\]$/g, ''), port });
  sock.setNoDelay(true);
  sock.on('connect', () => h.onConnect());
  sock.on('data', (c: Buffer) => h.onData(c));
  sock.on('end', () => h.onEnd());
  sock.on('close', () => h.onEnd());
  sock.on('error', (e: NodeJS.ErrnoException) => h.onError(e.code ?? 'ECONNERROR', e.message));
  return { write: (d) => void sock.write(d, 'utf8'), close: () => void sock.destroy() };
}
