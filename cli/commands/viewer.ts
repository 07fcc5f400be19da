// claude-mem viewer [--print]: opens the browser viewer (prints its URL with --print or without a
// TTY). The URL carries a single-use code that expires in a minute, obtained with the token over an
// authenticated POST: the long-lived token never goes on a command line, in history or in a URL.
import { request, targetFromEnv } from '../client';
import { ensureWorker, portProblem } from '../startStop';

export async function runViewer(args: string[]): Promise<number> {
  const t = targetFromEnv();
  const h = await ensureWorker(t, 20_000);
  if (!h) {
    process.stderr.write(`claude-mem worker is not running and did not start at ${t.host}:${t.port}${portProblem ? ` (${portProblem})` : ''}\n`);
    return 1;
  }
  let code: string;
  try {
    const r = await request<{ code?: unknown }>(t, 'POST', '/api/viewer/code', {});
    if (r.status !== 200 || typeof r.body?.code !== 'string') throw new Error(`the worker answered ${r.status}: ${JSON.stringify(r.body).slice(0, 200)}`);
    code = r.body.code;
  } catch (e) {
    process.stderr.write(`could not get a viewer link: ${(e as Error).message}\n`);
    return 1;
  }
  const host = t.host.includes(':') ? `[${t.host}]` : t.host;
  const url = `http://${host}:${h.port}/?code=${encodeURIComponent(code)}`;
  process.stdout.write(`${url}\n`);
  if (args.includes('--print') || !process.stdout.isTTY) {
    process.stderr.write('(the link works once, within a minute)\n');
    return 0;
  }
  const { spawn } = require('node:child_process') as typeof import('node:child_process');
  const opener = process.platform === 'darwin' ? ['open', url] : process.platform === 'win32' ? ['cmd', '/c', 'start', '', url] : ['xdg-open', url];
  try {
    const child = spawn(opener[0], opener.slice(1), { stdio: 'ignore', detached: true });
    child.on('error', () => process.stderr.write('could not open a browser; open the URL above (it works once, within a minute)\n'));
    child.unref();
  } catch {
    process.stderr.write('could not open a browser; open the URL above (it works once, within a minute)\n');
  }
  return 0;
}
