// One list of hook handlers (common/contract/hooks.ts): the CLI's handler table and both
// installers name only those, and every one has a handler.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HOOK_NAMES } from '../../common/contract/hooks';
import { CLAUDE_CODE_HOOKS, VSCODE_AGENT_HOOKS } from '../../common/node/install';
import { HOOK_HANDLERS } from '../../cli/hooks/run';

describe('hook names', () => {
  it('the handler table is the list', () => {
    assert.deepEqual(Object.keys(HOOK_HANDLERS).sort(), [...HOOK_NAMES].sort());
  });
  it('the installers use only listed handlers', () => {
    for (const spec of [...CLAUDE_CODE_HOOKS, ...VSCODE_AGENT_HOOKS]) assert.ok((HOOK_NAMES as readonly string[]).includes(spec.hook), spec.hook);
  });
});
