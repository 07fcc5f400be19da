// Re-verify: the compression model sees a stale memory and the changed lines of its cited files and
// answers still-true, changed (with the corrected memory) or wrong. The client sends the lines: the
// worker never reads the user's files.
import type { VerifyFile } from '../../common/contract';

export const VERIFY_SYSTEM = `You check whether a stored memory about a codebase still holds after the files it cites changed.
You get the memory and, per file, the changed lines (a unified diff) or the current content.
Answer with XML only:
<verdict>still-true|changed|wrong</verdict>
<reason>one short sentence</reason>
and, only for "changed", the corrected memory:
<title>…</title><narrative>…</narrative><facts><fact>…</fact></facts>
still-true: every statement in the memory is still correct. changed: the memory's subject still exists but a detail differs (give the corrected memory). wrong: what it says no longer applies at all.`;

export interface VerifyMemory {
  title: string;
  subtitle: string | null;
  narrative: string | null;
  facts: string[];
}

export interface Verdict {
  verdict: 'still-true' | 'changed' | 'wrong';
  reason: string;
  title?: string;
  narrative?: string;
  facts?: string[];
}

const FILE_CHARS = 12_000;
const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}\n… (${s.length - n} more characters)` : s);

export function verifyPrompt(m: VerifyMemory, files: VerifyFile[]): string {
  const out = ['<memory>', `<title>${m.title}</title>`];
  if (m.subtitle) out.push(`<subtitle>${m.subtitle}</subtitle>`);
  if (m.narrative) out.push(`<narrative>${m.narrative}</narrative>`);
  for (const f of m.facts) out.push(`<fact>${f}</fact>`);
  out.push('</memory>');
  for (const f of files) {
    if (f.diff !== undefined) out.push(`<file path="${f.path}" kind="diff">\n${clip(f.diff, FILE_CHARS)}\n</file>`);
    else if (f.content !== undefined) out.push(`<file path="${f.path}" kind="current">\n${clip(f.content, FILE_CHARS)}\n</file>`);
    else out.push(`<file path="${f.path}" kind="deleted"/>`);
  }
  return out.join('\n');
}

const tag = (text: string, name: string): string | undefined => {
  const m = new RegExp(`<${name}>([\\s\\S]*?)</${name}>`, 'i').exec(text);
  return m ? m[1].trim() : undefined;
};

/** The model's answer, or undefined when it holds no known verdict. */
export function parseVerdict(text: string): Verdict | undefined {
  const v = tag(text, 'verdict')?.toLowerCase().replace(/[\s_]+/g, '-');
  if (v !== 'still-true' && v !== 'changed' && v !== 'wrong') return undefined;
  const reason = (tag(text, 'reason') ?? '').slice(0, 500);
  if (v !== 'changed') return { verdict: v, reason };
  const title = tag(text, 'title');
  if (!title) return undefined; // "changed" without the corrected memory is of no use
  const factsBlock = tag(text, 'facts') ?? '';
  const facts = [...factsBlock.matchAll(/<fact>([\s\S]*?)<\/fact>/gi)].map((m) => m[1].trim().slice(0, 500)).filter(Boolean).slice(0, 20);
  return { verdict: v, reason, title: title.slice(0, 300), narrative: tag(text, 'narrative')?.slice(0, 4000), facts };
}

