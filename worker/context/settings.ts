// Context injection's defaults and bounds: the "context" object of <dataDir>/settings.json.
//   { "context": { "tokenBudget": 3000, "observations": 50, "types": ["bugfix"] } }
// Unknown keys and values of the wrong type are ignored (the default stays); a number outside its
// bounds is clamped. A request may override each per injection (options.ts), within the same bounds.

export interface ContextSettings {
  /** At most this many observations in the index. */
  observations: number;
  /** Taken from the project's newest this many sessions. */
  sessions: number;
  /** Observation types to show; empty = all. */
  types: string[];
  /** Only observations carrying one of these concepts; empty = all. */
  concepts: string[];
  /** The newest this many observations are shown in full (narrative and facts). */
  fullCount: number;
  /** Hard cap on the output, in estimated tokens (characters / 4). */
  tokenBudget: number;
  /** A full observation's narrative is cut to this many characters. */
  fullNarrativeChars: number;
}

export const DEFAULT_CONTEXT_SETTINGS: ContextSettings = {
  observations: 50,
  sessions: 10,
  types: [],
  concepts: [],
  fullCount: 5,
  tokenBudget: 3000,
  fullNarrativeChars: 600,
};

type NumberKey = 'observations' | 'sessions' | 'fullCount' | 'tokenBudget' | 'fullNarrativeChars';

/** Bounds for the numbers, [min, max]: a value outside is clamped in settings and a 400 in a request. */
export const CONTEXT_BOUNDS: Record<NumberKey, [number, number]> = {
  observations: [0, 500],
  sessions: [1, 1000],
  fullCount: [0, 50],
  tokenBudget: [100, 100_000],
  fullNarrativeChars: [0, 10_000],
};

/** The "context" section validated: the defaults, with each usable value of `raw` laid over them. */
export function readContextSettings(raw: unknown): ContextSettings {
  const out: ContextSettings = { ...DEFAULT_CONTEXT_SETTINGS };
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return out;
  const rec = raw as Record<string, unknown>;
  for (const key of Object.keys(CONTEXT_BOUNDS) as NumberKey[]) {
    const v = rec[key];
    if (typeof v === 'number' && Number.isFinite(v)) out[key] = Math.min(CONTEXT_BOUNDS[key][1], Math.max(CONTEXT_BOUNDS[key][0], v));
  }
  for (const key of ['types', 'concepts'] as const) {
    const v = rec[key];
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) out[key] = v;
  }
  return out;
}
