// Secret redaction: values that look like credentials are replaced by REDACTED before anything is
// stored. Precise rather than greedy (ordinary code must pass unchanged) and linear: every
// quantifier is bounded or follows a literal prefix, and private key blocks are found with indexOf,
// so 1 MB of adversarial text costs one pass per rule. Pure string code: no Node or vscode import.

export const REDACTED = '[redacted]';
/** Inputs past this size are cut before redaction (callers cut far earlier). */
export const MAX_REDACT_INPUT = 4 * 1024 * 1024;

// Well-known key formats, replaced whole, from a word boundary to the key's last character.
const TOKEN_FORMATS = [
  // AWS access key ids (long-term and temporary)
  '(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ABIA|ACCA)[0-9A-Z]{16}(?![0-9A-Z])',
  // GitHub: classic and fine-grained personal tokens, OAuth, app and refresh tokens
  'gh[pousr]_[A-Za-z0-9]{30,4096}',
  'github_pat_[A-Za-z0-9_]{22,4096}',
  // GitLab personal, deploy, runner, pipeline-trigger and feed tokens
  'gl(?:pat|dt|rt|ptt|ft|cbt|soat)-[A-Za-z0-9_-]{20,4096}',
  // Anthropic, then OpenAI (project, service-account, admin and legacy keys)
  'sk-ant-[A-Za-z0-9_-]{20,4096}',
  'sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,4096}',
  'sk-[A-Za-z0-9]{32,4096}',
  // Slack tokens, app-level tokens and webhooks
  'xox[abposre]-[A-Za-z0-9-]{10,4096}',
  'xapp-[A-Za-z0-9-]{10,4096}',
  'https://hooks\\.slack\\.com/services/[A-Za-z0-9/_-]{10,4096}',
  // Google API keys, Stripe live/test secret keys
  'AIza[0-9A-Za-z_-]{35}',
  '[sr]k_(?:live|test)_[0-9A-Za-z]{16,4096}',
  // npm, Hugging Face, SendGrid, HashiCorp Vault (service, batch, recovery)
  'npm_[A-Za-z0-9]{36,4096}',
  'hf_[A-Za-z0-9]{30,4096}',
  'SG\\.[A-Za-z0-9_-]{16,64}\\.[A-Za-z0-9_-]{16,4096}',
  'hv[sbr]\\.[A-Za-z0-9_-]{20,4096}',
].join('|');
const TOKENS = new RegExp(`\\b(?:${TOKEN_FORMATS})`, 'g');
// `\b` fails after `_`, so `mcp__x__ghp_…` needs a second pass. It runs only when an `_` is
// followed by a key's prefix (a pattern that starts with a literal '_' is a fast scan); a
// lookbehind in TOKENS itself, or no boundary at all, made every text 3-8x slower.
const TOKENS_AFTER_UNDERSCORE = new RegExp(`(?<=_)(?:${TOKEN_FORMATS})`, 'g');
const UNDERSCORE_HINT = /_(?=[AghsxnrSh])(?:A[A-Z]{3}[0-9A-Z]{16}|gh[pousr]_|github_pat_|gl[a-z]{2,4}-|sk-|xox|xapp-|https:|AIza|[sr]k_|npm_|hf_|SG\.|hv[sbr]\.)/;

// user:password@ in a URL: the password goes, the rest stays readable. Anchored on the literal
// "://" (the scheme before it does not matter), so ordinary text costs one fast scan. The user may
// be empty (`redis://:pw@host`) and the password may hold '@' (the last '@' before the host ends it).
const URL_PASSWORD = /(:\/\/[^\s:/@"'<>]{0,256}:)([^\s/"'<>]{1,256})(@)/g;
// Authorization headers: a scheme and its credentials (Digest and AWS4 take the rest of the line),
// or a raw key with no scheme.
const AUTH_HEADER =
  /\b(authorization["']?\s{0,8}[:=]\s{0,8}["']?)(?:((?:bearer|basic|token|bot|apikey|api-key|key|sso-key|negotiate|ntlm)\s{1,8})([^\s"'<>]{4,4096})|((?:digest|aws4-hmac-sha256|hoba|mutual|vapid)\s{1,8})([^\n]{1,4096})|([^\s"'<>,;]{8,4096}))/gi;
// Command-line flags: --password=…, --token …
const FLAG = /(?<![\w-])(--?(?:password|passwd|token|secret|api-?key|access-?key|client-?secret)(?:=|\s{1,8}))("[^"\n]{1,4096}"?|'[^'\n]{1,4096}'?|[^\s"']{1,4096})/gi;
// NAME = value, NAME: "value", "name": "value": found from a credential word (CREDENTIAL_WORD), the
// identifier around it checked by isSecretName, then what follows it matched here (sticky).
const AFTER_NAME = /(["']?\]?)(\s{0,8}(?::|=|:=)\s{0,8})("[^"\n]{0,4096}"?|'[^'\n]{0,4096}'?|[^\s"',;&)\]}]{1,4096})/y;
const MAX_NAME = 48;
// One line of .env-style content: KEY=value.
const ENV_LINE = /^([ \t]{0,64}(?:export[ \t]{1,8})?[A-Z_][A-Z0-9_]{0,127}=)([^\n]{1,4096})$/gm;
const ENV_LINE_TEST = /(?:^|\n)[ \t]{0,64}(?:export[ \t]{1,8})?[A-Z_][A-Z0-9_]{0,127}=[^\s=]/g;
// The same with a compose file's `- KEY=value` list items, used only when the text holds "- ".
const ENV_ITEM = /^([ \t]{0,64}(?:export[ \t]{1,8}|-[ \t]{1,8})?[A-Z_][A-Z0-9_]{0,127}=)([^\n]{1,4096})$/gm;
const ENV_ITEM_TEST = /(?:^|\n)[ \t]{0,64}(?:export[ \t]{1,8}|-[ \t]{1,8})?[A-Z_][A-Z0-9_]{0,127}=[^\s=]/g;

/**
 * Text without any of these holds no auth header, credential flag or assignment, and skips those
 * three rules: the first run of FLAG and AUTH_HEADER in a process (their compile) costs a hook about
 * 0.45 ms, most tool uses never need them, and a hook runs them once.
 */
const CREDENTIAL_HINT = /pass|secret|token|key|credential|pwd|authori/i;
/** Where a credential assignment can be: at an identifier holding one of these. */
const CREDENTIAL_WORD = /pass|secret|token|key|credential|pwd/gi;
const SECRET_WORDS = new Set(['password', 'passwd', 'passphrase', 'secret', 'secrets', 'token', 'apikey', 'credential', 'credentials', 'pwd']);
const KEY_QUALIFIERS = new Set(['api', 'access', 'private', 'secret', 'client', 'signing', 'encryption', 'master', 'session', 'auth', 'license', 'account']);
/** A last word ending in one of these names a credential too: `PGPASSWORD`, `NPM_AUTHTOKEN`, `clientsecret`. */
const SECRET_SUFFIX = /(?:password|passwd|token|secret|apikey)$/;

const TRAILING = new Set(['base', 'value', 'data', 'raw', 'str', 'string', 'b64', 'hex']);

/**
 * Does an identifier name a credential? Its last word (camelCase, snake_case, kebab and dotted
 * names; a trailing `_base`/`_value`… ignored) is a credential word: `accessToken`, `DB_PASSWORD`,
 * `api_key`, `SECRET_KEY_BASE`; not `tokenCount`, `MAX_TOKENS`, `keyboard` or the shell's `PWD`.
 */
export function isSecretName(name: string): boolean {
  if (name.length > 128) return false;
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[\s_.-]+/)
    .filter(Boolean);
  let i = words.length - 1;
  if (i > 0 && TRAILING.has(words[i])) i--;
  const w = words[i];
  if (w === undefined) return false;
  if (w === 'pwd') return words.length > 1; // DB_PWD, not PWD / OLDPWD
  if (SECRET_WORDS.has(w) || SECRET_SUFFIX.test(w)) return true;
  return (w === 'key' || w === 'keys') && i > 0 && KEY_QUALIFIERS.has(words[i - 1]);
}

/** A value no one would call a secret: empty, a number, a boolean, a $reference. */
export function plain(v: string): boolean {
  return v === '' || v === REDACTED || v.startsWith('$') || /^(?:true|false|yes|no|on|off|null|none|nil|undefined|\d+(?:\.\d+)*[a-z]{0,3})$/i.test(v);
}

/** Values of a .env-style line kept as they are: plain ones, short words, paths, URLs without a password. */
function harmless(v: string): boolean {
  return (
    plain(v) ||
    /^[a-z]{1,12}$/.test(v) ||
    /^(?:\.{0,2}\/|~\/)[\w./-]{0,512}$/.test(v) ||
    /^(?:https?:\/\/)[^\s@]{0,512}$/.test(v)
  );
}

/** Unquoted values given to a secret name must look like a credential, not code. */
function tokenLike(v: string): boolean {
  return v.length >= 6 && !/[()]/.test(v) && /[0-9]/.test(v) && /[A-Za-z]/.test(v);
}

/** Replaces private key blocks (BEGIN … PRIVATE KEY … END); an unterminated one hides the rest. */
function redactKeyBlocks(text: string): string {
  const BEGIN = '-----BEGIN ';
  let i = text.indexOf(BEGIN);
  if (i < 0) return text;
  let out = '';
  let pos = 0;
  while (i >= 0) {
    const headEnd = text.indexOf('-----', i + BEGIN.length);
    // The label must be short and end with PRIVATE KEY (RSA, EC, OPENSSH, ENCRYPTED…, PGP … BLOCK).
    const label = headEnd < 0 || headEnd - i > 80 ? '' : text.slice(i + BEGIN.length, headEnd);
    if (!/PRIVATE KEY(?: BLOCK)?$/.test(label)) {
      i = text.indexOf(BEGIN, i + BEGIN.length);
      continue;
    }
    const end = text.indexOf('-----END ', headEnd + 5);
    const endLine = end < 0 ? -1 : text.indexOf('-----', end + 9);
    out += text.slice(pos, i) + `-----BEGIN ${label}-----${REDACTED}`;
    if (endLine < 0) return out; // never closed: the rest is key material
    pos = endLine + 5;
    out += text.slice(end, pos);
    i = text.indexOf(BEGIN, pos);
  }
  return out + text.slice(pos);
}

const isB64Url = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 45 || c === 95;

/** End of the run of base64url characters from i. */
function runEnd(text: string, i: number): number {
  while (i < text.length && isB64Url(text.charCodeAt(i))) i++;
  return i;
}

/**
 * Replaces JSON Web Tokens (eyJ….eyJ….sig: header and payload are base64url JSON). A scan, not a
 * regex: a failed candidate skips its whole run, so overlapping near-misses stay linear.
 */
function redactJwts(text: string): string {
  let i = text.indexOf('eyJ');
  if (i < 0) return text;
  let out = '';
  let pos = 0;
  while (i >= 0) {
    const prev = i > 0 ? text.charCodeAt(i - 1) : 0;
    let next = i + 3;
    if (!isB64Url(prev)) {
      const a = runEnd(text, i);
      next = a;
      if (a - i >= 11 && text.charCodeAt(a) === 46 && text.startsWith('eyJ', a + 1)) {
        const b = runEnd(text, a + 1);
        next = b;
        if (b - a - 1 >= 11 && text.charCodeAt(b) === 46) {
          const c = runEnd(text, b + 1);
          next = c;
          if (c - b - 1 >= 8) {
            out += text.slice(pos, i) + REDACTED;
            pos = c;
          }
        }
      }
    }
    i = text.indexOf('eyJ', Math.max(next, i + 3));
  }
  return out + text.slice(pos);
}

const isIdent = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45;

/**
 * Credential assignments (`export API_TOKEN=…`, `"password": "…"`, `apiKey = '…'`). Each identifier
 * holding a credential word is looked at once, and what follows it is matched with bounded
 * quantifiers, so the pass is linear and ordinary code (no credential word) costs one regex scan.
 */
function redactAssignments(text: string): string {
  CREDENTIAL_WORD.lastIndex = 0;
  let out = '';
  let pos = 0;
  let m: RegExpExecArray | null;
  while ((m = CREDENTIAL_WORD.exec(text)) !== null) {
    let s = m.index;
    while (s > 0 && isIdent(text.charCodeAt(s - 1)) && m.index - s <= MAX_NAME) s--;
    let e = m.index + m[0].length;
    while (e < text.length && isIdent(text.charCodeAt(e)) && e - s <= MAX_NAME) e++;
    CREDENTIAL_WORD.lastIndex = e; // the rest of this identifier holds nothing new
    if (e - s > MAX_NAME || (s > 0 && isIdent(text.charCodeAt(s - 1))) || s < pos) continue;
    const name = text.slice(s, e);
    const first = name.charCodeAt(0);
    if ((first >= 48 && first <= 57) || first === 45 || !isSecretName(name)) continue;
    AFTER_NAME.lastIndex = e;
    const a = AFTER_NAME.exec(text);
    if (!a) continue;
    const [, q, op, value] = a;
    const open = value[0] === '"' || value[0] === "'" ? value[0] : '';
    const closed = open !== '' && value.length >= 2 && value[value.length - 1] === open;
    const inner = open ? value.slice(1, closed ? -1 : undefined) : value;
    if (plain(inner)) continue;
    // Quoted: a literal given to a secret name. Unquoted: an UPPER_CASE name (env style,
    // `export API_TOKEN=…`) takes any value but plain ones; another name (code) only one that looks
    // like a credential, so `token = next()` and `password: string` stay.
    if (!open && !(/^[A-Z0-9_]+$/.test(name) || tokenLike(inner))) continue;
    out += `${text.slice(pos, e)}${q}${op}${open}${REDACTED}${closed ? open : ''}`;
    pos = AFTER_NAME.lastIndex;
    CREDENTIAL_WORD.lastIndex = pos;
  }
  return pos === 0 ? text : out + text.slice(pos);
}

/** Redacts every KEY=value line of text that reads like a .env file (two such lines or more). */
function redactEnvLines(text: string): string {
  if (text.indexOf('=') < 0) return text;
  const items = text.indexOf('- ') >= 0;
  const test = items ? ENV_ITEM_TEST : ENV_LINE_TEST;
  test.lastIndex = 0;
  if (!test.test(text) || !test.test(text)) return text;
  return text.replace(items ? ENV_ITEM : ENV_LINE, (m, pre: string, value: string) => {
    const v = value.trim().replace(/^(["'])(.*)\1$/, '$2');
    return harmless(v) ? m : `${pre}${REDACTED}`;
  });
}

/** Replaces the private part of PuTTY keys (.ppk): from the `Private-Lines:` line to the `Private-MAC:` value. */
function redactPuttyKeys(text: string): string {
  const AT = 'Private-Lines:';
  let i = text.indexOf(AT);
  if (i < 0) return text;
  let out = '';
  let pos = 0;
  while (i >= 0) {
    const eol = text.indexOf('\n', i);
    if (eol < 0) break;
    out += `${text.slice(pos, eol + 1)}${REDACTED}`;
    const mac = text.indexOf('Private-MAC:', eol);
    if (mac < 0) return out; // no MAC line: the rest is key material
    const macEnd = text.indexOf('\n', mac);
    out += `\nPrivate-MAC: ${REDACTED}`;
    pos = macEnd < 0 ? text.length : macEnd;
    i = text.indexOf(AT, pos);
  }
  return out + text.slice(pos);
}

// Formats with no credential word in them, each behind a cheap literal check.
/** `.pgpass` lines: host:port:database:user:password. */
const PGPASS_LINE = /^([ \t]{0,64}[^:\s#][^:\s]{0,254}:(?:\d{1,5}|\*):[^:\s]{1,255}:[^:\s]{1,255}:)([^\n]{1,4096})$/gm;
const PGPASS_HINT = /:(?:\d{1,5}|\*):[^:\s]{1,255}:[^:\s]{1,255}:/;
/** `.netrc`: `login user password pw` (on one line or several). */
const NETREC = /((?:^|\s)login[ \t\r\n]{1,16}\S{1,256}[ \t\r\n]{1,16}password[ \t]{1,8})(\S{1,4096})/g;
/** Docker's config.json: `"auth": "<base64 user:password>"`. */
const DOCKER_AUTH = /("auth"\s{0,8}:\s{0,8}")([A-Za-z0-9+/=]{8,4096})(")/g;
/** PHP constants: `define('DB_PASSWORD', '…')`, WordPress keys and salts. */
const PHP_DEFINE = /(\bdefine\s{0,8}\(\s{0,8}(["'])([A-Za-z_][A-Za-z0-9_]{0,127})\2\s{0,8},\s{0,8})(["'])([^"'\n]{1,4096})(["'])/gi;
/** Command lines: `curl -u user:password`, `mysql -pPASSWORD`. Looked for only on lines naming the command. */
const USER_FLAG = /((?<![\w-])(?:-u[ \t]{0,8}|--user(?:[ \t]{1,8}|=))["']?[^\s:"'-][^\s:"']{0,127}:)([^\s"']{1,1024})/g;
const MYSQL_P = /((?<![\w-])-p)([^\s"'-][^\s"']{0,1023}|"[^"\n]{1,1024}"|'[^'\n]{1,1024}')/g;
const COMMAND_LINE = /^[^\n]*\b(?:curl|mysql|mysqldump|mysqladmin|mariadb)\b[^\n]*$/gm;

function redactCommandLine(line: string): string {
  let out = line;
  if (/\bcurl\b/.test(out)) out = out.replace(USER_FLAG, (m, pre: string, pw: string) => (plain(pw) ? m : `${pre}${REDACTED}`));
  if (/\b(?:mysql|mysqldump|mysqladmin|mariadb)\b/.test(out)) out = out.replace(MYSQL_P, (_m, pre: string) => `${pre}${REDACTED}`);
  return out;
}

function redactFormats(input: string): string {
  let text = input;
  if (text.indexOf('Private-Lines:') >= 0) text = redactPuttyKeys(text);
  if (PGPASS_HINT.test(text)) text = text.replace(PGPASS_LINE, (m, pre: string, pw: string) => (plain(pw) ? m : `${pre}${REDACTED}`));
  if (text.indexOf('login') >= 0) text = text.replace(NETREC, (_m, pre: string) => `${pre}${REDACTED}`);
  if (text.indexOf('"auth"') >= 0) text = text.replace(DOCKER_AUTH, (_m, pre: string, _v: string, post: string) => `${pre}${REDACTED}${post}`);
  if (text.indexOf('define') >= 0 || text.indexOf('DEFINE') >= 0) {
    text = text.replace(PHP_DEFINE, (m, pre: string, _q: string, name: string, open: string, value: string, close: string) =>
      (isSecretName(name) || /_(?:KEY|SALT)$/i.test(name)) && !plain(value) ? `${pre}${open}${REDACTED}${close}` : m,
    );
  }
  if (text.indexOf('curl') >= 0 || text.indexOf('mysql') >= 0 || text.indexOf('mariadb') >= 0) text = text.replace(COMMAND_LINE, redactCommandLine);
  return text;
}

function authHeader(m: string, pre: string, scheme?: string, _v?: string, lineScheme?: string, _line?: string, raw?: string): string {
  if (scheme) return `${pre}${scheme}${REDACTED}`;
  if (lineScheme) return `${pre}${lineScheme}${REDACTED}`;
  // A raw key, not a word or an expression (`authorization: string`, `req.headers.authorization`).
  if (raw && !plain(raw) && (tokenLike(raw) || (raw.length >= 20 && /^[A-Za-z0-9+/=_-]+$/.test(raw)))) return `${pre}${REDACTED}`;
  return m;
}

/** Blanks values that look like credentials: key formats, private keys, URL passwords, secret assignments, .env lines. */
export function redactSecrets(input: string): string {
  let text = input.length > MAX_REDACT_INPUT ? input.slice(0, MAX_REDACT_INPUT) : input;
  if (text.length < 8) return text;
  text = redactKeyBlocks(text);
  text = redactJwts(text);
  text = text.replace(TOKENS, REDACTED);
  if (UNDERSCORE_HINT.test(text)) text = text.replace(TOKENS_AFTER_UNDERSCORE, REDACTED);
  if (text.indexOf('@') >= 0) text = text.replace(URL_PASSWORD, (_m, pre: string, _pw: string, at: string) => `${pre}${REDACTED}${at}`);
  text = redactFormats(text);
  if (CREDENTIAL_HINT.test(text)) {
    text = text.replace(AUTH_HEADER, authHeader);
    text = text.replace(FLAG, (_m, pre: string) => `${pre}${REDACTED}`);
    text = redactAssignments(text);
  }
  return redactEnvLines(text);
}

const MAX_DEPTH = 32;

/** A value too deep to walk, flattened to text so nothing in it escapes ('' if it cannot be). */
export function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}

/** Redacts every string inside a JSON-like value, object keys included. */
export function redactDeep(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactSecrets(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth > MAX_DEPTH) {
    const text = jsonText(value);
    return redactSecrets(text);
  }
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, depth + 1));
  const obj: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const key = redactSecrets(k);
    // A key that names a credential and holds a plain string ({"password": "hunter2"}) loses the value.
    obj[key] = typeof v === 'string' && k.length <= 128 && isSecretName(k) && !plain(v) ? REDACTED : redactDeep(v, depth + 1);
  }
  return obj;
}

// ---- what leaves the machine (team sharing) ----------------------------------------------------
// Stricter than redactSecrets: a false positive costs a teammate a word, a miss a leaked credential.
// Short `password=` values and any bearer header go too. Each pattern is linear (no nested quantifiers).

/** The marker of a value removed before sharing (the hub's records show it). */
export const REDACTED_SHARED = '[REDACTED]';

// A private key block whose END comes within MAX_KEY_BODY characters of its BEGIN line.
const KEY_BEGIN = /-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----/g;
const KEY_END = /-----END [A-Z ]{0,40}PRIVATE KEY-----/g;
const MAX_KEY_BODY = 20_000;

/**
 * Closed private key blocks, whole, become REDACTED_SHARED. A lazy `[^]{0,20000}?` between the two
 * lines would scan 20,000 characters from every BEGIN line that no END follows (4,000 of them in
 * 100 KB); here the next END is found once and kept while the BEGIN lines before it are checked.
 */
function redactSharedKeyBlocks(text: string): string {
  if (!text.includes('-----BEGIN ')) return text;
  let out = '';
  let pos = 0;
  let end: RegExpExecArray | null | undefined; // the first END at or after the last body's start
  KEY_BEGIN.lastIndex = 0;
  for (let begin = KEY_BEGIN.exec(text); begin; begin = KEY_BEGIN.exec(text)) {
    const body = begin.index + begin[0].length;
    if (end === undefined || (end !== null && end.index < body)) {
      KEY_END.lastIndex = body;
      end = KEY_END.exec(text);
    }
    if (end === null) break; // no END after here: no later BEGIN line is closed either
    if (end.index - body > MAX_KEY_BODY) {
      KEY_BEGIN.lastIndex = begin.index + 1;
      continue;
    }
    out += text.slice(pos, begin.index) + REDACTED_SHARED;
    pos = end.index + end[0].length;
    KEY_BEGIN.lastIndex = pos;
  }
  return pos === 0 ? text : out + text.slice(pos);
}

/** In this order; a function is a step of its own. */
const SHARING_PATTERNS: (RegExp | ((text: string) => string))[] = [
  /\b(?:AKIA|ASIA|AIDA|AROA)[0-9A-Z]{16}\b/g, // AWS access key ids
  /\b(?:aws_secret_access_key|aws_session_token)\s*[=:]\s*["']?[A-Za-z0-9/+=]{16,}/gi,
  /\bgh[pousr]_[A-Za-z0-9]{30,}\b/g, // GitHub tokens
  /\bgithub_pat_[A-Za-z0-9_]{30,}\b/g,
  /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}/g, // Anthropic / OpenAI keys
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g, // Slack tokens
  /\bAIza[0-9A-Za-z_-]{35}\b/g, // Google API keys
  redactSharedKeyBlocks,
  /\b(?:postgres(?:ql)?|mysql|mongodb(?:\+srv)?|redis|amqp):\/\/[^\s:/@]{1,200}:[^\s@/]{1,200}@/gi, // URLs with a password
  /\b(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret)\s*[=:]\s*["']?[^\s"',;]{6,}/gi,
  /\bBearer\s+[A-Za-z0-9._~+/-]{20,}=*/g,
];

/** Only the stricter sharing patterns (REDACTED_SHARED marks what they removed). */
export function redactSharingPatterns(text: string): string {
  let out = text;
  for (const step of SHARING_PATTERNS) out = typeof step === 'function' ? step(out) : out.replace(step, REDACTED_SHARED);
  return out;
}

/** Everything that must not leave the machine: the sharing patterns, then redactSecrets. */
export function redactForSharing(text: string): string {
  return redactSecrets(redactSharingPatterns(text));
}
