// bench:compare's recall on the workload questions traces each of our search results to the tool
// use it came from: local notes keep local titles, so the fake model's titles cannot say. A store
// that does not line up with the workload ends the figure instead of guessing.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { it } from 'node:test';
import { pathToFileURL } from 'node:url';

const root = path.resolve(__dirname, '..', '..');

interface ToolUse {
  id: string;
  observation: { title: string };
}
interface Workload {
  sessions: { sessionId: string; prompts: { toolUses: ToolUse[] }[] }[];
}
interface StoredObservation {
  title: string;
  createdAt: number;
}
type Doc = { sessions: { contentSessionId: string; observations: StoredObservation[] }[] };
type AnswerKeys = (doc: Doc, workload: Workload) => { map: Map<string, string>; byTitle: number };

async function load(): Promise<{ answerKeysOfExport: AnswerKeys; keyOf: (title: string, epoch: number) => string; generateWorkload: (o: object) => Workload }> {
  const ours = (await import(pathToFileURL(path.join(root, 'bench', 'compare', 'ours.mjs')).href)) as { answerKeysOfExport: AnswerKeys };
  const fixture = (await import(pathToFileURL(path.join(root, 'bench', 'compare', 'fixture.mjs')).href)) as { keyOf: (title: string, epoch: number) => string };
  const workload = (await import(pathToFileURL(path.join(root, 'bench', 'compare', 'workload.mjs')).href)) as { generateWorkload: (o: object) => Workload };
  return { answerKeysOfExport: ours.answerKeysOfExport, keyOf: fixture.keyOf, generateWorkload: workload.generateWorkload };
}

/** An export as our worker would give it: every tool use a local note ("Read `x`", repeated) but the third of each session, which got the model's title; rows out of order. */
function exportOf(w: Workload): Doc {
  return {
    sessions: w.sessions.map((s, si) => {
      const uses = s.prompts.flatMap((p) => p.toolUses);
      const observations = uses.map((u, i) => ({ title: i === 2 ? u.observation.title : `Read \`src/file${i % 3}.ts\``, createdAt: 1_000_000 + si * 10_000 + i * 7 }));
      return { contentSessionId: s.sessionId, observations: observations.reverse() };
    }),
  };
}

it('traces every stored observation to its tool use by session and order, local titles and all', async () => {
  const { answerKeysOfExport, keyOf, generateWorkload } = await load();
  const w = generateWorkload({ sessions: 3, toolUses: 30, root: '/tmp/bench-compare-answers' });
  const doc = exportOf(w);
  const { map, byTitle } = answerKeysOfExport(doc, w);
  assert.equal(map.size, 30);
  assert.equal(byTitle, 3);
  for (const [si, s] of w.sessions.entries()) {
    const uses = s.prompts.flatMap((p) => p.toolUses);
    for (const [i, u] of uses.entries()) {
      const title = i === 2 ? u.observation.title : `Read \`src/file${i % 3}.ts\``;
      assert.equal(map.get(keyOf(title, 1_000_000 + si * 10_000 + i * 7)), u.id);
    }
  }
});

it('fails with a sentence when the store does not line up with the workload', async () => {
  const { answerKeysOfExport, generateWorkload } = await load();
  const w = generateWorkload({ sessions: 2, toolUses: 20, root: '/tmp/bench-compare-answers' });
  const missing = exportOf(w);
  missing.sessions[0].observations.pop();
  assert.throws(() => answerKeysOfExport(missing, w), /holds \d+ observations for \d+ tool uses/);
  const sameMs = exportOf(w);
  sameMs.sessions[1].observations[0].createdAt = sameMs.sessions[1].observations[1].createdAt;
  assert.throws(() => answerKeysOfExport(sameMs, w), /two observations at the same millisecond/);
  const swapped = exportOf(w);
  const uses = w.sessions[0].prompts.flatMap((p) => p.toolUses);
  const obs = swapped.sessions[0].observations;
  obs[obs.length - 1].title = uses[1].observation.title; // the oldest row holds the second tool use's model title
  assert.throws(() => answerKeysOfExport(swapped, w), /carries the model's title of another tool use/);
});
