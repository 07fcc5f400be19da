// Citations for the extension's own captures (saves, file operations, focus): the same
// fingerprints the hook CLI takes (common/node/freshness/fingerprint.ts), of the files the event names, so
// memories made from editor activity can go stale too. Synchronous and small: a few stats and
// reads per captured event.
import type { ObservationRequest } from '../../common/contract';
import { fingerprintToolUse } from '../../common/node/freshness/fingerprint';
import { blobId } from '../../common/node/freshness/gitRepo';

type Req = Omit<ObservationRequest, 'contentSessionId' | 'platform' | 'project'>;

/**
 * Adds citations to a capture. `liveText` gives the editor's text of a file with unsaved edits:
 * that is what the person is looking at, and what the editor's own stale check compares (a cite
 * of the disk's copy would count as a check that marks the memories the edit made stale fresh
 * again, and the mark would flip with every capture).
 */
export function withCitations(req: Req, enabled: boolean, liveText: (absPath: string) => string | undefined = () => undefined): Req {
  if (!enabled || req.citations || !req.tool_input || typeof req.tool_input !== 'object') return req;
  const i = req.tool_input as Record<string, unknown>;
  const files = [i.file_path, i.file, i.new_path].filter((f): f is string => typeof f === 'string');
  if (files.length === 0) return req;
  let citations: ObservationRequest['citations'];
  for (const file of files) {
    const one = fingerprintToolUse({ cwd: req.cwd, tool_input: { file_paths: [file] } }, {});
    if (!one) continue;
    const text = liveText(file);
    if (text !== undefined) one.files = one.files.map((f) => ({ ...f, blob: blobId(Buffer.from(text, 'utf8')) }));
    citations = citations ? { ...citations, files: [...citations.files, ...one.files] } : one;
  }
  return citations ? { ...req, citations } : req;
}

