// Private tags: the one implementation lives in common/privacy (shared with the hook CLI and the
// extension); this file keeps the worker's import path.
export { MAX_STRIP_INPUT, MAX_TAGS, PRIVATE_TAGS, stripDeep, stripPrivate, type StripResult } from '../../common/privacy/tags';
