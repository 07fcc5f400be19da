import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { teamStatusText } from '../../extension/team/statusText';
import type { TeamStatus } from '../../worker/team/types';

const base: TeamStatus = {
  state: 'connected',
  source: 'extension',
  hub: 'db:5432/hub',
  author: 'alice',
  machine: 'laptop',
  machineId: 'm1',
  waiting: 0,
  shares: [{ project: 'shop', team: 'core', cursor: 3, prompts: 0, waiting: 0 }],
  lastError: null,
  lastPushAt: null,
  lastPullAt: null,
  injectTeammates: true,
};

describe('team: status bar text', () => {
  it('is hidden when team memory is off', () => {
    assert.equal(teamStatusText(undefined), undefined);
    assert.equal(teamStatusText({ ...base, state: 'off' }), undefined);
  });
  it('says connected, offline with N waiting, or error', () => {
    assert.equal(teamStatusText(base)?.text, '$(cloud) Team');
    const off = teamStatusText({ ...base, state: 'offline', waiting: 7, lastError: 'connect ECONNREFUSED' });
    assert.equal(off?.text, '$(cloud-offline) Team 7');
    assert.match(off?.tooltip ?? '', /7 record\(s\) waiting/);
    const err = teamStatusText({ ...base, state: 'error', lastError: 'role "bob" may not migrate it' });
    assert.equal(err?.warn, true);
    assert.match(err?.tooltip ?? '', /may not migrate/);
  });
});
