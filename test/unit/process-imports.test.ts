// The layout: a top-level folder is a process or the shared code (docs/architecture.md).
//   extension/  the VS Code extension host       worker/  the worker (and its threads)
//   cli/        hook CLI, MCP server, commands    media/   the Memory panel's webview app
//   common/     shared by every process, the webview included; common/node/ is its Node-only part
// A file imports only its own process folder, common/, packages and builtins: never another
// process's files (a process talks to another over HTTP, the spool, IPC or postMessage). common/
// imports only common/; outside common/node/ it imports no Node builtin, vscode or package (the
// webview bundles it), and media/ imports nothing of common/node/ and no Node builtin.
import assert from 'node:assert/strict';
import { builtinModules } from 'node:module';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const ts = require('typescript') as typeof import('typescript');

const ROOT = path.resolve(__dirname, '../..');
const PROCESSES = ['extension', 'worker', 'cli', 'media'];
const COMMON = 'common';
const COMMON_NODE = 'common/node';

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? files(path.join(dir, d.name)) : /\.(ts|mts|cts|tsx)$/.test(d.name) ? [path.join(dir, d.name)] : []));
}

interface Import {
  /** The importing file, relative to the root (forward slashes). */
  file: string;
  spec: string;
  /** For a relative import: the target, relative to the root (forward slashes). */
  target?: string;
}

/** Every import of a .ts file: static and type imports, export … from, import(), require() (comments and strings skipped). */
function importsOf(abs: string, text = fs.readFileSync(abs, 'utf8')): Import[] {
  const file = path.relative(ROOT, abs).split(path.sep).join('/');
  return ts.preProcessFile(text, true, true).importedFiles.map(({ fileName: spec }) => ({
    file,
    spec,
    target: spec.startsWith('.') ? path.relative(ROOT, path.resolve(path.dirname(abs), spec)).split(path.sep).join('/') : undefined,
  }));
}

const under = (p: string, dir: string) => p === dir || p.startsWith(`${dir}/`);
const folderOf = (p: string) => p.split('/')[0];
const isBuiltin = (spec: string) => spec.startsWith('node:') || builtinModules.includes(spec.split('/')[0]);

/** What is wrong with one import, if anything (the rules at the top of this file). */
function violation(i: Import): string | undefined {
  const from = folderOf(i.file);
  if (i.target !== undefined) {
    const to = folderOf(i.target);
    if (from === COMMON) {
      if (to !== COMMON) return `common/ imports ${to}/`;
      if (!under(i.file, COMMON_NODE) && under(i.target, COMMON_NODE)) return 'common/ outside common/node/ imports common/node/ (the webview bundles it)';
      return undefined;
    }
    if (to === from || to === COMMON) return from === 'media' && under(i.target, COMMON_NODE) ? 'the webview imports common/node/' : undefined;
    return `${from}/ imports ${PROCESSES.includes(to) ? 'another process' : 'outside its process and common/'} (${to}/)`;
  }
  if (from === COMMON && !under(i.file, COMMON_NODE)) return 'common/ outside common/node/ imports a builtin or package (the webview bundles it)';
  if (under(i.file, COMMON_NODE) && !isBuiltin(i.spec)) return 'common/node/ imports a package or vscode (Node builtins only)';
  if (from === 'media' && isBuiltin(i.spec)) return 'the webview imports a Node builtin';
  return undefined;
}

function problems(): string[] {
  const out: string[] = [];
  for (const dir of [...PROCESSES, COMMON]) {
    if (!fs.existsSync(path.join(ROOT, dir))) continue;
    for (const f of files(path.join(ROOT, dir))) {
      for (const i of importsOf(f)) {
        const why = violation(i);
        if (why) out.push(`${i.file}: '${i.spec}': ${why}`);
      }
    }
  }
  return out;
}

describe('imports follow the process layout', () => {
  it('no file imports across processes (extension, worker, cli, media talk only through common/)', () => {
    assert.deepEqual(problems(), []);
  });

  it('the check sees every kind of import and names the file and the import', () => {
    const abs = path.join(ROOT, 'extension', 'x.ts');
    const text = [
      "import { a } from '../worker/config';",
      "import type { B } from '../cli/client';",
      "export * from '../media/panel/model';",
      "const c = require('../worker/lock') as typeof import('../worker/lock');",
      "void import('../cli/main');",
      "// import { d } from '../worker/comment'",
      "import { e } from '../common/contract';",
      "import { f } from './core/session';",
    ].join('\n');
    const bad = importsOf(abs, text).filter((i) => violation(i)).map((i) => `${i.file}: ${i.spec}`);
    assert.deepEqual(bad, ['extension/x.ts: ../worker/config', 'extension/x.ts: ../cli/client', 'extension/x.ts: ../media/panel/model', 'extension/x.ts: ../worker/lock', 'extension/x.ts: ../worker/lock', 'extension/x.ts: ../cli/main']);
    const v = (file: string, spec: string) => violation(importsOf(path.join(ROOT, file), `import x from '${spec}';`)[0]);
    assert.match(v('common/contract/x.ts', '../../worker/config') ?? '', /common\/ imports worker/);
    assert.match(v('common/contract/x.ts', 'node:fs') ?? '', /builtin or package/);
    assert.match(v('common/contract/x.ts', '../node/config') ?? '', /imports common\/node/);
    assert.equal(v('common/node/x.ts', 'node:fs'), undefined);
    assert.match(v('common/node/x.ts', 'vscode') ?? '', /Node builtins only/);
    assert.match(v('media/panel/x.ts', '../../common/node/config') ?? '', /webview imports common\/node/);
    assert.match(v('media/panel/x.ts', 'node:path') ?? '', /webview imports a Node builtin/);
    assert.match(v('worker/x.ts', '../test/helpers/worker') ?? '', /outside its process/);
    assert.equal(v('worker/server/x.ts', '../../common/node/config'), undefined);
    assert.equal(v('cli/x.ts', 'node:fs'), undefined);
  });
});
