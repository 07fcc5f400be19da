import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyProse, normalizeConcept, parseObservations, parseSummary } from '../../worker/compression/parser';
import { TAXONOMY } from '../../worker/compression/taxonomy';

const OBS = `<observation>
  <type>bugfix</type>
  <title>Fixed the off-by-one in pager</title>
  <subtitle>Last page was skipped</subtitle>
  <facts><fact>pager.ts used &lt; instead of &lt;=</fact><fact>tests cover 0 and 1 pages</fact></facts>
  <narrative>The pager dropped the last page.</narrative>
  <concepts><concept>problem-solution</concept><concept>gotcha</concept></concepts>
  <files_read><file>src/pager.ts</file></files_read>
  <files_modified><file>src/pager.ts</file></files_modified>
  <tool_uses>1, 3</tool_uses>
</observation>`;

describe('observation parser', () => {
  it('reads a well-formed observation, decoding entities', () => {
    const r = parseObservations(OBS);
    assert.equal(r.kind, 'observations');
    assert.equal(r.observations.length, 1);
    const o = r.observations[0];
    assert.equal(o.type, 'bugfix');
    assert.equal(o.title, 'Fixed the off-by-one in pager');
    assert.equal(o.subtitle, 'Last page was skipped');
    assert.deepEqual(o.facts, ['pager.ts used < instead of <=', 'tests cover 0 and 1 pages']);
    assert.equal(o.narrative, 'The pager dropped the last page.');
    assert.deepEqual(o.concepts, ['problem-solution', 'gotcha']);
    assert.deepEqual(o.filesRead, ['src/pager.ts']);
    assert.deepEqual(o.filesModified, ['src/pager.ts']);
    assert.deepEqual(o.toolUses, [1, 3]);
    assert.deepEqual(r.warnings, []);
  });

  it('finds XML inside a code fence', () => {
    const r = parseObservations('```xml\n' + OBS + '\n```');
    assert.equal(r.kind, 'observations');
    assert.equal(r.observations[0].title, 'Fixed the off-by-one in pager');
  });

  it('finds XML inside prose', () => {
    const r = parseObservations(`Sure! Here is what I observed:\n\n${OBS}\n\nLet me know if you need more.`);
    assert.equal(r.kind, 'observations');
    assert.equal(r.observations.length, 1);
  });

  it('reads several observations in one reply', () => {
    const two = `${OBS}\n<observation><type>discovery</type><title>Config lives in settings.json</title><tool_uses>2</tool_uses></observation>\n<observation type="decision"><title>Chose sql.js</title></observation>`;
    const r = parseObservations(two);
    assert.deepEqual(r.observations.map((o) => o.title), ['Fixed the off-by-one in pager', 'Config lives in settings.json', 'Chose sql.js']);
    assert.deepEqual(r.observations.map((o) => o.type), ['bugfix', 'discovery', 'decision']);
    assert.deepEqual(r.observations[1].toolUses, [2]);
  });

  it('gives a missing type the default type, with a warning', () => {
    const r = parseObservations('<observation><title>Something learned</title></observation>');
    assert.equal(r.observations[0].type, TAXONOMY.defaultType);
    assert.match(r.warnings.join('\n'), /without a type/);
  });

  it('keeps an unknown type and logs it', () => {
    const r = parseObservations('<observation><type>Performance Tweak</type><title>Faster</title></observation>');
    assert.equal(r.observations[0].type, 'performance_tweak');
    assert.match(r.warnings.join('\n'), /unknown observation type "performance_tweak"/);
  });

  it('normalises types written loosely', () => {
    const r = parseObservations('<observation><type>Bug Fix: null deref</type><title>a</title></observation><observation><type>security alert</type><title>b</title></observation>');
    assert.deepEqual(r.observations.map((o) => o.type), ['bugfix', 'security_alert']);
    assert.deepEqual(r.warnings, []);
  });

  it('turns "gotcha: long text" into gotcha, and other loose concepts into labels', () => {
    const r = parseObservations(
      '<observation><title>t</title><concepts><concept>gotcha: the cache is keyed by path, not content</concept><concept>How it works</concept><concept>tradeoff</concept><concept>gotcha</concept></concepts></observation>',
    );
    assert.deepEqual(r.observations[0].concepts, ['gotcha', 'how-it-works', 'trade-off']);
    assert.equal(normalizeConcept('Pattern - the repo pattern'), 'pattern');
    assert.equal(normalizeConcept('problem_solution'), 'problem-solution');
  });

  it('keeps unknown concepts and logs them', () => {
    const r = parseObservations('<observation><title>t</title><concepts>performance, gotcha</concepts></observation>');
    assert.deepEqual(r.observations[0].concepts, ['performance', 'gotcha']);
    assert.match(r.warnings.join('\n'), /unknown concept "performance"/);
  });

  it('drops an observation with no title, narrative, facts or concepts', () => {
    const r = parseObservations(`<observation><type>change</type><subtitle>only a subtitle</subtitle><files_read><file>a.ts</file></files_read></observation>${OBS}`);
    assert.equal(r.kind, 'observations');
    assert.equal(r.observations.length, 1);
    assert.equal(r.dropped, 1);
    const only = parseObservations('<observation><type>change</type></observation>');
    assert.equal(only.kind, 'malformed');
    assert.equal(only.dropped, 1);
  });

  it('keeps an observation with only a narrative, deriving its title', () => {
    const r = parseObservations('<observation><narrative>The worker retries with backoff. It never storms.</narrative></observation>');
    assert.equal(r.observations[0].title, 'The worker retries with backoff.');
  });

  it('salvages malformed XML: unclosed fields and a reply cut off mid-observation', () => {
    const cut = `<observation><type>feature</type><title>Added batching<narrative>Batches tool uses per session</narrative><facts><fact>ten per call<fact>thirty seconds max age</facts></observation>
<observation><type>change</type><title>Second one, truncated</title><narrative>The reply was cut off here`;
    const r = parseObservations(cut);
    assert.equal(r.kind, 'observations');
    assert.equal(r.observations.length, 2);
    assert.equal(r.observations[0].title, 'Added batching');
    assert.equal(r.observations[0].narrative, 'Batches tool uses per session');
    assert.deepEqual(r.observations[0].facts, ['ten per call', 'thirty seconds max age']);
    assert.equal(r.observations[1].narrative, 'The reply was cut off here');
  });

  it('reads fields given without an <observation> element', () => {
    const r = parseObservations('<type>discovery</type>\n<title>Found the lock file</title>\n<narrative>worker.pid holds the port.</narrative>');
    assert.equal(r.kind, 'observations');
    assert.equal(r.observations[0].title, 'Found the lock file');
  });

  it('reads CDATA, bullet facts and line lists', () => {
    const r = parseObservations('<observation><title><![CDATA[Use <T> generics]]></title><facts>\n- one\n- two\n</facts><files_read>a.ts, b.ts</files_read></observation>');
    assert.equal(r.observations[0].title, 'Use <T> generics');
    assert.deepEqual(r.observations[0].facts, ['one', 'two']);
    assert.deepEqual(r.observations[0].filesRead, ['a.ts', 'b.ts']);
  });

  it('treats <skip/> and an empty <observations/> as a deliberate skip', () => {
    assert.deepEqual([parseObservations('<skip reason="routine reads"/>').kind, parseObservations('<skip reason="routine reads"/>').skipReason], ['skip', 'routine reads']);
    assert.equal(parseObservations('<observations></observations>').kind, 'skip');
  });

  it('calls an <observation> tag that yields nothing malformed', () => {
    assert.equal(parseObservations('<observation/>').kind, 'malformed');
    assert.equal(parseObservations('<observation').kind, 'malformed');
  });

  it('classifies replies with no XML: empty, idle, prose, quota, auth', () => {
    assert.equal(parseObservations('').kind, 'empty');
    assert.equal(parseObservations('   \n').kind, 'empty');
    assert.equal(parseObservations('No significant observations in this batch.').kind, 'idle');
    assert.equal(parseObservations('Nothing notable here; these are routine reads.').kind, 'idle');
    assert.equal(parseObservations('I looked at the files and they implement a pager with a cursor and several helpers.').kind, 'prose');
    assert.equal(parseObservations('Credit balance is too low to access the Anthropic API.').kind, 'quota');
    assert.equal(parseObservations("You've hit your usage limit · resets 3pm").kind, 'quota');
    assert.equal(parseObservations('Invalid API key · Please run /login').kind, 'auth');
    assert.equal(parseObservations('OAuth token has expired.').kind, 'auth');
    assert.equal(classifyProse('```\n```'), 'empty');
  });

  it('does not mistake long prose that mentions a quota for a quota problem', () => {
    const long = `${'The module reads settings and applies defaults. '.repeat(20)}It also has a quota field.`;
    assert.equal(classifyProse(long), 'prose');
  });
});

describe('summary parser', () => {
  const SUM = `<summary><request>Add batching</request><investigated>processor.ts</investigated><learned>jobs are deleted with their results</learned><completed>batching by count and age</completed><next_steps>bench it</next_steps><notes>keep tests fast</notes></summary>`;

  it('reads a summary, also from a fence and prose', () => {
    for (const text of [SUM, '```xml\n' + SUM + '\n```', `Here you go:\n${SUM}\nDone.`]) {
      const r = parseSummary(text);
      assert.equal(r.kind, 'summary');
      assert.deepEqual(r.summary, {
        request: 'Add batching',
        investigated: 'processor.ts',
        learned: 'jobs are deleted with their results',
        completed: 'batching by count and age',
        nextSteps: 'bench it',
        notes: 'keep tests fast',
      });
    }
  });

  it('takes <skip_summary reason="…"/> as a valid empty summary', () => {
    const r = parseSummary('<skip_summary reason="only routine reads"/>');
    assert.equal(r.kind, 'skip');
    assert.equal(r.summary, null);
    assert.equal(r.skipReason, 'only routine reads');
  });

  it('reads fields without a wrapper and a summary cut off mid-way', () => {
    const r = parseSummary('<request>Fix login</request>\n<completed>token refresh');
    assert.equal(r.kind, 'summary');
    assert.equal(r.summary?.request, 'Fix login');
    assert.equal(r.summary?.completed, 'token refresh');
    assert.equal(r.summary?.learned, null);
  });

  it('classifies non-XML and empty summaries', () => {
    assert.equal(parseSummary('').kind, 'empty');
    assert.equal(parseSummary('The session refactored the pager and added tests for it, all good.').kind, 'prose');
    assert.equal(parseSummary('Invalid API key · Please run /login').kind, 'auth');
    assert.equal(parseSummary('<summary></summary>').kind, 'malformed');
  });
});
