// Glob matching lives in common/glob.ts (one implementation for every process).
export { globToRegExp, matchesAnyGlob } from '../../common/glob';
