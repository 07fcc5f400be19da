// Plain-text rendering of memory rows for the terminal and the MCP tools. Tolerant of the exact
// wire shape: rows may come as an array or wrapped in items / results / observations.
export type Row = Record<string, unknown>;

export function rowsOf(body: unknown): Row[] {
  if (Array.isArray(body)) return body.filter((x): x is Row => !!x && typeof x === 'object');
  if (!body || typeof body !== 'object') return [];
  const o = body as Record<string, unknown>;
  for (const k of ['items', 'results', 'observations']) {
    if (Array.isArray(o[k])) return (o[k] as unknown[]).filter((x): x is Row => !!x && typeof x === 'object');
  }
  return [];
}

const s = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

export function when(r: Row): string {
  const raw = r.epoch ?? r.createdAtEpoch ?? r.time ?? r.createdAt;
  const t = typeof raw === 'number' ? raw : typeof raw === 'string' ? Date.parse(raw) : NaN;
  if (!Number.isFinite(t)) return '';
  const d = new Date(t);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** The id as the routes spell it: observations by number (#12), summaries S<id>, prompts P<id>. */
export function idOf(r: Row): string {
  const ref = r.ref;
  if (typeof ref === 'string' && /^[SP]\d+$/.test(ref)) return ref;
  if (typeof ref === 'string' && /^\d+$/.test(ref)) return `#${ref}`;
  const kind = s(r.kind);
  if (kind === 'summary') return `S${String(r.id)}`;
  if (kind === 'prompt') return `P${String(r.id)}`;
  return `#${String(r.id)}`;
}

/** One index line: `#12 2025-01-02 14:03 [bugfix] Title (project) ~120t`. */
export function indexLine(r: Row): string {
  const type = s(r.type) ?? s(r.kind) ?? '';
  const title = (s(r.title) ?? s(r.request) ?? s(r.text) ?? s(r.prompt) ?? '(untitled)').replace(/\s+/g, ' ').slice(0, 160);
  const project = s(r.project);
  const tokens = r.readTokens;
  const parts = [idOf(r), when(r), type ? `[${type}]` : '', title, project ? `(${project})` : '', typeof tokens === 'number' ? `~${tokens}t` : ''];
  const anchor = r.anchor === true ? '  <- anchor' : '';
  const snippet = s(r.snippet);
  return parts.filter(Boolean).join(' ') + anchor + (snippet ? `\n    ${snippet.replace(/\s+/g, ' ').slice(0, 240)}` : '');
}

const list = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** A full observation as markdown. */
export function fullObservation(r: Row): string {
  const out = [`## #${String(r.id)} ${s(r.title) ?? '(untitled)'}`];
  const meta = [s(r.type), s(r.project), when(r), s(r.toolName) ? `tool ${String(r.toolName)}` : undefined].filter(Boolean).join(' · ');
  if (meta) out.push(meta);
  if (s(r.subtitle)) out.push(String(r.subtitle));
  if (s(r.narrative)) out.push('', String(r.narrative));
  const facts = list(r.facts);
  if (facts.length) out.push('', 'Facts:', ...facts.map((f) => `- ${f}`));
  const concepts = list(r.concepts);
  if (concepts.length) out.push('', `Concepts: ${concepts.join(', ')}`);
  const read = list(r.filesRead);
  const modified = list(r.filesModified);
  if (read.length) out.push(`Files read: ${read.join(', ')}`);
  if (modified.length) out.push(`Files modified: ${modified.join(', ')}`);
  return out.join('\n');
}
