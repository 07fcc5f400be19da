// Privacy by construction (common/privacy): private tags found at the right offsets whatever the
// Unicode (property tests over seeded random text with every character whose case mapping changes
// length), secret files found by what the tool does on every platform, the one gate for outside
// values (cleanIncoming), and the redaction formats, each rule linear on pathological input.
import assert from 'node:assert/strict';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { describe, it } from 'node:test';
import {
  cleanIncoming,
  cleanIncomingText,
  cutText,
  dropSecretHunks,
  isSecretPath,
  redactDeep,
  redactSecrets,
  scrubToolUse,
  stripDeep,
  stripPrivate,
} from '../../common/privacy';
import { prng } from '../fixtures/prng';
import { cpuMs } from '../helpers/linear';

/** Every BMP character whose lower- or upper-case form has another length (İ, ß, ŉ, ﬀ, ΐ…). */
const LENGTH_CHANGING: string[] = [];
for (let c = 0; c < 0x10000; c++) {
  if (c >= 0xd800 && c <= 0xdfff) continue;
  const ch = String.fromCharCode(c);
  if (ch.toLowerCase().length !== 1 || ch.toUpperCase().length !== 1) LENGTH_CHANGING.push(ch);
}

const PLAIN = 'abcxyz ABCXYZ 0123 şğüöç ÇŞĞÜÖ ıI éà ñ 中文 русский العربية 😀🎉 \n\t.,;:!?"\'()[]{}=+-_*/\\&|#@$%^~`';

function pick<T>(rand: () => number, xs: readonly T[]): T {
  return xs[Math.floor(rand() * xs.length)];
}

/** Random visible text: ordinary Unicode, the length-changing characters, astral pairs, never a tag. */
function visible(rand: () => number, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) {
    const r = rand();
    if (r < 0.35) s += pick(rand, LENGTH_CHANGING);
    else if (r < 0.4) s += '< '; // a bare '<' that opens no tag
    else s += [...PLAIN][Math.floor(rand() * [...PLAIN].length)];
  }
  return s;
}

/** The tag name in random case, as a person might type it. */
function randomCase(rand: () => number, name: string): string {
  return [...name].map((c) => (rand() < 0.5 ? c.toUpperCase() : c)).join('');
}

const SECRETS = ['ghp_0123456789abcdefghijklmnopqrstuvwxyzAB', 'AKIAIOSFODNN7EXAMPLE', 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345', 'xoxb-123456789012-abcdefghijkl'];

describe('private tags at the right offsets whatever the Unicode', () => {
  it(`the table of length-changing characters is not empty (${LENGTH_CHANGING.length}, İ among them)`, () => {
    assert.ok(LENGTH_CHANGING.includes('\u0130'));
    assert.ok(LENGTH_CHANGING.length > 100);
  });

  it('the Turkish sentence of the report keeps nothing of the block', () => {
    const text = 'İİİİİİİİİİİİİİİİ sunucu şifresi <private>hunter2</private> tamam';
    assert.equal(stripPrivate(text).text, 'İİİİİİİİİİİİİİİİ sunucu şifresi  tamam');
    const turkish = 'İstanbul İzmir İlçe İşte İyi İnsan İmza İleri İçin İlk İkinci İsim İade İndir şifre: <private>hunter2</private> bitti';
    assert.equal(stripPrivate(turkish).text, 'İstanbul İzmir İlçe İşte İyi İnsan İmza İleri İçin İlk İkinci İsim İade İndir şifre:  bitti');
  });

  it('every length-changing character before a block, in tags of any case', () => {
    for (const ch of LENGTH_CHANGING) {
      const text = `${ch.repeat(20)} a <PRIVATE>secret-${ch}</Private> b`;
      assert.equal(stripPrivate(text).text, `${ch.repeat(20)} a  b`, `U+${ch.charCodeAt(0).toString(16)}`);
    }
  });

  it('property: random Unicode, tags and secrets: exactly the visible text survives (2,000 seeded cases)', () => {
    const rand = prng(39);
    for (let n = 0; n < 2000; n++) {
      let input = '';
      let want = '';
      const parts = 1 + Math.floor(rand() * 6);
      for (let p = 0; p < parts; p++) {
        const v = visible(rand, Math.floor(rand() * 40));
        input += v;
        want += v;
        if (rand() < 0.7) {
          const name = rand() < 0.8 ? 'private' : 'claude-mem-context';
          const inner = `${visible(rand, Math.floor(rand() * 20))}MARK${n}x${p} ${pick(rand, SECRETS)}${visible(rand, Math.floor(rand() * 20))}`;
          const nested = rand() < 0.2 ? `<${randomCase(rand, name)}>${inner}</${randomCase(rand, name)}>` : inner;
          input += `<${randomCase(rand, name)}${rand() < 0.2 ? ' note="x"' : ''}>${nested}</${randomCase(rand, name)}>`;
        }
      }
      const out = stripPrivate(input).text;
      assert.equal(out, want, `case ${n}: ${JSON.stringify(input)}`);
      assert.ok(!/MARK\d+x\d+/.test(out));
      // The same through a deep value (keys too) and through cutting.
      const deep = JSON.stringify(stripDeep({ [`k${input}`]: input, list: [input] }).value);
      assert.ok(!/MARK\d+x\d+/.test(deep), `stripDeep case ${n}`);
      assert.ok(!/MARK\d+x\d+/.test(cutText(input, 64)), `cutText case ${n}`);
      const cleaned = JSON.stringify(cleanIncoming({ a: input, b: [input] }).value);
      assert.ok(!/MARK\d+x\d+/.test(cleaned) && !SECRETS.some((s) => cleaned.includes(s)), `cleanIncoming case ${n}`);
    }
  });
});

describe('secret files by what the tool does, on every platform', () => {
  // Content no redaction rule would catch: only the secret-file rules can drop it.
  const ENV = 'motd zz9plural\nhost db';
  const leaks = (r: unknown) => JSON.stringify(r).includes('zz9plural');

  it('recognises .vault-token, wp-config.php, .pgpass, .netrc, .ppk, .git-credentials', () => {
    for (const p of ['/h/.vault-token', '/srv/www/wp-config.php', '/h/.pgpass', '/h/.netrc', '/h/keys/server.ppk', '/h/.git-credentials', 'C:\\Users\\u\\.my.cnf']) assert.ok(isSecretPath(p), p);
  });

  it('paths of any length', () => {
    const long = `/${'d/'.repeat(3000)}.env`;
    assert.ok(long.length > 4096);
    assert.ok(isSecretPath(long));
    assert.ok(!leaks(scrubToolUse({ file_path: long }, ENV, 'Read')));
  });

  it('Gemini CLI read_file (absolute_path) and read_many_files (paths)', () => {
    const a = scrubToolUse({ absolute_path: '/p/.env' }, ENV, 'read_file');
    assert.ok(!leaks(a));
    assert.equal(a.secretFile, '/p/.env');
    const b = scrubToolUse({ paths: ['/p/README.md', '/p/.env'] }, `--- /p/README.md ---\nhi\n--- /p/.env ---\n${ENV}`, 'read_many_files');
    assert.ok(!leaks(b));
    assert.deepEqual((b.input as { paths: string[] }).paths, ['/p/README.md', '/p/.env']);
  });

  it('the 101st entry of a multi-file edit', () => {
    const replacements = Array.from({ length: 150 }, (_, i) => ({ filePath: i === 100 ? '/p/.env' : `/p/src/f${i}.ts`, oldString: 'a', newString: i === 100 ? 'motd zz9plural' : 'b' }));
    const r = scrubToolUse({ replacements }, 'ok', 'multi_replace_string_in_file');
    assert.ok(!leaks(r));
    assert.equal(r.secretFile, '/p/.env');
  });

  it('Codex apply_patch (a string) and VS Code apply_patch ({input}) lose the .env hunk, keep the others', () => {
    const patch = ['*** Begin Patch', '*** Update File: src/a.ts', '@@', '-const a = 1;', '+const a = 2;', '*** Add File: .env', '+motd zz9plural', '+host db', '*** End Patch'].join('\n');
    for (const [input, name] of [[patch, 'apply_patch'], [{ input: patch }, 'apply_patch'], [{ command: ['apply_patch', patch] }, 'shell']] as const) {
      const r = scrubToolUse(input, 'Success. Updated the following files:\nM src/a.ts\nA .env', name);
      assert.ok(!leaks(r), JSON.stringify(r));
      assert.ok(JSON.stringify(r.input).includes('+const a = 2;'), 'the other hunk stays');
      assert.ok(JSON.stringify(r.input).includes('*** Add File: .env'), 'the header stays');
    }
    const diff = ['diff --git a/.env b/.env', '--- a/.env', '+++ b/.env', '@@ -1 +1 @@', '-motd old', '+motd zz9plural', 'diff --git a/x.ts b/x.ts', '--- a/x.ts', '+++ b/x.ts', '@@ -1 +1 @@', '-x', '+y'].join('\n');
    const d = dropSecretHunks(diff);
    assert.ok(d && !d.text.includes('zz9plural') && d.text.includes('+y'));
  });

  it('grep output lines from secret-looking files', () => {
    const out = ['src/config.ts:3:const url = process.env.API_URL;', '.env:1:motd zz9plural', './config/.env.local-2-motd zz9plural', 'C:\\p\\.env:4:motd zz9plural', 'src/b.ts:9:ok'].join('\n');
    for (const name of ['Grep', 'grep_search', 'search_file_content', 'grep', 'Bash', 'run_shell_command']) {
      const r = scrubToolUse({ pattern: 'API', command: 'grep -rn API .' }, { stdout: out }, name);
      assert.ok(!leaks(r), name);
      assert.ok(JSON.stringify(r.response).includes('src/b.ts:9:ok'), name);
    }
  });

  it('shell commands that print secret files keep the command and lose the output', () => {
    for (const [name, input] of [
      ['Bash', { command: 'cat .env' }],
      ['run_in_terminal', { command: 'cat ~/.pgpass' }],
      ['shell', { command: ['bash', '-lc', 'cat ~/.pgpass'] }],
      ['run_shell_command', { command: 'head -5 "$HOME/.aws/credentials"' }],
      ['bash', { command: 'cat /srv/www/wp-config.php' }],
    ] as const) {
      const r = scrubToolUse(input, { stdout: 'motd zz9plural' }, name);
      assert.ok(!leaks(r), `${name} ${JSON.stringify(input)}`);
      assert.ok(r.secretFile);
    }
    const ok = scrubToolUse({ command: 'cat README.md' }, { stdout: 'hello' }, 'Bash');
    assert.deepEqual(ok.response, { stdout: 'hello' });
  });
});

describe('one gate for outside values: cleanIncoming', () => {
  it('every string at any depth, keys included, tool names with tokens after `_`', () => {
    const r = cleanIncoming({
      contentSessionId: 'abc<private>x</private>',
      tool_name: 'mcp__x__ghp_0123456789abcdefghijklmnopqrstuvwxyzAB',
      citations: { branch: 'feat/<private>secret</private>', bases: ['ghp_0123456789abcdefghijklmnopqrstuvwxyzAB'], files: [{ path: 'src/<private>p</private>a.ts', blob: null, gone: true }] },
      note: 'retired: AKIAIOSFODNN7EXAMPLE',
      n: 3,
    });
    const text = JSON.stringify(r.value);
    assert.ok(!/private|secret|ghp_|AKIA/.test(text), text);
    assert.equal(r.removed, 3);
    assert.equal((r.value as { n: number }).n, 3);
  });

  it('a removed block never glues a key to the word after it', () => {
    // "AKIA…<private>x</private>Z" would leave "AKIA…Z", which the key pattern does not match.
    const key = 'AKIA4VTMCORRNS7ESRQV';
    const glued = `b/x-${key}<private>zqmark ${key}</private>Zq`;
    assert.ok(!JSON.stringify(cleanIncoming({ branch: glued, list: [glued] }).value).includes(key));
    assert.ok(!cleanIncomingText(glued).value.includes(key));
    assert.equal(cleanIncomingText(glued).removed, 1);
    const t = scrubToolUse({ command: glued }, { stdout: glued }, 'Bash');
    assert.ok(!JSON.stringify(t).includes(key), JSON.stringify(t));
    assert.ok(!JSON.stringify(t).includes('zqmark'));
  });

  it('`except` leaves the named fields for the caller', () => {
    const r = cleanIncoming({ prompt: '<private>p</private>', cwd: '/x/<private>y</private>' }, ['prompt']);
    assert.deepEqual(r.value, { prompt: '<private>p</private>', cwd: '/x/' });
  });
});

describe('redaction formats', () => {
  const cases: [string, string, string][] = [
    ['redis with an empty user', 'REDIS_URL=redis://:s3cretpw@cache:6379/0', 's3cretpw'],
    ['a password holding @', 'postgres://app:p@ss@word1@db.example.com:5432/app', 'ss@word1'],
    ['Authorization with a raw key', 'Authorization: 9f8e7d6c5b4a39281716', '9f8e7d6c5b4a39281716'],
    ['Authorization: Digest', 'Authorization: Digest username="bob", response="6629fae49393a05397450978507c4ef1"', '6629fae49393a05397450978507c4ef1'],
    ['npm', 'token npm_abcdefghijklmnopqrstuvwxyz0123456789', 'npm_abcdefghij'],
    ['Hugging Face', 'HF hf_abcdefghijklmnopqrstuvwxyzABCDEFGH', 'hf_abcdefghij'],
    ['SendGrid', 'key SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG', 'SG.abcdefghij'],
    ['Vault', 'VAULT hvs.CAESIabcdefghijklmnopqrstuvwxyz0123', 'hvs.CAESI'],
    ['Slack app token', 'xapp-1-A0123456789-1234567890123-abcdef0123456789', 'A0123456789-1234567890123'],
    ['Azure AccountKey', 'DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==;EndpointSuffix=core.windows.net', 'Zm9vYmFyYmF6'],
    ['docker auth', '{"auths": {"https://index.docker.io/v1/": {"auth": "dXNlcjpodW50ZXIyMjI="}}}', 'dXNlcjpodW50'],
    ['.pgpass line', 'db.example.com:5432:appdb:appuser:Hunter2Secret', 'Hunter2Secret'],
    ['.netrc lines', 'machine api.heroku.com\n  login me@example.com\n  password 01234abcdef', '01234abcdef'],
    ['curl -u', 'curl -u admin:Sup3rS3cret https://api.example.com', 'Sup3rS3cret'],
    ['mysql -p', 'mysql -u root -pSup3rS3cret appdb', 'Sup3rS3cret'],
    ['PGPASSWORD=', 'PGPASSWORD=Sup3rS3cret psql -h db', 'Sup3rS3cret'],
    ['*_AUTHTOKEN=', 'NPM_AUTHTOKEN=abcdef123456', 'abcdef123456'],
    ['os.environ[…] =', 'os.environ["OPENAI_API_KEY"] = "abcd1234efgh5678"', 'abcd1234efgh5678'],
    ['PHP define', "define('DB_PASSWORD', 'Sup3rS3cret');", 'Sup3rS3cret'],
    ['WordPress key', "define( 'AUTH_KEY', 'put your unique phrase here' );", 'unique phrase'],
    ['compose - KEY=', 'environment:\n  - POSTGRES_PASSWORD=example\n  - SENTRY_DSN=abc123xyz', 'abc123xyz'],
    ['PuTTY .ppk', 'PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nPublic-Lines: 1\nAAAAC3NzaC1\nPrivate-Lines: 1\nAAAAIPRIVATEPRIVATE\nPrivate-MAC: 0123456789abcdef\n', 'AAAAIPRIVATEPRIVATE'],
    ['a token after `_`', 'mcp__x__ghp_0123456789abcdefghijklmnopqrstuvwxyzAB', 'ghp_0123'],
  ];
  for (const [name, text, secret] of cases) {
    it(`${name}: ${JSON.stringify(text.slice(0, 50))}`, () => {
      const out = redactSecrets(text);
      assert.ok(!out.includes(secret), out);
      assert.ok(out.includes('[redacted]'), out);
    });
  }

  it('keeps what is around a redaction readable', () => {
    assert.equal(redactSecrets('postgres://app:p@ss@db:5432/app'), 'postgres://app:[redacted]@db:5432/app');
    assert.equal(redactSecrets('curl -u admin:Sup3rS3cret https://x'), 'curl -u admin:[redacted] https://x');
    assert.equal(redactSecrets('docker run -u 1000:1000 img'), 'docker run -u 1000:1000 img');
    assert.equal(redactSecrets('const headers = { authorization: string };'), 'const headers = { authorization: string };');
    assert.equal(redactSecrets('mkdir -p build && ssh -p 22 host'), 'mkdir -p build && ssh -p 22 host');
    assert.deepEqual(redactDeep({ tool: 'mcp__x__ghp_0123456789abcdefghijklmnopqrstuvwxyzAB' }), { tool: 'mcp__x__[redacted]' });
  });

  // ReDoS guard: each rule's pathological input must grow about linearly with its size, not
  // quadratically. The CPU time is taken at four sizes (32 to 256 KiB, best of three interleaved
  // runs each, with a collection before each round: other processes on a busy machine stretch the
  // wall clock, not this process's CPU time) and the growth exponent fitted over all four (least
  // squares on log time against log size): linear is about 1, quadratic 2; the bar is 1.6, and
  // small times (noise) pass: under 75 ms at 256 KiB. A backtracking rule takes seconds there. The
  // output on each is checked too, so a rule that stopped matching fails here as well.
  const units: [string, string, RegExp][] = [
    ['curl -u', 'curl -u a:', /a:\[redacted\]/],
    ['curl --user', 'curl --user=a', /^curl --user=a/],
    ['mysql -p', 'mysql -p"', /^mysql/],
    ['netrc', 'login a password ', /password \[redacted\]/],
    ['pgpass', 'a:1:b:c:\n', /^a:1:b:c:/],
    ['php define', "define('A_KEY', '", /\[redacted\]/],
    ['ppk', 'Private-Lines:', /^Private-Lines:/],
    ['authorization', 'Authorization: ', /^Authorization: /],
    ['authorization digest', 'Authorization: Digest ', /Digest \[redacted\]/],
    ['authorization raw', 'Authorization: aaaaaaaaaaaaaaaaaaaaaaaa1,', /Authorization: \[redacted\]/],
    ['urls with @', 'x://:a@', /x:\/\/:\[redacted\]@/],
    ['token prefixes', 'npm_hf_SG.hvs.xapp-', /^npm_hf_SG/],
    ['os.environ', 'os.environ["PASSWORD"]', /^os\.environ/],
    ['compose lines', ' - A=\n', /^ - A=/],
    ['tokens after _', 'mcp__ghp_', /^mcp__ghp_/],
  ];
  const mk = (u: string, n: number) => u.repeat(Math.ceil(n / u.length)).slice(0, n);
  /** The least-squares slope of log(time) against log(size). */
  const growth = (sizes: number[], times: number[]) => {
    const x = sizes.map(Math.log);
    const y = times.map((t) => Math.log(Math.max(t, 0.01)));
    const mx = x.reduce((p, q) => p + q) / x.length;
    const my = y.reduce((p, q) => p + q) / y.length;
    return x.reduce((p, xi, n) => p + (xi - mx) * (y[n] - my), 0) / x.reduce((p, xi) => p + (xi - mx) ** 2, 0);
  };
  // A collection before each round: garbage left by the previous round is not charged to this one.
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const time = (s: string) => {
    const t0 = cpuMs();
    redactSecrets(s);
    return cpuMs() - t0;
  };
  for (const [name, unit, want] of units) {
    it(`pathological ${name}: linear (the time grows with the size, not its square) and still redacts`, () => {
      const sizes = [1 << 15, 1 << 16, 1 << 17, 1 << 18];
      const inputs = sizes.map((n) => mk(unit, n));
      assert.match(redactSecrets(inputs[3]), want);
      const best = sizes.map(() => Infinity);
      for (let k = 0; k < 3; k++) {
        gc();
        inputs.forEach((x, n) => (best[n] = Math.min(best[n], time(x))));
      }
      const exponent = growth(sizes, best);
      const shown = best.map((t) => t.toFixed(1)).join(' / ');
      assert.ok(best[3] < 75 || exponent < 1.6, `${shown} ms of CPU at 32 / 64 / 128 / 256 KiB: grows as size^${exponent.toFixed(2)}`);
    });
  }
});
