// The observation taxonomy as the compression prompts and the parser read it: built from the one
// list in common/contract/taxonomy.ts. Data only.
import { CONCEPTS, DEFAULT_OBSERVATION_TYPE, OBSERVATION_TYPE_INFO, OBSERVATION_TYPES, type ObservationType } from '../../common/contract/taxonomy';

export const TAXONOMY = {
  /** Each type and what it means. */
  types: Object.fromEntries(OBSERVATION_TYPES.map((t) => [t, OBSERVATION_TYPE_INFO[t].meaning])) as Record<ObservationType, string>,
  /** Used when the model names no type. */
  defaultType: DEFAULT_OBSERVATION_TYPE,
  concepts: CONCEPTS,
} as const;

export type ObservationKind = keyof typeof TAXONOMY.types;
export type Concept = keyof typeof TAXONOMY.concepts;

export const TYPE_NAMES = Object.keys(TAXONOMY.types) as ObservationKind[];
export const CONCEPT_NAMES = Object.keys(TAXONOMY.concepts) as Concept[];
