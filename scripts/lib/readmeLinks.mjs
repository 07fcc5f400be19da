// The Marketplace README lives in docs/marketplace/ but ships as the .vsix's README.md, where its
// relative links would point nowhere (the Marketplace shows a README outside any folder). As vsce
// does for a README at the root, rewrite them to absolute URLs on the repository: images to
// <repo>/raw/HEAD/<path>, other links to <repo>/blob/HEAD/<path>, with <path> resolved from the
// README's own folder. A link to a file that does not exist is an error, not a broken page.
import * as fs from 'node:fs';
import * as path from 'node:path';

/** "https://github.com/o/r.git" or "git+https://..." -> "https://github.com/o/r". */
export function repositoryWebUrl(repository) {
  const url = typeof repository === 'string' ? repository : repository?.url;
  if (!url) throw new Error('package.json has no repository field');
  const m = /^(?:git\+)?(https:\/\/github\.com\/[\w.-]+\/[\w.-]+?)(?:\.git)?\/?$/.exec(url);
  if (!m) throw new Error(`repository ${url} is not an https GitHub URL`);
  return m[1];
}

const isRelative = (href) => !/^([a-z][\w+.-]*:|#|\/\/)/i.test(href) && !href.startsWith('/');

/**
 * @param {string} text the README
 * @param {{ root: string, readmeDir: string, repoWeb: string }} o readmeDir absolute; root the repository root
 * @returns {{ text: string, images: string[], missing: string[], relative: string[] }} images and missing
 *   as root-relative paths; relative: every relative link as written
 */
export function absoluteLinks(text, { root, readmeDir, repoWeb }) {
  const images = new Set();
  const missing = new Set();
  const relative = [];
  const resolve = (href, image) => {
    if (!isRelative(href)) return href;
    relative.push(href);
    const [file, hash = ''] = href.split(/(?=#)/);
    const rel = path.relative(root, path.resolve(readmeDir, decodeURI(file))).split(path.sep).join('/');
    if (rel.startsWith('..') || !fs.existsSync(path.join(root, rel))) missing.add(rel);
    if (image) images.add(rel);
    return `${repoWeb}/${image ? 'raw' : 'blob'}/HEAD/${encodeURI(rel)}${hash}`;
  };
  const out = text
    // ![alt](href "title") and [text](href "title")
    .replace(/(!?)\[((?:[^\]\\]|\\.)*)\]\(\s*<?([^)\s>]+)>?((?:\s+"[^"]*")?)\s*\)/g, (_, bang, label, href, title) => `${bang}[${label}](${resolve(href, bang === '!')}${title})`)
    // <img src="href">
    .replace(/(<img\b[^>]*?\bsrc=")([^"]+)(")/gi, (_, a, href, b) => `${a}${resolve(href, true)}${b}`);
  return { text: out, images: [...images], missing: [...missing], relative };
}
