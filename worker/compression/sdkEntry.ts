// Entry of dist/anthropic-sdk.js: the Anthropic SDK as its own bundle, loaded by anthropic.ts only
// when the anthropic provider makes its first call (add ['worker/compression/sdkEntry.ts', 'anthropic-sdk']
// to the optional node entries of esbuild.config.mjs).
export * from '@anthropic-ai/sdk';
export { default } from '@anthropic-ai/sdk';
