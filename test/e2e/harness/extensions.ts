// The .vsix files a server starts with, installed once and copied. `code-server
// --install-extension` takes 2.5 CPU s for our 27 MB .vsix (a code-server process that unzips
// it); a copy of the installed folder takes a tenth of that. The installed copy lives beside the
// first .vsix, named by a hash of every .vsix's content and the code-server version, so a rebuilt
// .vsix is installed afresh and a stale one is never used.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { codeServerEntry, node24 } from './paths';

const PREFIX = '.installed-';

/** Fills `extensionsDir` (empty) with the installed `vsixes`; `env` is the server's environment. */
export function installExtensions(vsixes: string[], extensionsDir: string, env: NodeJS.ProcessEnv): void {
  const installed = installedOnce(vsixes, env);
  fs.cpSync(installed, extensionsDir, { recursive: true });
  // extensions.json names each extension by its absolute location too.
  const list = path.join(extensionsDir, 'extensions.json');
  fs.writeFileSync(list, fs.readFileSync(list, 'utf8').split(installed).join(extensionsDir));
}

function installedOnce(vsixes: string[], env: NodeJS.ProcessEnv): string {
  const hash = createHash('sha256').update(codeServerVersion());
  for (const v of vsixes) hash.update(fs.readFileSync(v));
  const dir = path.join(path.dirname(vsixes[0]), `${PREFIX}${hash.digest('hex').slice(0, 16)}`);
  if (fs.existsSync(path.join(dir, 'extensions.json'))) return dir;
  // Installed into a folder of its own, then renamed: a file running at the same time never sees half of it.
  const tmp = `${dir}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(path.join(tmp, 'data'), { recursive: true });
  const r = spawnSync(
    node24,
    [codeServerEntry, '--user-data-dir', path.join(tmp, 'data'), '--extensions-dir', path.join(tmp, 'extensions'), '--config', path.join(tmp, 'config.yaml'), ...vsixes.flatMap((v) => ['--install-extension', v])],
    { env, encoding: 'utf8', timeout: 120_000 },
  );
  if (r.status !== 0 || !/successfully installed/.test(r.stdout)) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw new Error(`code-server --install-extension failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  }
  const list = path.join(tmp, 'extensions', 'extensions.json');
  fs.writeFileSync(list, fs.readFileSync(list, 'utf8').split(path.join(tmp, 'extensions')).join(dir));
  try {
    fs.renameSync(path.join(tmp, 'extensions'), dir);
  } catch (e) {
    // Another file installed the same .vsix meanwhile: use theirs.
    if (!fs.existsSync(path.join(dir, 'extensions.json'))) throw e;
  }
  fs.rmSync(tmp, { recursive: true, force: true });
  // Earlier builds' installs beside it are of no more use.
  for (const name of fs.readdirSync(path.dirname(dir))) {
    const other = path.join(path.dirname(dir), name);
    if (name.startsWith(PREFIX) && other !== dir && !name.includes('.tmp-')) fs.rmSync(other, { recursive: true, force: true });
  }
  return dir;
}

function codeServerVersion(): string {
  const pkg = path.join(path.dirname(codeServerEntry), '../../package.json');
  return (JSON.parse(fs.readFileSync(pkg, 'utf8')) as { version: string }).version;
}
