// The observation taxonomy: the one place that lists observation types and concepts. Prompts,
// the parser and the docs read it from here. Data only.

export const TAXONOMY = {
  types: {
    bugfix: 'something was broken and is now fixed',
    feature: 'new capability or behaviour was added',
    refactor: 'code was restructured without changing behaviour',
    change: 'a generic modification (configuration, docs, dependencies, chores)',
    discovery: 'learning how existing code, a tool or a system works',
    decision: 'a choice between options was made, with its reasons',
    security_alert: 'a security problem was found (secret exposed, vulnerable code, unsafe permission)',
    security_note: 'a security-relevant fact worth remembering (auth flow, trust boundary, sanitising)',
  },
  /** Used when the model names no type. */
  defaultType: 'discovery',
  concepts: {
    'how-it-works': 'how a piece of code or a system operates',
    'why-it-exists': 'the purpose or rationale behind code or a design',
    'what-changed': 'a concrete modification that was made',
    'problem-solution': 'a problem and the way it was solved',
    gotcha: 'a trap, edge case or surprising behaviour',
    pattern: 'a reusable approach or convention in this codebase',
    'trade-off': 'a cost weighed against a benefit',
  },
} as const;

export type ObservationKind = keyof typeof TAXONOMY.types;
export type Concept = keyof typeof TAXONOMY.concepts;

export const TYPE_NAMES = Object.keys(TAXONOMY.types) as ObservationKind[];
export const CONCEPT_NAMES = Object.keys(TAXONOMY.concepts) as Concept[];
