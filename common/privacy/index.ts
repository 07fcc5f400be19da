// Privacy for every process: private tags, secret redaction, secret-looking paths, cutting long text.
// No Node-only or vscode import: the worker, the hook CLI and the extension all use this one copy.
export { cutStripped, cutText } from './cut';
export { cleanIncoming, cleanIncomingText, type Incoming } from './incoming';
export { isSecretName, MAX_REDACT_INPUT, redactDeep, redactForSharing, redactSecrets, redactSharingPatterns, REDACTED, REDACTED_SHARED } from './redact';
export { isSecretPath, SECRET_BASENAMES, SECRET_DIRS } from './secretPaths';
export { MAX_STRIP_INPUT, MAX_TAGS, PRIVATE_TAGS, stripDeep, stripPrivate, type StripResult } from './tags';
export { dropSecretHunks, dropSecretLines, scrubToolUse, secretFileInCommand, secretFileMarker, secretPathIn, type ScrubbedToolUse } from './toolUse';

import { cutStripped } from './cut';
import { cleanIncomingText } from './incoming';

/** One free text made safe to keep: private blocks stripped, then secrets redacted (cleanIncomingText). */
export function cleanText(text: string): { text: string; removed: number } {
  const r = cleanIncomingText(text);
  return { text: r.value, removed: r.removed };
}

/** Strip, redact, then cut: the order that never keeps half of a block or of a secret. */
export function cleanAndCut(text: string, max: number): string {
  return cutStripped(cleanText(text).text, max);
}
