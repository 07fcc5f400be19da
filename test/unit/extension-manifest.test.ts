// package.json's contributions match the code that implements them: settings, tools, chat
// participant, commands, walkthrough media, untrusted-workspace capability.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { CAPABILITIES, COMMANDS, contributions } from '../../extension/core/manifest';
import { SECTION, SETTINGS } from '../../extension/core/settings';
import { TOOLS } from '../../extension/tools/index';

const root = path.resolve(__dirname, '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

describe('package.json contributions', () => {
  it('equal what extension/core/manifest.ts builds (rewrite with its writeManifest when this fails)', () => {
    const want = contributions(pkg.contributes);
    for (const key of Object.keys(want)) assert.deepEqual(pkg.contributes[key], want[key], `contributes.${key}`);
    assert.deepEqual(pkg.capabilities, CAPABILITIES);
    assert.deepEqual(pkg.activationEvents, ['onStartupFinished']);
  });

  it('keeps the Memory view container and view', () => {
    assert.equal(pkg.contributes.viewsContainers.activitybar[0].id, 'claudeMem');
    assert.equal(pkg.contributes.views.claudeMem[0].id, 'claudeMem.panel');
  });

  it('declares every setting the code reads, every tool it registers, every command it registers', () => {
    for (const k of Object.keys(SETTINGS)) assert.ok(pkg.contributes.configuration.properties[`${SECTION}.${k}`], k);
    assert.deepEqual(pkg.contributes.languageModelTools.map((t: { name: string }) => t.name), ['memory_search', 'memory_timeline', 'memory_get', 'memory_save', 'memory_context']);
    assert.deepEqual(TOOLS.map((t) => t.manifest.name), pkg.contributes.languageModelTools.map((t: { name: string }) => t.name));
    const src = fs.readFileSync(path.join(root, 'extension', 'extension.ts'), 'utf8');
    // Freshness registers its commands in its own folder (extension/freshness/index.ts).
    const fresh = fs.readFileSync(path.join(root, 'extension', 'freshness', 'index.ts'), 'utf8');
    const registered = [...src.matchAll(/reg\('(claudeMem\.\w+)'/g), ...fresh.matchAll(/registerCommand\('(claudeMem\.[\w.]+)'/g)].map((m) => m[1]).sort();
    assert.deepEqual(registered, COMMANDS.map((c) => c.command).sort());
  });

  it('gives every tool a model description long enough to be picked on its own', () => {
    for (const t of pkg.contributes.languageModelTools) {
      assert.ok(t.modelDescription.length > 250, t.name);
      assert.equal(t.inputSchema.type, 'object');
    }
  });

  it('has walkthrough media for every step', () => {
    for (const w of pkg.contributes.walkthroughs) for (const s of w.steps) assert.ok(fs.existsSync(path.join(root, s.media.markdown)), s.media.markdown);
  });
});

describe('tool input parsing', () => {
  const byName = Object.fromEntries(TOOLS.map((t) => [t.manifest.name, t]));
  it('accepts what models send and rejects what cannot work, with a message', () => {
    assert.deepEqual(byName.memory_get.parse({ ids: '#3, 4' }), { ids: [3, 4] });
    assert.deepEqual(byName.memory_get.parse({ ids: 5 }), { ids: [5] });
    assert.throws(() => byName.memory_get.parse({ ids: [] }), /non-empty/);
    assert.throws(() => byName.memory_get.parse({ ids: [-1] }), /positive/);
    assert.throws(() => byName.memory_search.parse({}), /query/);
    assert.deepEqual(byName.memory_search.parse({ query: ' x ', limit: 500 }), { query: 'x', type: undefined, limit: 50, allProjects: false });
    assert.throws(() => byName.memory_timeline.parse({}), /anchor/);
    assert.equal((byName.memory_timeline.parse({ anchor: 12 }) as { anchor: string }).anchor, '12');
    assert.throws(() => byName.memory_save.parse({ text: '  ' }), /text/);
    assert.ok(byName.memory_save.confirmation, 'saving asks the user first');
  });
});
