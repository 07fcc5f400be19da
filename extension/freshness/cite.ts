// Citations for the extension's own captures (saves, file operations, focus): the same
// fingerprints the hook CLI takes (worker/cli/fingerprint.ts), of the files the event names, so
// memories made from editor activity can go stale too. Synchronous and small: a few stats and
// reads per captured event.
import type { ObservationRequest } from '../../common/contract';
import { fingerprintToolUse } from '../../worker/cli/fingerprint';

type Req = Omit<ObservationRequest, 'contentSessionId' | 'platform' | 'project'>;

export function withCitations(req: Req, enabled: boolean): Req {
  if (!enabled || req.citations || !req.tool_input || typeof req.tool_input !== 'object') return req;
  const i = req.tool_input as Record<string, unknown>;
  const files = [i.file_path, i.file, i.new_path].filter((f): f is string => typeof f === 'string');
  if (files.length === 0) return req;
  const citations = fingerprintToolUse({ cwd: req.cwd, tool_input: { file_paths: files } }, {});
  return citations ? { ...req, citations } : req;
}
