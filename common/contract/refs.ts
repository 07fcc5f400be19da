// How a record is referred to. A person or a model reads `#123` for an observation, `S12` for a
// summary, `P7` for a prompt (replies of the tools, chat answers, the injected context, the panel);
// a route's `ref` field and a timeline anchor spell an observation without the `#` (`123`).
import type { SearchKind } from './routes';

const PREFIX: Record<string, string> = { observation: '#', summary: 'S', prompt: 'P' } satisfies Record<SearchKind, string>;

/** `#123`, `S12` or `P7`: the one way a record is named to a reader (a kind it does not know reads as an observation). */
export function recordRef(kind: SearchKind | (string & {}), id: number | string): string {
  return `${Object.hasOwn(PREFIX, kind) ? PREFIX[kind] : '#'}${id}`;
}

/** The same record as a route spells it (`SearchRow.ref`, a timeline anchor): `123`, `S12`, `P7`. */
export function routeRef(kind: SearchKind | (string & {}), id: number | string): string {
  return kind === 'observation' ? String(id) : recordRef(kind, id);
}

/** A route's `ref` (`123`, `S12`, `P7`) as a reader sees it (`#123`, `S12`, `P7`). */
export function refFromRoute(ref: string): string {
  return /^\d+$/.test(ref) ? recordRef('observation', ref) : ref;
}
