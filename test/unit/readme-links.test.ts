// The Marketplace README's relative links become absolute URLs on the repository
// (scripts/lib/readmeLinks.mjs, used by scripts/package.mjs), and a missing file is reported.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';

const root = path.resolve(__dirname, '..', '..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { absoluteLinks, repositoryWebUrl } = require(path.join(root, 'scripts', 'lib', 'readmeLinks.mjs')) as {
  absoluteLinks(text: string, o: { root: string; readmeDir: string; repoWeb: string }): { text: string; images: string[]; missing: string[]; relative: string[] };
  repositoryWebUrl(repository: unknown): string;
};

describe('Marketplace README links', () => {
  const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'readme-links-'));
  const dir = path.join(repo, 'docs', 'marketplace');
  fs.mkdirSync(path.join(dir, 'images'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'images', 'panel.png'), 'png');
  fs.writeFileSync(path.join(repo, 'docs', 'privacy.md'), '# privacy');
  const web = 'https://github.com/claude-mem-vscode/claude-mem-vscode';

  it('reads the web URL from the repository field', () => {
    assert.equal(repositoryWebUrl({ type: 'git', url: `${web}.git` }), web);
    assert.equal(repositoryWebUrl(`git+${web}.git`), web);
    assert.throws(() => repositoryWebUrl(undefined), /no repository/);
    assert.throws(() => repositoryWebUrl('git@github.com:o/r.git'), /https GitHub/);
  });

  it('rewrites images to raw/HEAD and links to blob/HEAD, resolved from the README folder', () => {
    const text = [
      '![The panel](images/panel.png "Memory panel")',
      '<img src="./images/panel.png" width="600">',
      'See [privacy](../privacy.md#what-is-stored), [VS Code](https://code.visualstudio.com), [below](#settings).',
    ].join('\n');
    const r = absoluteLinks(text, { root: repo, readmeDir: dir, repoWeb: web });
    assert.deepEqual(r.missing, []);
    assert.deepEqual(r.images, ['docs/marketplace/images/panel.png']);
    assert.equal(
      r.text,
      [
        `![The panel](${web}/raw/HEAD/docs/marketplace/images/panel.png "Memory panel")`,
        `<img src="${web}/raw/HEAD/docs/marketplace/images/panel.png" width="600">`,
        `See [privacy](${web}/blob/HEAD/docs/privacy.md#what-is-stored), [VS Code](https://code.visualstudio.com), [below](#settings).`,
      ].join('\n'),
    );
    assert.deepEqual(absoluteLinks(r.text, { root: repo, readmeDir: dir, repoWeb: web }).relative, [], 'absolute links are left alone');
  });

  it('reports a link to a file that does not exist', () => {
    const r = absoluteLinks('![x](images/chat.png) [y](../nope.md)', { root: repo, readmeDir: dir, repoWeb: web });
    assert.deepEqual(r.missing.sort(), ['docs/marketplace/images/chat.png', 'docs/nope.md']);
  });

  it('the shipped README links only to files that exist', () => {
    const readmeDir = path.join(root, 'docs', 'marketplace');
    const r = absoluteLinks(fs.readFileSync(path.join(readmeDir, 'README.md'), 'utf8'), { root, readmeDir, repoWeb: web });
    assert.deepEqual(r.missing, []);
  });
});
