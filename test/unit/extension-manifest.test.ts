// package.json's contributions match the code that implements them: settings, tools, chat
// participant, commands, walkthrough media, untrusted-workspace capability.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { CAPABILITIES, COMMANDS, contributions, l10nMessages, nlsStrings } from '../../extension/core/manifest';
import { SECTION, SETTINGS } from '../../extension/core/settings';
import { TOOL_ALIASES, TOOLS } from '../../extension/tools/index';

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
    // {verb}_{noun} names, then the 0.1 names as aliases for one release.
    assert.deepEqual(pkg.contributes.languageModelTools.map((t: { name: string }) => t.name), [
      'search_memory', 'get_memory_timeline', 'get_memories', 'save_memory', 'get_memory_context',
      'memory_search', 'memory_timeline', 'memory_get', 'memory_save', 'memory_context',
    ]);
    assert.deepEqual(TOOLS.map((t) => t.manifest.name), pkg.contributes.languageModelTools.map((t: { name: string }) => t.name));
    const src = fs.readFileSync(path.join(root, 'extension', 'commands', 'index.ts'), 'utf8');
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

describe('tool names', () => {
  const tools = pkg.contributes.languageModelTools as Array<Record<string, unknown> & { name: string }>;
  it("follow VS Code's {verb}_{noun} guidance; each old name is a hidden alias of its new tool", () => {
    const current = tools.filter((t) => t.canBeReferencedInPrompt);
    assert.equal(current.length, 5);
    for (const t of current) assert.match(t.name, /^(search|get|save)_[a-z_]+$/, t.name);
    for (const [oldName, name] of Object.entries(TOOL_ALIASES)) {
      const alias = tools.find((t) => t.name === oldName)!;
      const tool = tools.find((t) => t.name === name)!;
      assert.equal(alias.canBeReferencedInPrompt, false, `${oldName} stays out of the tool picker and agent mode`);
      assert.deepEqual(alias.inputSchema, tool.inputSchema, oldName);
      assert.match(String(alias.modelDescription), new RegExp(`^Deprecated: old name of ${name}`));
      // `#memorySearch` in saved prompts resolves to the new tool.
      assert.deepEqual(tool.legacyToolReferenceFullNames, [oldName.replace(/_(\w)/g, (_, c: string) => c.toUpperCase())]);
    }
  });

  it('an alias runs the same code as its new tool', () => {
    const byName = new Map(TOOLS.map((t) => [t.manifest.name, t]));
    for (const [oldName, name] of Object.entries(TOOL_ALIASES)) {
      assert.equal(byName.get(oldName)!.run, byName.get(name)!.run, oldName);
      assert.equal(byName.get(oldName)!.parse, byName.get(name)!.parse, oldName);
    }
  });
});

describe('package.nls.json', () => {
  const nls = JSON.parse(fs.readFileSync(path.join(root, 'package.nls.json'), 'utf8')) as Record<string, string>;
  const placeholders = (v: unknown): string[] =>
    typeof v === 'string' ? [...v.matchAll(/^%([^%\s]+)%$/g)].map((m) => m[1]) : v && typeof v === 'object' ? Object.values(v).flatMap(placeholders) : [];

  it('resolves every %key% in package.json, and has no key package.json does not use', () => {
    const used = new Set(placeholders(pkg));
    const missing = [...used].filter((k) => !(k in nls));
    assert.deepEqual(missing, [], 'placeholders without text');
    const unused = Object.keys(nls).filter((k) => !used.has(k));
    assert.deepEqual(unused, [], 'texts no placeholder uses');
  });

  it('equals what extension/core/manifest.ts builds (rewrite with its writeManifest when this fails)', () => {
    assert.deepEqual(nls, nlsStrings());
  });

  it('leaves no user-visible contribution text inline', () => {
    const c = pkg.contributes;
    const visible = [
      c.configuration.title,
      ...Object.values(c.configuration.properties as Record<string, Record<string, unknown>>).flatMap((p) => [p.description, p.markdownDescription, ...((p.enumDescriptions as string[]) ?? [])]),
      ...c.commands.flatMap((x: Record<string, string>) => [x.title, x.category]),
      ...c.viewsContainers.activitybar.map((x: Record<string, string>) => x.title),
      ...c.views.claudeMem.map((x: Record<string, string>) => x.name),
      ...c.chatParticipants.flatMap((x: Record<string, unknown>) => [x.fullName, x.description, ...(x.commands as Array<Record<string, string>>).map((y) => y.description)]),
      ...c.languageModelTools.flatMap((x: Record<string, string>) => [x.displayName, x.userDescription]),
      ...c.walkthroughs.flatMap((w: Record<string, unknown>) => [w.title, w.description, ...(w.steps as Array<Record<string, string>>).flatMap((st) => [st.title, st.description])]),
      pkg.capabilities.untrustedWorkspaces.description,
    ].filter((v) => v !== undefined);
    assert.ok(visible.length > 100);
    for (const v of visible) assert.match(v, /^%[^%\s]+%$/);
  });

  it('points l10n at the bundle folder VS Code reads vscode.l10n.t translations from', () => {
    assert.equal(pkg.l10n, './l10n');
  });
});

describe('l10n/bundle.l10n.json', () => {
  const { messages, nonLiteral } = l10nMessages(root);
  const bundle = JSON.parse(fs.readFileSync(path.join(root, 'l10n', 'bundle.l10n.json'), 'utf8')) as Record<string, string>;

  it('holds every l10n.t message of the extension and nothing else (rewrite with writeManifest when this fails)', () => {
    assert.deepEqual(bundle, messages);
    assert.ok(Object.keys(bundle).length > 100, 'notifications, quick picks, status bar, chat replies');
  });

  it('every l10n.t call has a literal message, so it can be translated', () => {
    assert.deepEqual(nonLiteral, []);
  });

  it('every translation bundle beside it (bundle.l10n.<lang>.json) translates only known messages, keeping their {n} arguments', () => {
    for (const f of fs.readdirSync(path.join(root, 'l10n')).filter((x) => /^bundle\.l10n\.[\w-]+\.json$/.test(x))) {
      const tr = JSON.parse(fs.readFileSync(path.join(root, 'l10n', f), 'utf8')) as Record<string, string>;
      for (const [k, v] of Object.entries(tr)) {
        assert.ok(k in bundle, `${f}: ${k}`);
        assert.deepEqual([...v.matchAll(/{\d+}/g)].map(String).sort(), [...k.matchAll(/{\d+}/g)].map(String).sort(), `${f}: ${k}`);
      }
    }
  });

  it('the user-facing wording is unchanged in English (l10n.t formats {n} like VS Code)', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { l10nT } = require('../helpers/fakeVscode.cjs') as { l10nT: (m: string, ...a: unknown[]) => string };
    assert.equal(l10nT('Forgot {0} ({1} sessions).', 'alpha', 3), 'Forgot alpha (3 sessions).');
    assert.equal(l10nT('Hello {name}', { name: 'x' }), 'Hello x');
    assert.equal(l10nT('{0} and {1}', 'a'), 'a and {1}');
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
