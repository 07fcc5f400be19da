// Every e2e suite, in one process so that they share one code-server and one Chromium: a server
// start, a Chromium launch and a test process cost 5-8 CPU s each on this 2-core machine, and the
// suites ran one after another anyway. Each suite still gets a data dir, worker port, settings,
// workspace and browser context of its own (harness/session.ts). One describe per suite file.
//
// Run: node --require ./test/ts.cjs --test test/e2e/suites.test.ts (needs `bash
//      scripts/code-server/install.sh` once; team needs Debian's postgresql package)
//      one of them: add --test-name-pattern=freshness (activation, freshness, memory, team)
// CLAUDE_MEM_SKIP_E2E=1 skips them (e.g. `npm test` on a machine without the install).
import { after, describe } from 'node:test';
import { e2eSetup, stopCodeServers } from './harness';
import { activationSuite } from './suites/activation';
import { freshnessSuite } from './suites/freshness';
import { memorySuite } from './suites/memory';
import { teamSuite } from './suites/team';

const e2e = e2eSetup();
describe('activation', () => activationSuite(e2e));
describe('freshness', () => freshnessSuite(e2e));
describe('memory', () => memorySuite(e2e));
describe('team', () => teamSuite(e2e));

after(stopCodeServers);
