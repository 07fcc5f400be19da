// The wire protocol now lives in common/contract (one contract for every process); this module
// re-exports it so the worker's imports stay short.
export * from '../common/contract';
