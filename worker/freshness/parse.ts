// Validation of the freshness wire inputs (citations on an observation, check reports, verify
// requests). Bounded everywhere: a client can send many files, never unbounded text.
import { asObject, BadRequest, reqId, type CheckFile, type CitationFile, type CitationsPayload, type FreshnessCheckRequest, type VerifyFile } from '../../common/contract';

const MAX_FILES = 200;
const MAX_CHECK_FILES = 20_000;
const MAX_PATH = 4096;
const BLOB = /^[0-9a-f]{40}$|^[0-9a-f]{64}$/;

function path(o: Record<string, unknown>, key: string, what: string): string {
  const v = o[key];
  if (typeof v !== 'string' || v.trim() === '') throw new BadRequest(`${what}.${key} must be a non-empty string`);
  if (v.length > MAX_PATH || /[\u0000-\u001f]/.test(v)) throw new BadRequest(`${what}.${key} must be a path of at most ${MAX_PATH} printable characters`);
  return v.replace(/\\/g, '/');
}

function blob(o: Record<string, unknown>, what: string): string | null {
  const v = o.blob;
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string' || !BLOB.test(v)) throw new BadRequest(`${what}.blob must be a 40 or 64 character lowercase hex id or null`);
  return v;
}

function gitRef(o: Record<string, unknown>, key: string): string | null {
  const v = o[key];
  if (v === undefined || v === null || v === '') return null;
  if (typeof v !== 'string' || v.length > 256 || /[\u0000-\u001f\s]/.test(v)) throw new BadRequest(`field '${key}' must be a git name without spaces (at most 256 characters)`);
  return v;
}

function bases(o: Record<string, unknown>): string[] {
  const v = o.bases;
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.length > 10) throw new BadRequest(`field 'bases' must be an array of at most 10 branch names`);
  return v.map((b, i) => gitRef({ b }, 'b') ?? (() => { throw new BadRequest(`bases[${i}] must be a branch name`); })());
}

function file(raw: unknown, what: string): CitationFile {
  const o = asObject(raw, what);
  const b = blob(o, what);
  const gone = o.gone === true;
  if (b === null && !gone) throw new BadRequest(`${what} needs a blob or gone: true`);
  return { path: path(o, 'path', what), blob: gone ? null : b, tracked: o.tracked === true, ...(gone ? { gone: true } : {}) };
}

/** A file of a check: a fingerprint, where a gone file went (movedTo), and whether a change is committed. */
function checkFile(raw: unknown, what: string): CheckFile {
  const f: CheckFile = file(raw, what);
  const fo = raw as Record<string, unknown>;
  if (fo.movedTo !== undefined && fo.movedTo !== null) f.movedTo = path(fo, 'movedTo', what);
  if (fo.change !== undefined && fo.change !== null) {
    if (fo.change !== 'committed' && fo.change !== 'uncommitted') throw new BadRequest(`${what}.change must be committed or uncommitted`);
    f.change = fo.change;
  }
  return f;
}

/** The optional `citations` of an observation request; undefined when absent. */
export function parseCitations(raw: unknown): CitationsPayload | undefined {
  if (raw === undefined || raw === null) return undefined;
  const o = asObject(raw, 'citations');
  if (!Array.isArray(o.files)) throw new BadRequest('citations.files must be an array');
  if (o.files.length > MAX_FILES) throw new BadRequest(`citations.files holds at most ${MAX_FILES} files`);
  return { commit: gitRef(o, 'commit'), branch: gitRef(o, 'branch'), bases: bases(o), files: o.files.map((f, i) => checkFile(f, `citations.files[${i}]`)) };
}

export function parseCheck(body: unknown): FreshnessCheckRequest {
  const o = asObject(body);
  const project = reqId(o, 'project');
  if (!Array.isArray(o.files)) throw new BadRequest("field 'files' must be an array");
  if (o.files.length > MAX_CHECK_FILES) throw new BadRequest(`at most ${MAX_CHECK_FILES} files per check`);
  const files: CheckFile[] = o.files.map((raw, i) => checkFile(raw, `files[${i}]`));
  return { project, branch: gitRef(o, 'branch'), bases: bases(o), commit: gitRef(o, 'commit'), files };
}

export function parseId(o: Record<string, unknown>, key = 'id'): number {
  const v = o[key];
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v <= 0) throw new BadRequest(`field '${key}' must be a positive integer`);
  return v;
}

export function parseConfirm(body: unknown): { id: number; files: CitationFile[] } {
  const o = asObject(body);
  const files = o.files === undefined || o.files === null ? [] : Array.isArray(o.files) && o.files.length <= MAX_FILES ? o.files.map((f, i) => file(f, `files[${i}]`)) : (() => { throw new BadRequest(`field 'files' must be an array of at most ${MAX_FILES} files`); })();
  return { id: parseId(o), files };
}

export function parseRetire(body: unknown): { id: number; replacedBy?: number; note?: string } {
  const o = asObject(body);
  const replacedBy = o.replacedBy === undefined || o.replacedBy === null ? undefined : parseId(o, 'replacedBy');
  const note = o.note === undefined || o.note === null ? undefined : typeof o.note === 'string' && o.note.length <= 1000 ? o.note : (() => { throw new BadRequest("field 'note' must be a string of at most 1000 characters"); })();
  return { id: parseId(o), replacedBy, note };
}

const MAX_VERIFY_TEXT = 200_000;

export function parseVerify(body: unknown): { id: number; files: VerifyFile[] } {
  const o = asObject(body);
  const id = parseId(o);
  if (!Array.isArray(o.files) || o.files.length === 0 || o.files.length > 20) throw new BadRequest("field 'files' must be an array of 1 to 20 files");
  const files = o.files.map((raw, i): VerifyFile => {
    const what = `files[${i}]`;
    const f = asObject(raw, what);
    const text = (k: 'diff' | 'content') => {
      const v = f[k];
      if (v === undefined || v === null) return undefined;
      if (typeof v !== 'string' || v.length > MAX_VERIFY_TEXT) throw new BadRequest(`${what}.${k} must be a string of at most ${MAX_VERIFY_TEXT} characters`);
      return v;
    };
    const out: VerifyFile = { path: path(f, 'path', what), blob: blob(f, what), diff: text('diff'), content: text('content') };
    if (out.diff === undefined && out.content === undefined && !f.gone) throw new BadRequest(`${what} needs the changed lines (diff) or the current content`);
    return out;
  });
  return { id, files };
}

