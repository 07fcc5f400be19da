// The shared privacy module (common/privacy): nested and split private blocks, secret redaction
// (precise on ordinary code, linear on pathological input), secret-looking paths, tool uses of
// secret files, and cutting that strips first (the hook CLI's boundField included).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cutText, isSecretName, isSecretPath, redactDeep, redactSecrets, redactSharingPatterns, REDACTED, REDACTED_SHARED, scrubToolUse, stripDeep, stripPrivate } from '../../common/privacy';
import { boundField } from '../../cli/hooks/shrink';
import { globToRegExp, isStarGlob, starGlobMatches } from '../../common/glob';
import { SECRET_BASENAMES } from '../../common/privacy/secretPaths';
import { assertLinear, cpuMs, repeated } from '../helpers/linear';

describe('private tags: nesting and blocks split across fields', () => {
  const cases: [string, string][] = [
    ['a <private>x <private>y</private> SECRET</private> b', 'a  b'],
    ['<private><private><private>deep</private>still</private>and</private>out', 'out'],
    ['a <claude-mem-context>c <private>p</private> still</claude-mem-context> b', 'a  b'],
    ['a <private>x </claude-mem-context> still hidden</private> b', 'a  b'],
    ['a <private>x <private>y</private> never closed', 'a '],
    // A closing tag with no opening: the block began in an earlier field or before a cut.
    ['SECRET tail</private> visible', ' visible'],
    ['x <private>a</private> y </private> z', ' z'],
    ['keep <privateer>this</privateer>', 'keep <privateer>this</privateer>'],
  ];
  for (const [input, want] of cases) it(JSON.stringify(input), () => assert.equal(stripPrivate(input).text, want));

  it('a block opened in one field and closed in another drops the rest of each field', () => {
    const r = stripDeep({ old_string: 'start <private> SECRETA', new_string: 'SECRETB </private> after' });
    assert.deepEqual(r.value, { old_string: 'start ', new_string: ' after' });
    assert.equal(r.removed, 2);
  });

  it('object keys: a key holding a private block drops its entry', () => {
    const r = stripDeep({ '<private>k</private>': 'v', ok: { 'n <private>x</private>': 1, plain: 'y' } });
    assert.deepEqual(r.value, { ok: { plain: 'y' } });
  });
});

describe('cutting strips first', () => {
  const big = `${'h'.repeat(70_000)}<private>${'p'.repeat(30_000)} CUTSECRET </private> visible-end`;

  it('cutText never keeps the tail of a block whose opening fell in the cut', () => {
    const c = cutText(big, 1000);
    assert.ok(!c.includes('CUTSECRET') && !c.includes('ppp'), c.slice(-80));
    assert.ok(c.endsWith('visible-end'));
  });

  it('the hook CLI bounds fields after stripping (boundField)', () => {
    const v = boundField({ out: big, nested: [big] }, 64 * 1024, 1 << 20);
    assert.ok(!JSON.stringify(v).includes('CUTSECRET'));
    const s = boundField(big, 1000, 1 << 20) as string;
    assert.ok(!s.includes('CUTSECRET'));
  });
});

describe('secret redaction', () => {
  const positives: [string, string][] = [
    ['AWS id AKIAIOSFODNN7EXAMPLE here', 'AKIAIOSFODNN7EXAMPLE'],
    ['aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'wJalrXUtnFEMI'],
    ['export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'wJalrXUtnFEMI'],
    ['token ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'ghp_abcdef'],
    ['github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz', 'github_pat_11'],
    ['gitlab glpat-AbCdEfGhIjKlMnOpQrSt', 'glpat-AbCd'],
    ['key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123', 'sk-ant-api03'],
    ['key sk-proj-AbCdEfGhIjKlMnOpQrStUvWx0123456789', 'sk-proj-AbC'],
    ['key sk-AbCdEfGhIjKlMnOpQrStUvWx0123456789abcd', 'sk-AbCdEf'],
    ['slack xoxb-1234567890-abcdefghijKLMN', 'xoxb-1234'],
    ['jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U end', 'dozjgNry'],
    ['-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7\nabc\n-----END RSA PRIVATE KEY-----', 'MIIEpAIBAAKCAQEA7'],
    ['-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n(cut)', 'b3BlbnNzaC1rZXktdjEAAAAA'],
    ['DATABASE_URL=postgres://app:s3cr3tPass@db:5432/app', 's3cr3tPass'],
    ['curl https://user:hunter2x@example.com/x', 'hunter2x'],
    ['mysql --password=hunter2', 'hunter2'],
    ['Authorization: Bearer abcdef0123456789', 'abcdef0123456789'],
    ['{"password": "correct horse battery"}', 'correct horse'],
    ['config.apiKey = "AbC123xyz987";', 'AbC123xyz987'],
    ['client_secret: 9f8e7d6c5b4a', '9f8e7d6c5b4a'],
    ['export API_TOKEN=abc123 && deploy', 'abc123'],
    // .env-style content: every KEY=value line that is not plainly harmless
    ['# prod\nDB_HOST=db.internal.example\nSTRIPE_WEBHOOK=whsec_x9Kq2LmZ\nDEBUG=true\n', 'whsec_x9Kq2LmZ'],
  ];
  for (const [input, secret] of positives) {
    it(`redacts ${JSON.stringify(input.slice(0, 50))}`, () => {
      const out = redactSecrets(input);
      assert.ok(!out.includes(secret), out);
      assert.ok(out.includes(REDACTED), out);
    });
  }

  it('keeps what surrounds a secret readable', () => {
    assert.equal(redactSecrets('export API_TOKEN=abc123 && deploy'), `export API_TOKEN=${REDACTED} && deploy`);
    assert.equal(redactSecrets('DATABASE_URL=postgres://app:s3cr3tPass@db:5432/app'), `DATABASE_URL=postgres://app:${REDACTED}@db:5432/app`);
    assert.equal(redactSecrets('key sk-ant-api03-abcdefghijklmnop'), `key ${REDACTED}`);
    assert.equal(redactSecrets('{"password": "hunter22"}'), `{"password": "${REDACTED}"}`);
  });

  const ordinary = [
    'Per-API-key rate limiting with a token bucket (a hyphenated word is not a --flag)',
    'const tokenCount = 5;',
    'const MAX_TOKENS = 4096;\nconst apiKey = process.env.API_KEY;\nif (!apiKey) throw new Error("no key");',
    'function login(password: string): Promise<Token> {\n  const token = await issue(password);\n  return token;\n}',
    'def check(password):\n    secret_key = settings.SECRET_KEY\n    return hmac.compare_digest(password, stored)',
    'PREFIX=/usr/local\nBUILD_DIR=build\nNODE_ENV=production\nVERSION=1.2.3\n',
    'git log --oneline\n8b5cde5 Test tools install with an environment of their own\n',
    '{"name": "claude-mem-vscode", "version": "0.1.0", "scripts": {"build": "node esbuild.config.mjs"}}',
    'SELECT id, title FROM observations WHERE project = ? AND created_at > ?;',
    'The session token is refreshed every hour; see docs/auth.md. Keys: a, b, c.',
    'import { redactSecrets } from "./redact";\nexport const tokenizer = "bert-base-uncased";',
    'https://github.com/microsoft/vscode/blob/main/README.md',
    'echo $PWD; OLDPWD=/home/u cd -',
  ];
  for (const snippet of ordinary) {
    it(`leaves ordinary text alone: ${JSON.stringify(snippet.slice(0, 40))}`, () => assert.equal(redactSecrets(snippet), snippet));
  }

  it('names: credential words, not their look-alikes', () => {
    for (const n of ['password', 'DB_PASSWORD', 'apiKey', 'api_key', 'AWS_SECRET_ACCESS_KEY', 'clientSecret', 'GITHUB_TOKEN', 'accessToken', 'private_key', 'DB_PWD']) assert.ok(isSecretName(n), n);
    for (const n of ['tokenizer', 'MAX_TOKENS', 'tokenCount', 'key', 'keyboard', 'PWD', 'OLDPWD', 'monkey', 'author']) assert.ok(!isSecretName(n), n);
  });

  it('redactDeep: values and keys, and credential-named fields', () => {
    const v = redactDeep({ password: 'hunter2', nested: [{ AKIAIOSFODNN7EXAMPLE: 1 }], note: 'ok', count: 3 }) as Record<string, unknown>;
    assert.equal(v.password, REDACTED);
    assert.ok(!JSON.stringify(v).includes('AKIAIOSFODNN7EXAMPLE'));
    assert.equal(v.note, 'ok');
    assert.equal(v.count, 3);
  });

  const PATHOLOGICAL = [
    ['JWT near-misses', 'eyJ-', 1 << 18],
    ['JWT two parts', 'eyJaaaaaaaaaaaaaa.eyJ', 50_000],
    ['unclosed quoted assignments', 'password="', 100_000],
    ['unclosed flags', '--password="', 90_000],
    ['dotted names', 'a.', 1 << 19],
    ['one long line', 'A', 1 << 20],
    ['env-ish lines', 'A=\n', 350_000],
    ['key blocks never closed', '-----BEGIN PRIVATE KEY-----', 40_000],
    ['begin lines that are not keys', '-----BEGIN CERTIFICATE-----x', 38_000],
    ['url-ish', 'a.b.c://u:', 100_000],
    ['token prefixes', 'sk-ant-sk-ghp_AKIAxoxb-glpat-', 36_000],
    ['assignments', 'API_TOKEN=a&', 90_000],
  ] as const;
  for (const [name, unit, count] of PATHOLOGICAL) {
    it(`1 MB of ${name}: time grows linearly with the input (against 1/16 of it)`, () => {
      assertLinear(repeated(unit, count), (evil) => {
        redactSecrets(evil);
        stripPrivate(evil);
      });
    });
  }

  // A pattern whose scan is bounded by a window (`[^]{0,20000}?`) grows linearly past the window,
  // so against 1/16 of the input it looks linear; against ordinary text of the same size it does not.
  const bestCpu = (fn: () => void) => {
    let min = Infinity;
    for (let i = 0; i < 3; i++) {
      const t0 = cpuMs();
      fn();
      min = Math.min(min, cpuMs() - t0);
    }
    return min;
  };
  for (const [name, unit, count] of PATHOLOGICAL) {
    it(`1 MB of ${name}: the sharing patterns cost at most 16x ordinary text of the same size`, () => {
      const evil = unit.repeat(count);
      const plain = 'the quick brown fox jumps over the lazy dog. '.repeat(Math.ceil(evil.length / 45)).slice(0, evil.length);
      redactSharingPatterns(plain); // warm-up: compile the regular expressions
      const evilMs = bestCpu(() => redactSharingPatterns(evil));
      const plainMs = Math.max(bestCpu(() => redactSharingPatterns(plain)), 1);
      assert.ok(evilMs < 16 * plainMs, `${evilMs.toFixed(1)} ms against ${plainMs.toFixed(1)} ms of CPU for ordinary text`);
    });
  }

  it('private key blocks for sharing: the same text as the lazy pattern, END at most 20,000 characters on', () => {
    const lazy = /-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----[^]{0,20000}?-----END [A-Z ]{0,40}PRIVATE KEY-----/g;
    const B = '-----BEGIN RSA PRIVATE KEY-----';
    const E = '-----END RSA PRIVATE KEY-----';
    const inputs = [
      `a ${B}\nMIIE\n${E} b`,
      `a ${B}x${E} b ${B}y${E} c`,
      `${B} ${B} body ${E} tail`, // two BEGIN lines, one END: one block from the first
      `a ${B}${'x'.repeat(20_000)}${E} b`, // END right at the limit
      `a ${B}${'x'.repeat(20_001)}${E} b`, // one past it: kept
      `a ${B}${'x'.repeat(15_000)}${B}${'y'.repeat(10_000)}${E} b`, // the first too far, the second closes
      `${B} never closed ${B} either`,
      `-----BEGIN PRIVATE KEY-----k-----END OPENSSH PRIVATE KEY----- -----BEGIN certificate PRIVATE KEY-----x-----END PRIVATE KEY-----`,
      `-----BEGIN ${'A'.repeat(41)} PRIVATE KEY-----x${E} ${B}y${E}`,
      'no key here',
    ];
    for (const input of inputs) {
      const got = redactSharingPatterns(input);
      assert.equal(got, input.replace(lazy, REDACTED_SHARED), input.slice(0, 80));
    }
    assert.equal(redactSharingPatterns(`a ${B}x${E} b`), `a ${REDACTED_SHARED} b`);
  });
});

describe('secret-looking files', () => {
  it('recognises paths', () => {
    for (const p of ['/p/.env', '/p/.env.local', 'C:\\p\\prod.env', '/p/cert.pem', '/p/server.key', '/h/.ssh/id_rsa', '/p/id_ed25519.pub', '/p/credentials', '/p/aws-credentials.json', '/h/.aws/config']) assert.ok(isSecretPath(p), p);
    for (const p of ['/p/src/env.ts', '/p/environment.md', '/p/keyboard.ts', '/p/src/keys.ts', '/p/README.md']) assert.ok(!isSecretPath(p), p);
  });

  it('the RegExp-free `*` matcher answers exactly what the glob RegExp answers', () => {
    const names = ['', '.env', '.env.', '.env.local', 'prod.env', 'env', '.envrc', 'a.pem', '.pem', 'pem', 'id_rsa', 'id_rsa.pub', 'xid_rsa', 'credentials', 'credentials.json', 'my-credentials-prod.json', 'credentials.json.bak', 'secrets.', 'secrets.yaml', 'x.secret', 'x.secrets', 'service-account.json', 'service-account-prod.json', 'service-accountjson', 'terraform.tfvars', 'a.tfstate', 'aaa', 'aa', 'a', 'abab', 'readme.md'];
    const globs = [...SECRET_BASENAMES, 'a*a', 'a*b*a', '*', '**', 'ab*ab', '*x*', 'x'];
    for (const g of globs) {
      assert.ok(isStarGlob(g), g);
      const re = globToRegExp(g, true);
      for (const n of names) assert.equal(starGlobMatches(g.toLowerCase().split('*'), n), re.test(n), `${g} vs "${n}"`);
    }
    for (const g of ['a?', '[ab]', '{a,b}', 'a\\*']) assert.ok(!isStarGlob(g), g);
  });

  it('a Read of .env keeps its path and loses its content', () => {
    const r = scrubToolUse({ file_path: '/p/.env' }, { type: 'text', file: { filePath: '/p/.env', content: 'FOO=bar\nX=1' } });
    assert.equal(r.secretFile, '/p/.env');
    assert.deepEqual(r.input, { file_path: '/p/.env' });
    assert.match(String(r.response), /redacted: content of \.env/);
  });

  it('a Write to id_rsa loses the content it wrote; an ordinary read keeps it', () => {
    const w = scrubToolUse({ file_path: '/h/.ssh/id_rsa', content: 'KEYDATA' }, { success: true });
    assert.ok(!JSON.stringify(w).includes('KEYDATA'));
    const ok = scrubToolUse({ file_path: '/p/src/a.ts' }, 'export const a = 1;');
    assert.equal(ok.response, 'export const a = 1;');
    assert.equal(ok.secretFile, undefined);
  });
});
