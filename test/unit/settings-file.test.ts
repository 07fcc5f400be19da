// <dataDir>/settings.json is read by one module (common/node/settingsFile.ts); each area validates
// its own section of what it returns: the top-level keys (config), "search", "context", "team".
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readSettings } from '../../common/node/config';
import { readSettingsFile, settingsSection } from '../../common/node/settingsFile';
import { CONTEXT_BOUNDS, DEFAULT_CONTEXT_SETTINGS, readContextSettings } from '../../worker/context/settings';
import { DEFAULT_SEARCH_SETTINGS, readSearchConfig } from '../../worker/search/settings';
import { readTeamSettings } from '../../worker/team/settings';
import { tempDir } from '../helpers/worker';

function dirWith(text: string | undefined): string {
  const dir = tempDir();
  if (text !== undefined) fs.writeFileSync(path.join(dir, 'settings.json'), text);
  return dir;
}

describe('readSettingsFile', () => {
  it('a missing file is an empty object and no problem', () => {
    assert.deepEqual(readSettingsFile(dirWith(undefined)), { raw: {} });
  });

  it('a file that is not JSON, or not an object, is ignored with a problem naming the file', () => {
    for (const text of ['{ "maxFieldChars": ', '[1, 2]', 'null', '42']) {
      const r = readSettingsFile(dirWith(text));
      assert.deepEqual(r.raw, {}, text);
      assert.match(r.problem ?? '', /^settings\.json ignored: /, text);
    }
  });

  it('settingsSection gives an object section, or an empty object for anything else', () => {
    const raw = { team: { machine: 'm' }, search: [1], context: 'x' };
    assert.deepEqual(settingsSection(raw, 'team'), { machine: 'm' });
    assert.deepEqual(settingsSection(raw, 'search'), {});
    assert.deepEqual(settingsSection(raw, 'context'), {});
    assert.deepEqual(settingsSection(raw, 'freshness'), {});
  });
});

describe('each area reads its own section of the one file', () => {
  const dir = dirWith(
    JSON.stringify({
      maxFieldChars: 1234,
      skipTools: 'not a list',
      search: { embeddings: 'off', vectorMinScore: 5, rrfK: 5000 },
      context: { tokenBudget: 50, observations: 7, types: ['bugfix'], concepts: [1] },
      team: { injectTeammates: false, machine: 'desk' },
    }),
  );

  it('config: top-level keys of the right type, the rest default', () => {
    const { settings, problem } = readSettings(dir);
    assert.equal(problem, undefined);
    assert.equal(settings.maxFieldChars, 1234);
    assert.ok(Array.isArray(settings.skipTools));
  });

  it('search: its section, clamped; context: its section, clamped, wrong types ignored', () => {
    const c = readSearchConfig(dir, {});
    assert.equal(c.search.embeddings, 'off');
    assert.equal(c.search.vectorMinScore, 1);
    // The ranking's constants are not settings: the file cannot change them.
    assert.equal(c.search.rrfK, DEFAULT_SEARCH_SETTINGS.rrfK);
    assert.equal(c.context.tokenBudget, CONTEXT_BOUNDS.tokenBudget[0]);
    assert.equal(c.context.observations, 7);
    assert.deepEqual(c.context.types, ['bugfix']);
    assert.deepEqual(c.context.concepts, DEFAULT_CONTEXT_SETTINGS.concepts);
    assert.deepEqual(c.context, readContextSettings({ tokenBudget: 50, observations: 7, types: ['bugfix'], concepts: [1] }));
  });

  it('team: its section, the environment first', () => {
    assert.deepEqual(readTeamSettings(dir, {}), { injectTeammates: false, machine: 'desk' });
    assert.equal(readTeamSettings(dir, { CLAUDE_MEM_TEAM_INJECT: '1' }).injectTeammates, true);
  });

  it('a malformed file: config reports it once, every area keeps its defaults', () => {
    const bad = dirWith('{ nope');
    assert.match(readSettings(bad).problem ?? '', /settings\.json ignored/);
    assert.deepEqual(readSearchConfig(bad, {}).context, DEFAULT_CONTEXT_SETTINGS);
    assert.equal(readTeamSettings(bad, {}).injectTeammates, true);
  });
});
