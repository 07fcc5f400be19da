import assert from 'node:assert/strict';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import { buildSync } from 'esbuild';
import { BACKGROUND_NICE, runThisThreadInBackground } from '../../worker/threadPriority';

// Worker threads do not get tsx's loader: bundle the real module and run it in one.
function bundled(): string {
  const out = buildSync({ entryPoints: [path.resolve(__dirname, '../../worker/threadPriority.ts')], bundle: true, platform: 'node', format: 'cjs', write: false });
  return out.outputFiles[0].text;
}

describe('background thread priority', () => {
  it('lowers a worker thread, never the main thread', async () => {
    const before = os.getPriority();
    assert.equal(runThisThreadInBackground(), undefined, 'the main thread is left alone');
    assert.equal(os.getPriority(), before);
    const src = `const m = {}; (function (module, exports, require) { ${bundled()} })(m, m.exports = {}, require);
      const { parentPort } = require('node:worker_threads'); const os = require('node:os');
      const nice = m.exports.runThisThreadInBackground();
      parentPort.postMessage({ nice, pidNice: os.getPriority(process.pid) });`;
    const r = await new Promise<{ nice: number | undefined; pidNice: number }>((resolve, reject) => {
      const w = new Worker(src, { eval: true });
      w.once('message', resolve);
      w.once('error', reject);
    });
    if (process.platform !== 'linux') return;
    assert.equal(r.nice, Math.max(before, BACKGROUND_NICE));
    assert.equal(r.pidNice, before, 'the main thread keeps its priority');
  });

  it('takes its nice value from CLAUDE_MEM_BACKGROUND_NICE (0-19), else the default', async () => {
    const before = os.getPriority();
    const src = `const m = {}; (function (module, exports, require) { ${bundled()} })(m, m.exports = {}, require);
      const { parentPort } = require('node:worker_threads');
      parentPort.postMessage({ nice: m.exports.runThisThreadInBackground(), value: m.exports.backgroundNice() });`;
    const inThread = (value: string) =>
      new Promise<{ nice: number | undefined; value: number }>((resolve, reject) => {
        const w = new Worker(src, { eval: true, env: { ...process.env, CLAUDE_MEM_BACKGROUND_NICE: value } });
        w.once('message', resolve);
        w.once('error', reject);
      });
    const expected: [string, number][] = [
      ['0', 0],
      ['15', 15],
      [' 7 ', 7],
      ['20', BACKGROUND_NICE],
      ['-5', BACKGROUND_NICE],
      ['low', BACKGROUND_NICE],
      ['', BACKGROUND_NICE],
    ];
    for (const [value, nice] of expected) {
      const r = await inThread(value);
      assert.equal(r.value, nice, `CLAUDE_MEM_BACKGROUND_NICE=${JSON.stringify(value)}`);
      if (process.platform === 'linux') assert.equal(r.nice, Math.max(before, nice), `the thread's nice value with ${JSON.stringify(value)}`);
    }
  });
  it("lowers every thread of a process, Node's own helpers included", { skip: process.platform !== 'linux' && 'Linux only (/proc)' }, () => {
    const before = os.getPriority();
    const src = `const m = {}; (function (module, exports, require) { ${bundled()} })(m, m.exports = {}, require);
      const fs = require('node:fs');
      const nices = () => fs.readdirSync('/proc/self/task').map((t) => { const st = fs.readFileSync('/proc/self/task/' + t + '/stat', 'utf8'); return Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[16]); });
      const was = nices();
      m.exports.runAllThreadsInBackground();
      process.stdout.write(JSON.stringify({ was, now: nices() }));`;
    const r = JSON.parse(execFileSync(process.execPath, ['-e', src], { encoding: 'utf8', env: { ...process.env, CLAUDE_MEM_BACKGROUND_NICE: '' } })) as { was: number[]; now: number[] };
    const want = Math.max(before, BACKGROUND_NICE);
    assert.ok(r.was.length > 1 && r.was.some((n) => n < want), `Node starts helper threads at the process's priority: ${r.was.join(' ')}`);
    assert.deepEqual(r.now, r.now.map(() => want), `every thread at ${want}: ${r.now.join(' ')}`);
  });
});
