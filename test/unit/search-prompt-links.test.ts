// Hybrid's third list (promptLinks.ts): a question worded like the prompt that started the work
// finds the record the work produced, though the record shares none of its words.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { nullLogger } from '../../common/node/log';
import type { SearchKind } from '../../common/contract';
import { EventBus } from '../../worker/events';
import type { Embedder } from '../../worker/search/embed/types';
import { SearchService } from '../../worker/search/service';
import { DEFAULT_CONTEXT_SETTINGS } from '../../worker/context/settings';
import { DEFAULT_SEARCH_SETTINGS, type SearchSettings } from '../../worker/search/settings';
import { migrate } from '../../worker/store/schema';
import { Store } from '../../worker/store/store';
import { importSessions, parseImport } from '../../worker/transfer';
import { tempDir } from '../helpers/worker';

const T0 = Date.UTC(2026, 10, 2);
const QUESTION = 'testers get every reminder twice after they change the time on a habit';
const PROMPT = 'a couple of testers get every reminder twice after they change the time on a habit';
const DISTRACTOR = 'Habit time picker tidied';

const obs = (id: number, type: string, title: string, narrative: string, promptNumber: number) => ({
  id, type, title, subtitle: null, narrative, facts: [], concepts: [], filesRead: [], filesModified: [],
  source: 'local', inputTokens: 0, outputTokens: 0, discoveryTokens: 10, toolName: 'Edit', promptNumber, contentHash: `h-${id}`, createdAt: T0 + id * 60_000,
});
const session = (key: string, start: number, prompts: string[], observations: ReturnType<typeof obs>[], summaries: unknown[] = []) => ({
  platform: 'claude-code', contentSessionId: key, project: 'p', cwd: '/src/p', status: 'completed', promptCounter: prompts.length,
  startedAt: T0 + start, updatedAt: T0 + start + 60_000, completedAt: T0 + start + 60_000, completionReason: 'exit',
  prompts: prompts.map((text, i) => ({ id: start + i, promptNumber: i + 1, text, createdAt: T0 + start })), observations, summaries,
});

const doc = {
  format: 'claude-mem-vscode/export', version: 1, exportedAt: new Date(T0 + 86_400_000).toISOString(), project: null,
  sessions: [
    // The prompt in the user's words; the notes it led to in the model's (no word of the question).
    session('s-a', 0, [PROMPT], [
      obs(1, 'discovery', 'Read Scheduler.swift', 'Opened Scheduler.swift.', 1),
      obs(2, 'bugfix', 'Pending requests keyed by a stable identifier', 'Rescheduling added a new request under a random id on each edit, and the old one still fired. Requests are keyed by a stable id now, so a new one replaces the old one.', 1),
    ], [{
      id: 1, request: 'notification cleanup', investigated: 'Scheduler.swift', learned: 'Random ids left stale requests pending.', completed: 'Stable request ids; stale requests removed on upgrade.',
      nextSteps: 'Ship to the beta group.', notes: null, promptNumber: 1, contentHash: 'sum-a', inputTokens: 0, outputTokens: 0, createdAt: T0 + 30 * 60_000,
    }]),
    // A note that shares the question's words: the keyword and vector lists' pick.
    session('s-b', 1000, ['tidy the picker'], [obs(3, 'change', DISTRACTOR, 'Moved the habit time picker into its own view.', 1)]),
    // The same prompt typed in two sessions says nothing about which one it means.
    session('s-c', 2000, ['keep going on the habit reminder work'], [obs(4, 'bugfix', 'Badge count reset on launch', 'The badge count is reset when the app starts, not when it quits, which the system may skip.', 1)]),
    session('s-d', 3000, ['keep going on the habit reminder work'], [obs(5, 'bugfix', 'Quiet hours respected by snooze', 'Snooze moves a request past quiet hours instead of inside them.', 1)]),
  ],
};

// The question and the distractor share a vector; every other text is orthogonal to it, so the
// vector list votes for the distractor alone.
const embedder: Embedder = {
  name: 'table-2',
  async embed(texts) {
    return texts.map((t) => (t.includes(DISTRACTOR) || t.includes('testers') ? Float32Array.of(1, 0) : Float32Array.of(0, 1)));
  },
  async close() {},
};

const services: SearchService[] = [];
const stores: Store[] = [];
after(async () => {
  for (const s of services) await s.stop();
  for (const s of stores) await s.close(false);
});

async function service(search: Partial<SearchSettings> = {}): Promise<SearchService> {
  const dir = tempDir('search-prompts-');
  const store = await Store.open({ dir: path.join(dir, 'db'), log: nullLogger, snapshotJournalBytes: 1 << 30, replicaScript: null });
  stores.push(store);
  await migrate(store);
  await store.write((tx) => importSessions(tx, parseImport(doc)));
  const svc = new SearchService(
    { config: { dataDir: dir }, store, events: new EventBus(), log: nullLogger },
    { embedders: { query: embedder, index: embedder }, settings: { search: { ...DEFAULT_SEARCH_SETTINGS, ...search }, context: DEFAULT_CONTEXT_SETTINGS, problems: [] } },
  );
  services.push(svc);
  svc.start();
  await svc.indexer?.drain();
  return svc;
}

async function refs(svc: SearchService, query: string, mode: 'hybrid' | 'keyword' = 'hybrid', kinds: SearchKind[] = ['observation'], to?: number): Promise<string[]> {
  const r = await svc.searcher.search({ query, mode, filters: { project: 'p', kinds, ...(to === undefined ? {} : { to }) }, limit: 10, offset: 0 }, T0 + 86_400_000);
  assert.equal(r.modeUsed, mode);
  return r.items.map((i) => (i.kind === 'summary' ? `S${i.id}` : String(i.id)));
}

test('hybrid: the observation a matching prompt led to is found, though it shares no word with the question', async () => {
  const on = await service();
  const found = await refs(on, QUESTION);
  assert.ok(found.indexOf('2') >= 0 && found.indexOf('2') < 3, found.join(','));
  assert.equal(found[0], '3', 'the words and the vector still pick the distractor first');
  // One record per prompt: the routine read of the same prompt is not lent.
  assert.ok(!found.includes('1'), found.join(','));
  // A prompt typed in two sessions lends to neither.
  assert.ok(!found.includes('4') && !found.includes('5'), found.join(','));
  // Filters hold for what is lent: before the fix was written, there is nothing to lend.
  assert.ok(!(await refs(on, QUESTION, 'hybrid', ['observation'], T0 + 90_000)).includes('2'));
  // Keyword mode keeps to the record's own words, and the setting turns the list off.
  assert.ok(!(await refs(on, QUESTION, 'keyword')).includes('2'));
  const off = await service({ promptWeight: 0 });
  assert.ok(!(await refs(off, QUESTION)).includes('2'), 'promptWeight 0: no prompt links');
});

test('hybrid: a question about how it ended is lent the session summary', async () => {
  const on = await service();
  const outcome = await refs(on, 'what happened with testers getting the reminder twice', 'hybrid', ['observation', 'summary']);
  assert.ok(outcome.slice(0, 3).includes('S1'), outcome.join(','));
  // Not a question about how it ended: the prompt lends to its observation.
  const symptom = await refs(on, QUESTION, 'hybrid', ['observation', 'summary']);
  assert.ok(!symptom.includes('S1') && symptom.slice(0, 3).includes('2'), symptom.join(','));
});

test('hybrid: the platform filter holds for the vector list and for what prompts lend', async () => {
  const on = await service();
  const ids = async (platform: string) => {
    const r = await on.searcher.search({ query: QUESTION, mode: 'hybrid', filters: { project: 'p', kinds: ['observation'], platform }, limit: 10, offset: 0 }, T0 + 86_400_000);
    assert.equal(r.modeUsed, 'hybrid');
    return r.items.map((i) => String(i.id));
  };
  // Every session is Claude Code's: filtered to it, the vector list's pick and the lent record stay.
  const same = await ids('claude-code');
  assert.ok(same.includes('3') && same.includes('2'), same.join(','));
  // Another platform: nothing, not the vector list's pick either.
  assert.deepEqual(await ids('vscode'), []);
});
