// The worker's child processes (worker/childProcess.ts): the environment a child starts with.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { RETURN_FREED_MEMORY } from '../../common/node/mallocEnv';
import { startChild } from '../../worker/childProcess';

/** Starts a child that sends back the named variables of its environment, and waits for them. */
function childEnv(names: string[], env?: NodeJS.ProcessEnv): Promise<Record<string, string | undefined>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cmem-child-'));
  const script = path.join(dir, 'env.js');
  fs.writeFileSync(script, `const names = JSON.parse(process.argv[2]); process.send(Object.fromEntries(names.map((n) => [n, process.env[n]])), () => process.disconnect());\n`);
  return new Promise((resolve, reject) => {
    let got: Record<string, string | undefined> | undefined;
    startChild<Record<string, string | undefined>, never>(script, names, {
      message: (m) => (got = m),
      died: (why) => {
        fs.rmSync(dir, { recursive: true, force: true });
        if (got) resolve(got);
        else reject(new Error(`child died without answering: ${why}`));
      },
    }, env);
  });
}

test('a child gets the worker environment with the given variables laid over it', async () => {
  process.env.CMEM_CHILD_TEST_KEPT = 'kept';
  try {
    const names = ['CMEM_CHILD_TEST_KEPT', ...Object.keys(RETURN_FREED_MEMORY)];
    assert.deepEqual(await childEnv(names, RETURN_FREED_MEMORY), { CMEM_CHILD_TEST_KEPT: 'kept', ...RETURN_FREED_MEMORY });
  } finally {
    delete process.env.CMEM_CHILD_TEST_KEPT;
  }
});

test("a child does not inherit the worker's malloc settings unless given them", async () => {
  const before = { ...process.env };
  Object.assign(process.env, RETURN_FREED_MEMORY);
  try {
    const names = Object.keys(RETURN_FREED_MEMORY);
    assert.deepEqual(await childEnv(names), Object.fromEntries(names.map((n) => [n, undefined])));
    assert.deepEqual(await childEnv(names, RETURN_FREED_MEMORY), RETURN_FREED_MEMORY);
  } finally {
    for (const n of Object.keys(RETURN_FREED_MEMORY)) if (before[n] === undefined) delete process.env[n];
    else process.env[n] = before[n];
  }
});
