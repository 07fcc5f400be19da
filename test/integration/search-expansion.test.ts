// Doc expansion end to end, with the fake Anthropic server scripted to answer an observation that
// carries <search_phrases>: the observer is asked for them, they are stored as one fact, the
// keyword index finds the record by a phrase word the rest of it never uses, the detail view
// (observations/batch) shows them, and the embedded text includes them. Run `npm run build` first.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseObservations } from '../../worker/compression/parser';
import { observationEmbedText } from '../../worker/search/embedText';
import { phrasesFromFacts, searchPhrasesFact } from '../../worker/search/expansion';
import { allText, startFakeAnthropic, text, type FakeAnthropic } from '../helpers/fakeAnthropic';
import { startWorker, tempDir, until, type RunningWorker } from '../helpers/worker';

const OBS = `<observation><type>bugfix</type><title>Switched the booking list to keyset pagination</title>
<narrative>Deep pages used OFFSET and took seconds; the list now pages by a (created_at, id) cursor.</narrative>
<facts><fact>listing.py: list_bookings() takes a cursor</fact></facts>
<concepts><concept>problem-solution</concept></concepts>
<search_phrases><phrase>page is slow when scrolling far back</phrase><phrase>why is the reservations list sluggish</phrase></search_phrases>
<tool_uses>1</tool_uses></observation>`;

describe('doc expansion (search phrases from the compression model)', () => {
  let fake: FakeAnthropic;
  let w: RunningWorker;
  const systems: string[] = [];
  before(async () => {
    fake = await startFakeAnthropic((req) => {
      systems.push(JSON.stringify(req.body.system ?? ''));
      return text(JSON.stringify(req.body).includes('progress summary') ? '<summary><request>r</request></summary>' : OBS);
    });
    const dataDir = tempDir('cmem-expansion-');
    fs.writeFileSync(path.join(dataDir, 'settings.json'), JSON.stringify({ modelObservations: 'every', agentTimeoutMs: 5000, dailyTokenBudget: 0, batchMaxAgeMs: 0, batchMaxUses: 1, search: { embeddings: 'off' } }));
    w = await startWorker({ dataDir, env: { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.url } });
  });
  after(async () => {
    await w?.stop();
    await fake?.close();
  });

  it('parses, stores, indexes and shows the phrases', async () => {
    const posted = await w.req('POST', '/api/sessions/observations', {
      contentSessionId: 'exp', project: 'exp', cwd: '/repo', tool_name: 'Read', tool_input: { file_path: '/repo/listing.py' }, tool_response: 'def list_bookings(cursor): ...', tool_use_id: 'tu-exp-1',
    });
    assert.ok(posted.status < 300, JSON.stringify(posted.body));
    await until(async () => (await w.req('GET', '/api/health')).body.queueDepth === 0, 20_000, 'the queue to drain');
    assert.ok(systems.some((s) => s.includes('<search_phrases>')), 'the observer prompt asks for search phrases');
    // "sluggish" and "scrolling" occur only in the phrases.
    const r = await w.req('GET', '/api/search?query=sluggish%20scrolling&project=exp&mode=keyword');
    assert.equal(r.status, 200);
    const items = r.body.items as { id: number; title: string }[];
    assert.equal(items[0]?.title, 'Switched the booking list to keyset pagination');
    const detail = await w.req('POST', '/api/observations/batch', { ids: [items[0].id] });
    const facts = (detail.body.items as { facts: string[] }[])[0].facts;
    assert.deepEqual(phrasesFromFacts(facts), ['page is slow when scrolling far back', 'why is the reservations list sluggish']);
    assert.match(observationEmbedText({ type: 'bugfix', title: 't', subtitle: null, narrative: 'n', facts: JSON.stringify(facts) }), /Search: page is slow when scrolling far back; why is the reservations list sluggish$/);
  });

  it('the parser keeps phrases only when given, and the fact round-trips', () => {
    const [o] = parseObservations(OBS).observations;
    assert.deepEqual(o.searchPhrases, ['page is slow when scrolling far back', 'why is the reservations list sluggish']);
    const [plain] = parseObservations('<observation><type>change</type><title>x</title></observation>').observations;
    assert.equal('searchPhrases' in plain, false);
    assert.deepEqual(searchPhrasesFact([]), []);
    assert.deepEqual(phrasesFromFacts(searchPhrasesFact(['a;b', ' c '])), ['a b', 'c']);
    assert.equal(allText({ model: 'm', messages: [] }), '');
  });
});
