// Replaced at build time by esbuild's `define`; falls back for tsx-run tests.
declare const __VERSION__: string | undefined;
export const VERSION: string = typeof __VERSION__ === 'string' ? __VERSION__ : '0.0.0-dev';
