// Options of one context injection: settings.json's "context" object, overridden per request by
// query parameters (budget, observations, sessions, full, types, concepts). Out-of-range numbers
// in a request are a 400; in settings they are clamped (settings.ts).
import { BadRequest, intParam } from '../../common/contract';
import { CONTEXT_BOUNDS, type ContextSettings } from './settings';

/** excludeTeammates: leave out records pulled from teammates (team.injectTeammates false, docs/team.md). */
export type ContextOptions = ContextSettings & { excludeTeammates?: boolean };

type Query = (name: string) => string | undefined;

export function contextOptions(settings: ContextSettings, q: Query): ContextOptions {
  const num = (name: string, key: keyof typeof CONTEXT_BOUNDS, alias?: string) => {
    const [min, max] = CONTEXT_BOUNDS[key];
    const raw = q(name) ?? (alias ? q(alias) : undefined);
    return intParam(raw, name, settings[key], min, max);
  };
  return {
    tokenBudget: num('budget', 'tokenBudget', 'tokenBudget'),
    observations: num('observations', 'observations'),
    sessions: num('sessions', 'sessions'),
    fullCount: num('full', 'fullCount', 'fullCount'),
    fullNarrativeChars: num('narrativeChars', 'fullNarrativeChars'),
    types: list(q('types') ?? q('type'), 'types') ?? settings.types,
    concepts: list(q('concepts'), 'concepts') ?? settings.concepts,
    ...(teammatesOff(q('teammates')) ? { excludeTeammates: true } : {}),
  };
}

/** `teammates=0` leaves teammates' records out of this injection; it can only narrow what the worker's setting allows. */
function teammatesOff(raw: string | undefined): boolean {
  if (raw === undefined || raw === '1' || raw === 'true') return false;
  if (raw === '0' || raw === 'false') return true;
  throw new BadRequest(`query 'teammates' must be 0 or 1`);
}

function list(raw: string | undefined, name: string): string[] | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const items = raw
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (items.length > 20 || items.some((s) => s.length > 100 || /[\u0000-\u001f]/.test(s))) throw new BadRequest(`query '${name}' must be a comma list of at most 20 short names`);
  return items;
}
