// The Memory panel's localisation (common/panel/l10n.ts, page.ts; media/panel/l10n.ts): the page formats like
// vscode.l10n.t, translates with the bundle the extension passes, and stays English without one.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BUNDLE_ELEMENT_ID, format, localizer } from '../../common/panel/l10n';
import { l10n } from '../../media/panel/l10n';
import { renderPage, webviewCsp } from '../../common/panel/page';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { l10nT } = require('../helpers/fakeVscode.cjs') as { l10nT: (m: string, ...a: unknown[]) => string };

describe('panel l10n.t', () => {
  it('formats {n} and {name} like vscode.l10n.t, leaving an unknown placeholder in place', () => {
    const t = localizer().t;
    for (const [m, args] of [
      ['Forgot {0} ({1} sessions).', ['alpha', 3]],
      ['{0} and {1}', ['a']],
      ['{0}% fewer', [42]],
      ['braces {x} stay', []],
      ['Reading {0}: {1}', ['$&', '{1}']],
    ] as [string, (string | number)[]][]) {
      assert.equal(t(m, ...args), l10nT(m, ...args), m);
    }
    assert.equal(t('Hello {name}', { name: 'x' }), 'Hello x');
    assert.equal(format('Reading {0}: {1}', ['$&', '{0}']), 'Reading $&: {0}', 'arguments are not formatted again');
  });

  it('translates with the bundle (plain or {message, comment}) and falls back to English per message', () => {
    const t = localizer({ 'Search failed: {0}': 'Suche fehlgeschlagen: {0}', Memory: { message: 'Gedächtnis', comment: ['tab'] } }).t;
    assert.equal(t('Search failed: {0}', 'timeout'), 'Suche fehlgeschlagen: timeout');
    assert.equal(t('Memory'), 'Gedächtnis');
    assert.equal(t('Nothing matches.'), 'Nothing matches.');
  });

  it('is English where there is no page (Node: model.ts and tests)', () => {
    assert.equal(l10n.t('{0} result', 1), '1 result');
  });
});

describe('renderPage with a bundle', () => {
  const base = { nonce: 'abc', csp: webviewCsp('vscode-resource:', 'abc'), host: 'webview' as const, script: { src: 'https://x/panel.js' } };

  it('without one (English, and the browser viewer) writes the page as before: lang en, no bundle element', () => {
    const html = renderPage(base);
    assert.match(html, /<html lang="en">/);
    assert.match(html, /<title>Memory<\/title>/);
    assert.match(html, /<p class="boot">Loading memory…<\/p>/);
    assert.match(html, /<noscript>The memory viewer needs JavaScript.<\/noscript>/);
    assert.doesNotMatch(html, new RegExp(BUNDLE_ELEMENT_ID));
    assert.equal(renderPage({ ...base, lang: 'de' }), html, 'a language without a bundle stays English');
  });

  it('with one, puts it in a JSON data block no translation can close, before the script, and translates the shell', () => {
    const bundle = { 'Loading memory…': 'Lade </script><script>alert(1)</script> <!-- & "x"', Memory: 'Gedächtnis' };
    const html = renderPage({ ...base, l10n: bundle, lang: 'de' });
    assert.match(html, /<html lang="de">/);
    assert.match(html, /<title>Gedächtnis<\/title>/);
    assert.match(html, /<p class="boot">Lade &lt;\/script&gt;&lt;script&gt;alert\(1\)&lt;\/script&gt; &lt;!-- &amp; &quot;x&quot;<\/p>/);
    const block = new RegExp(`<script type="application/json" id="${BUNDLE_ELEMENT_ID}" nonce="abc">(.*?)</script>\\n<script nonce="abc" src=`).exec(html);
    assert.ok(block, html);
    assert.doesNotMatch(block[1], /</);
    assert.deepEqual(JSON.parse(block[1]), bundle);
    assert.equal(html.match(/<script/g)?.length, 2, 'the data block and the panel script, nothing the translation opened');
  });
});
