// Small helpers shared by route files: JSON bodies and error mapping.
import type { Context } from 'hono';
import { BadRequest } from '../protocol';
import { StoreUnavailableError } from '../store/store';
import type { Logger } from '../log';

export async function jsonBody(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === '') throw new BadRequest('request body is empty; send a JSON object');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new BadRequest('malformed JSON body');
  }
}

export function errorResponse(c: Context, e: unknown, log: Logger): Response {
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
