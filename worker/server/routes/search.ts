// Route group for the search module; filled in by its issue. Registered in worker/server/routes/index.ts.
import type { Hono } from 'hono';
import type { AppContext } from '../context';

export function searchRoutes(_app: Hono, _ctx: AppContext): void {
  /* no routes yet */
}
