// Seeded text for privacy property tests: random Unicode (with every kind of character whose case
// mapping changes length), <private> blocks in any case (sometimes nested) and secrets in the
// formats redaction knows. Every private mark and every secret's distinctive part is remembered in
// `forbidden`: a test then looks for each of them wherever text may have gone.
import { prng } from '../fixtures/prng';

export interface PrivateText {
  /** Strings that must never be found anywhere: private marks and the distinctive part of each secret. */
  forbidden: string[];
  alnum(n: number, set?: string): string;
  visible(n: number): string;
  randomCase(s: string): string;
  privateMark(): string;
  /** A secret in one of the formats redaction knows. `compact`: one without spaces (for ids and branch names). */
  secret(compact?: boolean): string;
  /** Random Unicode with private blocks (random case, sometimes nested) and secrets in and out of them. */
  messy(): string;
  /** Short enough for an id (at most 256 characters): one block and one secret. */
  idMessy(): string;
}

const LENGTH_CHANGING = ['\u0130', 'ß', 'ŉ', 'ǰ', 'ΐ', 'ΰ', 'և', 'ẖ', 'ẞ', 'ﬀ', 'ﬁ', 'ﬆ', 'ﬓ', 'K', 'Ω'];
const PLAIN = [...'abc XYZ 019 şğüöçı ÇŞĞÜÖ éñ 中文 русский 😀 .,:;!?()[]{}=+-_*/\\|#%'];

export function privateText(seed: number): PrivateText {
  const rand = prng(seed);
  const forbidden: string[] = [];
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  const alnum = (n: number, set = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789') => Array.from({ length: n }, () => set[Math.floor(rand() * set.length)]).join('');
  const visible = (n: number) => Array.from({ length: n }, () => (rand() < 0.3 ? pick(LENGTH_CHANGING) : pick(PLAIN))).join('');
  const randomCase = (s: string) => [...s].map((c) => (rand() < 0.5 ? c.toUpperCase() : c)).join('');
  const privateMark = () => {
    const m = `zqpriv${alnum(10, 'abcdefghijklmnopqrstuvwxyz')}`;
    forbidden.push(m);
    return m;
  };
  const secret = (compact = false) => {
    const core = alnum(36);
    const kinds = [
      () => [`ghp_${core}`, core],
      () => [`AKIA${alnum(16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')}`, ''],
      () => [`sk-ant-api03-${core}`, core],
      () => [`postgres://app:${core}@db.example.com:5432/app`, core],
      () => [`redis://:${core}@cache:6379`, core],
      () => [`PGPASSWORD=${core} psql`, core],
      () => [`npm_${core}`, core],
      () => [`hf_${core}`, core],
      () => [`Authorization: Digest username="u", response="${core}"`, core],
      () => [`curl -u admin:${core} https://x`, core],
    ];
    const usable = compact ? kinds.slice(0, 5).concat(kinds.slice(6, 8)) : kinds;
    const [s, part] = pick(usable)();
    forbidden.push(part || s);
    return s;
  };
  const messy = () => {
    let s = visible(8);
    for (let p = 0; p < 3; p++) {
      s += ` ${visible(6)} `;
      if (rand() < 0.5) s += ` ${secret()} `;
      const name = rand() < 0.85 ? 'private' : 'claude-mem-context';
      const inner = `${visible(5)} ${privateMark()} ${secret()} ${visible(5)}`;
      s += `<${randomCase(name)}>${rand() < 0.3 ? `<${name}>${inner}</${name}>` : inner}</${randomCase(name)}>`;
    }
    return `${s} ${visible(8)}`;
  };
  const idMessy = () =>
    `${visible(3)}-${rand() < 0.5 ? secret(true) : ''}<${randomCase('private')}>${privateMark()}${secret(true)}</${randomCase('private')}>${visible(3)}`.replace(/\s/g, '');
  return { forbidden, alnum, visible, randomCase, privateMark, secret, messy, idMessy };
}
