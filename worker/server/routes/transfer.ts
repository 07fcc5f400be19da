// GET /api/export and POST /api/import.
import type { Hono } from 'hono';
import type { ExportDocument, ImportResponse } from '../../../common/contract';
import { exportMemory, importChunked, parseImportYielding } from '../../transfer';
import type { AppContext } from '../context';
import { jsonBody } from '../http';

export function transferRoutes(app: Hono, ctx: AppContext): void {
  app.get('/api/export', (c) => {
    const project = c.req.query('project') || undefined;
    const doc = exportMemory(ctx.store, project);
    c.header('Content-Disposition', `attachment; filename="claude-mem-${project ? project.replace(/[^\w.-]/g, '_') : 'all'}.json"`);
    return c.json(doc satisfies ExportDocument);
  });

  app.post('/api/import', async (c) => {
    const sessions = await parseImportYielding(await jsonBody(c));
    const imported = await importChunked(ctx.store, sessions);
    if (imported.observations > 0) ctx.events.emit('observations_imported', { count: imported.observations });
    return c.json({ imported } satisfies ImportResponse);
  });
}
