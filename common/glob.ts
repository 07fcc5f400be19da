// Glob matching for every process: exclusions (files.exclude, the user's globs, .gitignore lines),
// excluded projects, secret-looking file names. `**`, `*`, `?`, `[...]` classes and `{a,b}`
// alternatives, on forward-slash paths. Pure string code: no Node, vscode or DOM import.

const cache = new Map<string, RegExp>();

/** Compiles a glob to an anchored RegExp. `**` crosses '/', `*` and `?` do not. */
export function globToRegExp(glob: string, caseInsensitive = false): RegExp {
  const key = `${caseInsensitive ? 'i' : 's'}:${glob}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const re = new RegExp(`^${translate(glob)}$`, caseInsensitive ? 'i' : '');
  if (cache.size > 2000) cache.clear();
  cache.set(key, re);
  return re;
}

/**
 * True when a glob whose only wildcard is `*` matches the whole of name (no '/' in either), without
 * building a RegExp: a hook checks every path it sees against the secret-file names, and compiling
 * their RegExp cost a hook process 0.7 ms (measured with bench/hooks.mjs's timeline).
 * `parts` is the glob split on '*'.
 */
export function starGlobMatches(parts: readonly string[], name: string): boolean {
  const last = parts.length - 1;
  if (last === 0) return name === parts[0];
  if (name.length < parts.reduce((n, p) => n + p.length, 0) || !name.startsWith(parts[0]) || !name.endsWith(parts[last])) return false;
  let at = parts[0].length;
  const end = name.length - parts[last].length;
  for (let i = 1; i < last; i++) {
    const found = name.indexOf(parts[i], at);
    if (found < 0 || found + parts[i].length > end) return false;
    at = found + parts[i].length;
  }
  return true;
}

/** Globs that starGlobMatches can answer: `*` is their only special character. */
export const isStarGlob = (glob: string): boolean => !['?', '[', ']', '{', '}', '\\'].some((c) => glob.includes(c));

function translate(glob: string): string {
  let re = '';
  let depth = 0; // inside {…}
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') {
      if (glob[i + 1] === '*') {
        // `**/` matches zero or more whole segments; a bare `**` anything.
        if (glob[i + 2] === '/') {
          re += '(?:.*/)?';
          i += 2;
        } else {
          re += '.*';
          i++;
        }
      } else re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end < 0) re += '\\[';
      else {
        let body = glob.slice(i + 1, end);
        if (body.startsWith('!')) body = `^${body.slice(1)}`;
        re += `[${body.replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else if (c === '{') {
      depth++;
      re += '(?:';
    } else if (c === '}' && depth > 0) {
      depth--;
      re += ')';
    } else if (c === ',' && depth > 0) re += '|';
    else if (c === '\\' && i + 1 < glob.length) {
      re += glob[i + 1].replace(/[.+^${}()|[\]\\*?]/g, '\\$&');
      i++;
    } else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  while (depth-- > 0) re += ')';
  return re;
}

/** True when any glob matches the relative path. A glob without '/' also matches any basename. */
export function matchesAnyGlob(relPath: string, globs: readonly string[], caseInsensitive = false): boolean {
  const p = relPath.replace(/\\/g, '/');
  const base = p.slice(p.lastIndexOf('/') + 1);
  for (const raw of globs) {
    const g = raw.trim().replace(/\\/g, '/');
    if (!g) continue;
    const re = globToRegExp(g.replace(/^\.\//, ''), caseInsensitive);
    if (re.test(p)) return true;
    if (!g.includes('/') && re.test(base)) return true;
    // A glob naming a folder excludes what is inside it: `**/node_modules` covers node_modules/x.
    if (prefixes(p).some((d) => re.test(d))) return true;
  }
  return false;
}

function prefixes(p: string): string[] {
  const out: string[] = [];
  let i = p.indexOf('/');
  while (i > 0) {
    out.push(p.slice(0, i));
    i = p.indexOf('/', i + 1);
  }
  return out;
}
