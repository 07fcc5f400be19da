// Retrieval quality on the synthetic history (test/fixtures/search): recall@5 and MRR for keyword,
// semantic and hybrid search, with the real local sentence encoder. Hybrid must be at least as
// good as the better of the other two on both figures. Embedding the ~400 records takes 10-60 s.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EventBus } from '../../worker/events';
import { nullLogger } from '../../worker/log';
import { SearchService } from '../../worker/search/service';
import { DEFAULT_CONTEXT_SETTINGS, DEFAULT_SEARCH_SETTINGS } from '../../worker/search/settings';
import { migrate } from '../../worker/store/schema';
import { Store } from '../../worker/store/store';
import { evaluate, type ModeScore } from '../fixtures/search/evaluate';
import { loadHistory, readQuestions, type FixtureHistory } from '../fixtures/search/load';
import { tempDir } from '../helpers/worker';

const built = path.resolve(__dirname, '../../dist/embedder.js');
const threadScript = fs.existsSync(built) ? built : path.resolve(__dirname, '../../worker/search/embedderThread.ts');

let store: Store;
let service: SearchService;
let history: FixtureHistory;

before(async () => {
  const dir = tempDir('search-eval-');
  store = await Store.open({ dir: path.join(dir, 'db'), log: nullLogger, snapshotJournalBytes: 1 << 30, replicaScript: null });
  await migrate(store);
  history = await loadHistory(store);
  service = new SearchService(
    { config: { dataDir: dir }, store, events: new EventBus(), log: nullLogger },
    { threadScript, settings: { search: { ...DEFAULT_SEARCH_SETTINGS, indexBatchSize: 32 }, context: DEFAULT_CONTEXT_SETTINGS, problems: [] } },
  );
  service.start();
  await service.indexer?.drain();
});

after(async () => {
  await service?.stop();
  await store?.close(false);
});

test('fixture: at least 300 observations over several weeks and projects, 40+ questions naming their answers', () => {
  const obs = history.sessions.flatMap((s) => s.observations);
  const projects = new Set(history.sessions.map((s) => s.project));
  const times = obs.map((o) => o.createdAt);
  const weeks = (Math.max(...times) - Math.min(...times)) / (7 * 86_400_000);
  const questions = readQuestions();
  assert.ok(obs.length >= 300, `${obs.length} observations`);
  assert.ok(projects.size >= 3, `${projects.size} projects`);
  assert.ok(weeks >= 4, `${weeks.toFixed(1)} weeks`);
  assert.ok(questions.length >= 40, `${questions.length} questions`);
  const ids = new Set(obs.map((o) => o.id));
  for (const q of questions) {
    assert.ok(q.answers.length > 0 && q.answers.every((a) => ids.has(a)), `${q.id} names observations that exist`);
  }
});

test('every record is embedded by the background indexer', () => {
  const st = service.status();
  assert.equal(st.pending, 0);
  assert.equal(st.indexed.observations, history.sessions.reduce((n, s) => n + s.observations.length, 0));
  assert.equal(st.indexed.summaries, history.sessions.length);
});

test('recall@5 and MRR: hybrid is at least as good as the better of keyword and semantic', async () => {
  const questions = readQuestions();
  const scores: ModeScore[] = [];
  for (const mode of ['keyword', 'semantic', 'hybrid'] as const) scores.push(await evaluate(service.searcher, questions, mode, history.fixtureNow));
  const table = [
    `search quality on ${questions.length} questions (${history.sessions.length} sessions, fixture test/fixtures/search):`,
    '  mode       recall@5   MRR',
    ...scores.map((s) => `  ${s.mode.padEnd(9)}  ${s.recallAt5.toFixed(3)}      ${s.mrr.toFixed(3)}`),
  ].join('\n');
  console.log(table);
  const [kw, sem, hy] = scores;
  assert.ok(hy.recallAt5 >= Math.max(kw.recallAt5, sem.recallAt5), `hybrid recall@5 ${hy.recallAt5.toFixed(3)} < best of keyword ${kw.recallAt5.toFixed(3)} / semantic ${sem.recallAt5.toFixed(3)}`);
  assert.ok(hy.mrr >= Math.max(kw.mrr, sem.mrr), `hybrid MRR ${hy.mrr.toFixed(3)} < best of keyword ${kw.mrr.toFixed(3)} / semantic ${sem.mrr.toFixed(3)}`);
});
