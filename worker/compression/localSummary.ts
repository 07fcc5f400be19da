// The local session summary, with no model: what was asked (every prompt of the session), what was
// decided and why (the request's own reason, the closing message's decision sentences), what
// changed (files and the gist), the outcome (the first failing test run and the final result,
// errors hit and whether they were fixed) and what is left (open-item sentences, tests still
// failing). It reads the session's notes through the fact prefixes local.ts writes.
import type { SummaryDraft } from '../store/repos/summaries';
import { isTestCommand } from './toolOutput';

export interface LocalSummaryInput {
  /** The last prompt (or the transcript's last user message). */
  request: string | undefined;
  /** Every prompt of the session, oldest first. */
  prompts?: string[];
  lastAssistantMessage: string | undefined;
  observations: { type: string; title: string; subtitle?: string | null; facts?: string | string[] | null; narrative?: string | null; files_read: string; files_modified: string }[];
}

const oneLine = (t: string) => t.replace(/\s+/g, ' ').trim();

function cut(t: string, max: number): string {
  const s = oneLine(t);
  return s.length > max ? `${s.slice(0, max - 1).trimEnd()}…` : s;
}

function list(v: string | string[] | null | undefined): string[] {
  if (Array.isArray(v)) return v;
  if (!v) return [];
  try {
    const x: unknown = JSON.parse(v);
    return Array.isArray(x) ? x.filter((s): s is string => typeof s === 'string') : [];
  } catch {
    return [];
  }
}

/** Sentences of a text (markdown bullets and lines count as sentences; code blocks are left out). */
export function sentences(text: string): string[] {
  const prose = text.replace(/```[\s\S]*?```/g, ' ').replace(/`([^`]*)`/g, '$1');
  const out: string[] = [];
  for (const line of prose.split(/\n+/)) {
    const l = line.replace(/^\s*(?:[-*+•]|\d+[.)]|#+)\s+/, '').trim();
    if (!l) continue;
    for (const s of l.split(/(?<!\b(?:Dr|Mr|Mrs|Ms|Prof|St|vs|etc|e\.g|i\.e|approx|cf|no))(?<=[.!?])\s+(?=[A-Z(`"'])/)) if (s.trim().length > 2) out.push(s.trim());
  }
  return out;
}

const WHY = /\b(?:because|since|so that|otherwise|due to|to avoid|to prevent|in order to|the reason(?: is)?|which is why|that's why|given that)\b\s*(.*)$/i;
const DECIDE = /\b(?:decided|decide|decision|chose|chosen|choose|went with|go with|going with|opted|settled on|instead of|rather than|over|prefer(?:red)?|switch(?:ed)? to|kept|keep|keeping|stick with|pin(?:ned)?|now|fixed|cap(?:ped)?|limit(?:ed)?|set (?:to|at)|defaults? to|never|always|must|won't|will not|don't|do not|no longer|only|scoped|uses?)\b/i;
const OPEN = /(?<![-_/.])\b(?:todo|to-do|to do|next step|(?:is|are|remains?) still|still (?:needs?|has|have|fails?|failing|open|uses?|contains?|carries|divides|missing|broken|not|on|in)|remaining|left to|leftover|follow[- ]?up|not yet|needs? to be|needs? (?:a|an|the|signing|someone)|should (?:also|still)|open question|known (?:issue|problem)|pending|haven't|have not|didn't get to|did not get to|out of scope|unresolved|blocked|waiting (?:for|on)|eventually|next time|until|not (?:done|fixed|covered|handled|diagnosed|confirmed)|unconfirmed)\b|\b(?:has|have|is|are) not\b[^.;]{0,30}\byet\b/i;
/** A paragraph that starts with one of these lists open items: every sentence of it is one. */
const OPEN_LABEL = /^\s*(?:\*\*)?(?:still open|open(?: items?| questions?)?|not done|left to do|left|next steps?|todo|known (?:issues?|problems?)|remaining|follow[- ]?ups?|caveats?)(?:\*\*)?\s*:/i;
const IMPERATIVE = /^(?:(?:please|also|and|then|now|ok|okay|so|but)[,\s]+)*(?:add|make|use|switch|change|cap|limit|set|keep|move|rename|replace|remove|drop|fix|stop|start|find|investigate|figure|look|check|see|can you|could you|write|update|create|build|refactor|migrate|upgrade|bump|pin|delete|clean|support|implement|introduce|allow|disallow|require|default|prefer|avoid|don't|do not|never|always|let's|we should|we'll|go with)\b/i;

/** Open items of a closing message: sentences with an open-item cue, and every sentence of a paragraph labelled as open. */
function openItems(text: string): string[] {
  const out: string[] = [];
  for (const para of text.split(/\n\s*\n/)) {
    const labelled = OPEN_LABEL.test(para);
    for (const sen of sentences(para)) if (labelled || OPEN.test(sen)) out.push(sen.replace(OPEN_LABEL, '').trim());
  }
  return out.filter((x) => x.length > 3);
}

/** The reason a text gives ("because …"), one clause. */
function reasonOf(text: string): string | undefined {
  for (const s of sentences(text)) {
    const m = WHY.exec(s);
    // A reason is a clause ("since yesterday's merge" is a time, not a reason).
    if (m && m[1] && m[1].trim().split(/\s+/).length >= 3) return cut(m[1].replace(/[.;,]\s*$/, ''), 240);
  }
  return undefined;
}

/** The problem a prompt states before it asks (the sentences before its first request), one clause. */
function problemOf(prompt: string): string | undefined {
  const ss = sentences(prompt);
  const i = ss.findIndex((x) => IMPERATIVE.test(x) || /\?$/.test(x));
  return i > 0 ? cut(ss.slice(0, i).join(' ').replace(/[.;,\s]+$/, ''), 240) : undefined;
}

/** The request itself without its reason: "add exponential backoff with jitter, cap at 30s". */
function requestCore(prompt: string): string {
  const first = sentences(prompt).find((s) => IMPERATIVE.test(s) || DECIDE.test(s)) ?? sentences(prompt)[0] ?? prompt;
  return cut(first.replace(WHY, '').replace(/[\s,;:—-]+$/, ''), 240);
}

interface Run {
  title: string;
  failed: boolean;
  tests?: string;
  failing: string[];
  errors: string[];
}

function runsOf(observations: LocalSummaryInput['observations']): Run[] {
  const out: Run[] = [];
  for (const o of observations) {
    const facts = list(o.facts);
    const tests = facts.find((f) => f.startsWith('tests: '))?.slice(7);
    if (!o.title.startsWith('Ran `') && !tests) continue;
    const failing = facts.filter((f) => f.startsWith('failing: ')).map((f) => f.slice(9));
    const errors = facts.filter((f) => f.startsWith('error: ') || f.startsWith('failed: ')).map((f) => f.replace(/^(error|failed): /, ''));
    const failed = /\(exit [1-9]\d*\)|: failed$|\b[1-9]\d* failed\b/.test(o.title) || o.subtitle === 'tests failed';
    out.push({ title: o.title, failed, tests, failing, errors });
  }
  return out;
}

const cmdOf = (title: string) => /`([^`]*)`/.exec(title)?.[1] ?? title;

export function summarizeLocally(s: LocalSummaryInput): SummaryDraft {
  const prompts = (s.prompts && s.prompts.length > 0 ? s.prompts : s.request ? [s.request] : []).map((p) => p.trim()).filter(Boolean);
  const final = s.lastAssistantMessage?.trim() || undefined;
  const obs = s.observations;

  // Asked: every prompt of the session, in order.
  const request = prompts.length === 0 ? null : cut(prompts.length === 1 ? prompts[0] : prompts.map((p, i) => `${i === 0 ? '' : 'then: '}${cut(p, 200)}`).join('; '), 500);

  // Decided and why.
  const why = prompts.map(reasonOf).find(Boolean) ?? prompts.map(problemOf).find(Boolean);
  const decisions: string[] = [];
  const addDecision = (d: string) => {
    const t = cut(d.replace(/^\s*(?:\*\*)?(?:decision|decided|fixed)(?:\*\*)?\s*:\s*/i, ''), 240);
    if (t.length > 3 && !decisions.some((x) => x.toLowerCase() === t.toLowerCase())) decisions.push(t);
  };
  for (const p of prompts) {
    for (const sen of sentences(p)) if ((IMPERATIVE.test(sen) && !final) || /\b(decided|instead of|rather than|go with|went with|never|always|keep)\b/i.test(sen)) addDecision(sen.replace(WHY, '').replace(/[\s,;:—-]+$/, ''));
  }
  if (decisions.length === 0 && prompts[0] && !final) addDecision(requestCore(prompts[0]));
  // The closing message says what holds now: its first sentence and the ones that state a choice.
  const finalOpen = final ? openItems(final) : [];
  if (final) {
    const closing = sentences(final.split(/\n\s*\n/).filter((p) => !OPEN_LABEL.test(p)).join('\n\n'));
    closing.forEach((sen, i) => {
      if (decisions.length < 5 && (i === 0 || DECIDE.test(sen)) && !finalOpen.includes(sen) && !/^(?:all |the )?\d+ (?:of \d+ )?(?:\w+ )?tests? pass/i.test(sen)) addDecision(sen.replace(/[.]\s*$/, ''));
    });
  }

  // Outcome: the first failing run, the final result, errors hit and whether they were fixed.
  const runs = runsOf(obs);
  // A run of a test runner, not any command that names a test folder (`ls tests/`, `rg x tests`).
  const testRuns = runs.filter((r) => r.tests !== undefined || isTestCommand(cmdOf(r.title)));
  const outcome: string[] = [];
  const lastTest = testRuns[testRuns.length - 1];
  const firstFail = testRuns.find((r) => r.failed);
  if (firstFail && firstFail !== lastTest) outcome.push(`first test run failed (${firstFail.tests ?? 'failed'}${firstFail.failing.length ? `: ${firstFail.failing.slice(0, 2).join('; ')}` : firstFail.errors.length ? `: ${firstFail.errors[0]}` : ''})`);
  if (lastTest) outcome.push(`tests ${lastTest.failed ? 'failing' : 'passed'}: ${lastTest.tests ?? (lastTest.failed ? 'failed' : 'passed')} (\`${cmdOf(lastTest.title)}\`)`);
  const otherFails = runs.filter((r) => r.failed && !testRuns.includes(r));
  const fixed: string[] = [];
  const unfixed: string[] = [];
  for (const r of otherFails) {
    const later = runs.slice(runs.indexOf(r) + 1).find((x) => cmdOf(x.title) === cmdOf(r.title));
    const what = `\`${cmdOf(r.title)}\`${r.errors[0] ? `: ${r.errors[0]}` : ''}`;
    if (later && !later.failed) fixed.push(what);
    else if (!later) unfixed.push(what);
  }
  if (fixed.length) outcome.push(`errors hit and fixed: ${fixed.slice(0, 3).join('; ')}`);
  const toolFailures = obs.filter((o) => !o.title.startsWith('Ran `') && list(o.facts).some((f) => f.startsWith('failed: ')));

  // What is left.
  const open: string[] = [];
  const addOpen = (t: string) => {
    const c = cut(t, 240);
    if (c.length > 3 && !open.includes(c)) open.push(c);
  };
  for (const sen of finalOpen) addOpen(sen);
  for (const p of prompts) for (const sen of sentences(p)) if (/\b(later|todo|follow[- ]?up|next time|eventually|separately|another (?:pr|session|time))\b/i.test(sen)) addOpen(sen);
  if (lastTest?.failed) addOpen(`Tests still failing${lastTest.failing.length ? `: ${lastTest.failing.slice(0, 3).join('; ')}` : ` (${lastTest.tests ?? `\`${cmdOf(lastTest.title)}\``})`}`);
  for (const u of unfixed.slice(0, 2)) addOpen(`Still failing: ${u}`);

  // What changed: files with the gist, and the closing sentence.
  const changedFiles: string[] = [];
  for (const o of obs) for (const f of list(o.files_modified)) if (!changedFiles.includes(f)) changedFiles.push(f);
  const gist = obs
    .filter((o) => ['change', 'feature', 'bugfix', 'refactor'].includes(o.type) && !o.title.startsWith('Ran `'))
    .flatMap((o) => list(o.facts).filter((f) => f.startsWith('changed: ')).map((f) => f.slice(9).replace(/[;,]$/, '')))
    .slice(0, 2);
  const completedParts: string[] = [];
  if (final) completedParts.push(cut(sentences(final).slice(0, 3).join(' '), 360));
  if (changedFiles.length) completedParts.push(`Changed ${changedFiles.slice(0, 6).join(', ')}${changedFiles.length > 6 ? ` and ${changedFiles.length - 6} more` : ''}${gist.length ? ` (${gist.join('; ')})` : ''}.`);
  const commands = obs.filter((o) => o.type === 'change' && o.title.startsWith('Ran `')).map((o) => `\`${cmdOf(o.title)}\``);
  if (commands.length && !final) completedParts.push(`Ran ${[...new Set(commands)].slice(0, 4).join(', ')}.`);
  if (outcome.length) completedParts.push(`Outcome: ${outcome.join('; ')}.`);

  // Looked at: reads and searches folded into one line.
  const read: string[] = [];
  const searched: string[] = [];
  for (const o of obs) {
    if (o.type !== 'discovery') continue;
    if (o.title.startsWith('Read ')) read.push(o.title.slice(5));
    else if (o.title.startsWith('Searched for ')) searched.push(o.title.slice(13));
  }
  const investigatedParts: string[] = [];
  if (read.length) investigatedParts.push(`read ${[...new Set(read)].slice(0, 8).join(', ')}${read.length > 8 ? ` and ${new Set(read).size - 8} more` : ''}`);
  if (searched.length) investigatedParts.push(`searched for ${[...new Set(searched)].slice(0, 5).join(', ')}`);
  if (toolFailures.length) investigatedParts.push(`hit ${toolFailures.slice(0, 2).map((o) => o.title).join('; ')}`);

  const learnedParts: string[] = [];
  if (decisions.length) learnedParts.push(`Decided: ${decisions.slice(0, 5).join('; ')}.`);
  if (why) learnedParts.push(`Why: ${why}.`);
  if (fixed.length === 0 && firstFail && lastTest && !lastTest.failed && firstFail.failing.length) learnedParts.push(`Fixed the failing ${firstFail.failing.length === 1 ? 'test' : 'tests'}: ${firstFail.failing.slice(0, 2).join('; ')}.`);

  const join = (xs: string[], max: number) => (xs.length === 0 ? null : cut(xs.join(' '), max));
  return {
    request,
    investigated: investigatedParts.length ? cut(investigatedParts.join('; '), 400) : null,
    learned: join(learnedParts, 900),
    completed: join(completedParts, 800),
    nextSteps: open.length ? cut(open.slice(0, 5).join(' · '), 600) : null,
    notes: final ? final.slice(0, 600) : null,
  };
}
