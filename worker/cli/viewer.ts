// claude-mem viewer [--print]: the browser viewer's URL with the token; opens it unless --print.
import { readToken, targetFromEnv } from './client';
import { ensureWorker } from './startStop';

export async function runViewer(args: string[]): Promise<number> {
  const t = targetFromEnv();
  const h = await ensureWorker(t, 20_000);
  if (!h) {
    process.stderr.write(`claude-mem worker is not running and did not start at ${t.host}:${t.port}\n`);
    return 1;
  }
  const token = readToken(t.dataDir);
  const host = t.host.includes(':') ? `[${t.host}]` : t.host;
  const url = `http://${host}:${h.port}/${token ? `?token=${encodeURIComponent(token)}` : ''}`;
  process.stdout.write(`${url}\n`);
  if (args.includes('--print') || !process.stdout.isTTY) return 0;
  const { spawn } = require('node:child_process') as typeof import('node:child_process');
  const opener = process.platform === 'darwin' ? ['open', url] : process.platform === 'win32' ? ['cmd', '/c', 'start', '', url] : ['xdg-open', url];
  try {
    const child = spawn(opener[0], opener.slice(1), { stdio: 'ignore', detached: true });
    child.on('error', () => process.stderr.write('could not open a browser; open the URL above\n'));
    child.unref();
  } catch {
    process.stderr.write('could not open a browser; open the URL above\n');
  }
  return 0;
}
