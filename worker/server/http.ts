// Small helpers shared by route files: JSON bodies and error mapping.
import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import { BadRequest } from '../../common/contract';
import { cleanIncoming } from '../../common/privacy/incoming';
import { StoreUnavailableError } from '../store/store';
import type { Logger } from '../../common/node/log';

/** Per-request body caps, set by the app's middleware (import has a bigger one than other routes). */
const bodyCaps = new WeakMap<Context, number>();
export function setBodyCap(c: Context, max: number): void {
  bodyCaps.set(c, max);
}

/**
 * The request body as text, capped. Reads the Node request directly: going through the web
 * Request (as hono's bodyLimit does) builds a ReadableStream and an AbortSignal per request,
 * which cost more than the rest of an ingest request together.
 */
export async function bodyText(c: Context): Promise<string> {
  const max = bodyCaps.get(c) ?? Infinity;
  const env = c.env as { incoming?: IncomingMessage; spoolBody?: string } | undefined;
  // A spool request's body (server/spool.ts) comes beside its Request, which has none.
  if (typeof env?.spoolBody === 'string') {
    if (Buffer.byteLength(env.spoolBody) > max) throw new BadRequest(`request body is larger than ${max} bytes`, 413);
    return env.spoolBody;
  }
  const incoming = env?.incoming;
  if (!incoming) {
    const text = await c.req.text();
    if (Buffer.byteLength(text) > max) throw new BadRequest(`request body is larger than ${max} bytes`, 413);
    return text;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of incoming as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > max) {
        incoming.resume(); // drain the rest so the connection can answer
        throw new BadRequest(`request body is larger than ${max} bytes`, 413);
      }
      chunks.push(chunk);
    }
  } catch (e) {
    if (e instanceof BadRequest) throw e;
    throw new AbortedUpload(`${c.req.method} ${c.req.path}: the client went away during the upload (${size} bytes read; ${(e as Error).message})`);
  }
  return (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString('utf8');
}

/** The client closed the connection mid-body: nothing to answer, one log line, no stack. */
export class AbortedUpload extends BadRequest {}

export async function jsonBody(c: Context): Promise<unknown> {
  const text = await bodyText(c);
  if (text.trim() === '') throw new BadRequest('request body is empty; send a JSON object');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new BadRequest('malformed JSON body');
  }
}

/** A JSON body from outside through the privacy gate (common/privacy/incoming.ts): for routes that store what they are sent. */
export async function incomingBody(c: Context): Promise<unknown> {
  return cleanIncoming(await jsonBody(c)).value;
}

export function errorResponse(c: Context, e: unknown, log: Logger): Response {
  if (e instanceof AbortedUpload) {
    log.warn(e.message);
    return c.json({ error: e.message }, 400);
  }
  if (e instanceof BadRequest) return c.json({ error: e.message }, e.status as 400);
  if (e instanceof StoreUnavailableError) return c.json({ error: e.message }, 503);
  const msg = e instanceof Error ? e.message : String(e);
  if (/body.*(too large|limit)/i.test(msg)) return c.json({ error: 'request body too large' }, 413);
  log.error(`unhandled error on ${c.req.method} ${c.req.path}: ${msg}`, { stack: e instanceof Error ? e.stack : undefined });
  return c.json({ error: 'internal error; see the worker log' }, 500);
}

export function positiveId(raw: string, what = 'id'): number {
  if (!/^\d{1,15}$/.test(raw) || Number(raw) <= 0) throw new BadRequest(`${what} must be a positive integer`);
  return Number(raw);
}
