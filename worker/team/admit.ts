// The gate for what comes in from the hub: a pulled record is checked, cleaned and capped like a
// record of local ingest before applyRecord stores it. A teammate (or a hub) is trusted with no
// more than what it shares: a record with a type outside the taxonomy, a field of the wrong shape
// or a payload past the caps is refused (and logged by the caller); long text is kept cut, with
// the mark cutStripped leaves; a time in the future is clamped to the pull's time.
import { OBSERVATION_TYPES } from '../../common/contract/taxonomy';
import type { HubChange } from './types';
import { cleanIncomingText, cutStripped } from '../../common/privacy';

/** The privacy pass every pulled string goes through: local ingest's gate (common/privacy/incoming.ts). */
export function admitText(text: string): string {
  return cleanIncomingText(text).value;
}

/** Caps on a pulled record, at least as strict as what local ingest can store. */
export const ADMIT_LIMITS = {
  /** A payload larger than this (as JSON) is refused whole; the hub's pull leaves it out too. */
  payloadBytes: 256 * 1024,
  title: 300,
  subtitle: 500,
  /** Narratives, summary fields, prompts (a model's whole reply is capped at 64 KB). */
  text: 16_000,
  listItems: 50,
  listItem: 1000,
  /** Author, machine, origin and session keys. */
  id: 256,
};

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/g;

export type Admitted =
  | { ok: true; payload: Record<string, unknown>; createdAt: number; author: string | null; machine: string | null; origin: string; originSession: string | null; cut: boolean }
  | { ok: false; reason: string };

/** What admission reads of a pulled record: a hub change without its op and change number. */
type Incoming = Omit<HubChange, 'op' | 'seq'>;

const TYPES = new Set<string>(OBSERVATION_TYPES);

/** Checks and cleans one pulled record; `now` is the pull's time (a later createdAt is clamped to it). */
export function admitRecord(c: Incoming, now: number): Admitted {
  if (c.oversize) return { ok: false, reason: `payload over ${ADMIT_LIMITS.payloadBytes} bytes` };
  const p = c.payload;
  if (p === null || typeof p !== 'object' || Array.isArray(p)) return { ok: false, reason: 'payload is not an object' };
  let bytes = 0;
  try {
    bytes = JSON.stringify(p).length;
  } catch {
    return { ok: false, reason: 'payload is not JSON' };
  }
  if (bytes > ADMIT_LIMITS.payloadBytes) return { ok: false, reason: `payload of ${bytes} bytes is over ${ADMIT_LIMITS.payloadBytes}` };
  let cut = false;
  const text = (v: unknown, max: number, oneLine = false): string | null => {
    if (v === null || v === undefined) return null;
    if (typeof v !== 'string') throw new Refused('a text field is not a string');
    let t = admitText(v);
    if (oneLine) t = t.replace(CONTROL, ' ');
    if (t.length > max) {
      cut = true;
      t = oneLine ? `${t.slice(0, max - 1)}…` : cutStripped(t, max);
    }
    return t;
  };
  const list = (v: unknown): string[] => {
    if (v === null || v === undefined) return [];
    if (!Array.isArray(v)) throw new Refused('a list field is not an array');
    if (v.length > ADMIT_LIMITS.listItems) cut = true;
    return v.slice(0, ADMIT_LIMITS.listItems).map((x) => {
      if (typeof x !== 'string') throw new Refused('a list item is not a string');
      return text(x, ADMIT_LIMITS.listItem, true) ?? '';
    });
  };
  const int = (v: unknown): number | null => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : null);
  try {
    let payload: Record<string, unknown>;
    if (c.kind === 'observation') {
      if (typeof p.type !== 'string' || !TYPES.has(p.type)) return { ok: false, reason: `type ${JSON.stringify(String(p.type).slice(0, 60))} is not an observation type` };
      payload = {
        type: p.type,
        title: text(p.title, ADMIT_LIMITS.title, true) || '(untitled)',
        subtitle: text(p.subtitle, ADMIT_LIMITS.subtitle, true),
        facts: list(p.facts),
        narrative: text(p.narrative, ADMIT_LIMITS.text),
        concepts: list(p.concepts),
        filesRead: list(p.filesRead),
        filesModified: list(p.filesModified),
        toolName: text(p.toolName, 200, true),
        promptNumber: int(p.promptNumber),
        // A quiet note (noise): only `true` makes one, anything else is an ordinary note.
        ...(p.quiet === true ? { quiet: true } : {}),
      };
    } else if (c.kind === 'summary') {
      payload = {
        request: text(p.request, ADMIT_LIMITS.text),
        investigated: text(p.investigated, ADMIT_LIMITS.text),
        learned: text(p.learned, ADMIT_LIMITS.text),
        completed: text(p.completed, ADMIT_LIMITS.text),
        nextSteps: text(p.nextSteps, ADMIT_LIMITS.text),
        notes: text(p.notes, ADMIT_LIMITS.text),
        promptNumber: int(p.promptNumber),
      };
    } else if (c.kind === 'prompt') {
      const t = text(p.text, ADMIT_LIMITS.text);
      if (!t) return { ok: false, reason: 'a prompt without text' };
      payload = { text: t, promptNumber: int(p.promptNumber) ?? 0 };
    } else {
      return { ok: false, reason: `kind ${JSON.stringify(String(c.kind).slice(0, 40))} is not a record kind` };
    }
    const label = (v: string | null): string | null => (v === null ? null : v.replace(CONTROL, ' ').slice(0, ADMIT_LIMITS.id));
    const created = Number(c.created_at ?? 0);
    return {
      ok: true,
      payload,
      cut,
      // Never after the pull, never before 1970: a record from "2999" would top every list for ever.
      createdAt: Number.isSafeInteger(created) && created > 0 ? Math.min(created, now) : now,
      author: label(c.author),
      machine: label(c.machine),
      origin: label(c.origin) ?? '',
      originSession: label(c.origin_session),
    };
  } catch (e) {
    if (e instanceof Refused) return { ok: false, reason: e.message };
    throw e;
  }
}

class Refused extends Error {}
