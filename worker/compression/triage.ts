// What a tool use's local note is worth, judged from the notes themselves (local.ts's titles, facts
// and concepts) and the session's earlier notes, with no model:
//   - worth a model: a failure (a failed test run, command or tool), the fix that follows it (an edit
//     while a failure is open, a bug-fix edit, the passing run that closes it) and an edit whose stated
//     reason names a choice. Only these go to a model; every other tool use keeps its local note.
//   - noise (quiet): a search that found nothing, a re-read of a file the session already read and
//     has not changed since, a repeat of a test run with the same result. A quiet note is stored and
//     searchable (and the session summary folds it into its "investigated" line) but not listed or
//     injected.
import type { ObservationDraft } from '../store/repos/observations';

/** A note as triage reads it: what local.ts writes, or a stored observation's columns. */
export interface TriageNote {
  type: string;
  title: string;
  subtitle?: string | null;
  facts: string[];
  concepts: string[];
  narrative?: string | null;
  filesRead: string[];
  filesModified: string[];
}

export function noteOfDraft(d: ObservationDraft): TriageNote {
  return { type: d.type, title: d.title, subtitle: d.subtitle, facts: d.facts ?? [], concepts: d.concepts ?? [], narrative: d.narrative, filesRead: d.filesRead ?? [], filesModified: d.filesModified ?? [] };
}

const CHOICE = /\b(?:decided|decision|instead of|rather than|chose|chosen|went with|go with|so that|to avoid|to prevent|because)\b/i;
const cmdOf = (title: string): string | undefined => /^Ran `([^`]*)`/.exec(title)?.[1];
const isFailure = (n: TriageNote) => n.concepts.includes('gotcha');
const isEdit = (n: TriageNote) => n.filesModified.length > 0 && !cmdOf(n.title);
const isTestRun = (n: TriageNote) => cmdOf(n.title) !== undefined && (n.subtitle === 'tests passed' || n.subtitle === 'tests failed' || n.facts.some((f) => f.startsWith('tests: ')));
const isRead = (n: TriageNote) => n.type === 'discovery' && n.title.startsWith('Read ') && n.filesRead.length > 0;
const isEmptySearch = (n: TriageNote) => n.type === 'discovery' && /^(?:Searched for .*|Ran `[^`]*`): no matches$/.test(n.title);

export interface Triage {
  /** Per note of the batch: worth a model call. */
  worth: boolean[];
  /** Per note of the batch: noise, stored but not listed or injected. */
  quiet: boolean[];
}

/**
 * Triage of a batch's notes (in tool-use order) after the session's earlier notes (oldest first).
 * Pure: the same notes give the same answer, so a re-run job is judged alike.
 */
export function triage(earlier: TriageNote[], batch: TriageNote[]): Triage {
  const worth: boolean[] = [];
  const quiet: boolean[] = [];
  // A failure is open from a failed step until a passing run of a test or the same command.
  let open: string | undefined;
  const lastRun = new Map<string, string>();
  const read = new Map<string, string>();
  const step = (n: TriageNote, out?: number) => {
    const cmd = cmdOf(n.title);
    const result = `${n.title}\n${n.facts.join('\n')}`;
    let w = false;
    let q = false;
    if (isFailure(n)) {
      w = true;
      if (cmd !== undefined && lastRun.get(cmd) === result) q = true;
      open = cmd ?? n.title;
    } else if (isEmptySearch(n)) q = true;
    else if (cmd !== undefined) {
      if (open !== undefined && (open === cmd || isTestRun(n))) {
        w = true;
        open = undefined;
      } else if (isTestRun(n) && lastRun.get(cmd) === result) q = true;
    } else if (isEdit(n)) {
      w = open !== undefined || n.type === 'bugfix' || CHOICE.test(n.narrative ?? '');
      for (const f of n.filesModified) read.delete(f);
    } else if (isRead(n)) {
      const f = n.filesRead[0];
      if (read.get(f) === result) q = true;
      read.set(f, result);
    }
    if (cmd !== undefined) lastRun.set(cmd, result);
    if (out !== undefined) {
      // A repeat is noise, never worth a call: the first run already went to the model.
      worth[out] = w && !q;
      quiet[out] = q;
    }
  };
  for (const n of earlier) step(n);
  batch.forEach((n, i) => step(n, i));
  return { worth, quiet };
}
