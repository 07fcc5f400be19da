// Sessions from every platform side by side: the panel's feed filters by a session's platform and
// names it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FeedState, filtersActive, PLATFORM_LABELS } from '../../media/panel/model';
import type { Observation } from '../../common/contract';

const obs = (id: number, sessionId: number): Observation => ({
  id,
  sessionId,
  project: 'p',
  type: 'change',
  title: `obs ${id}`,
  subtitle: null,
  facts: [],
  narrative: null,
  concepts: [],
  filesRead: [],
  filesModified: [],
  toolName: null,
  promptNumber: null,
  source: 'local',
  inputTokens: 0,
  outputTokens: 0,
  discoveryTokens: 0,
  createdAt: new Date(1000 * id).toISOString(),
  createdAtEpoch: 1000 * id,
});

describe('platform filter in the panel feed', () => {
  it('keeps only the sessions of the chosen platform', () => {
    const f = new FeedState();
    f.reset('p', [obs(1, 10), obs(2, 11), obs(3, 12)], [
      { id: 10, project: 'p', platform: 'vscode-agent', status: 'completed', startedAt: 1 },
      { id: 11, project: 'p', platform: 'claude-code', status: 'completed', startedAt: 1 },
      { id: 12, project: 'p', platform: 'vscode', status: 'active', startedAt: 1 },
    ]);
    assert.equal(f.groups().length, 3);
    assert.deepEqual(f.groups({ platform: 'vscode-agent' }).map((g) => g.sessionId), [10]);
    assert.deepEqual(f.groups({ platform: 'claude-code' }).map((g) => g.sessionId), [11]);
    assert.equal(f.groups({ platform: 'gemini-cli' }).length, 0);
    assert.ok(filtersActive({ platform: 'codex' }));
    for (const p of ['vscode', 'vscode-agent', 'claude-code', 'copilot-cli', 'codex', 'gemini-cli']) assert.ok(PLATFORM_LABELS[p], p);
  });
});
