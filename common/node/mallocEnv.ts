// glibc malloc settings for the worker and its keyword warm-up process, set in the environment they
// start with (glibc reads them once, before any code runs): the extension's fork
// (extension/core/settings.ts workerEnv), `claude-mem start` (cli/startStop.ts) and the warm-up
// (worker/search/listWarmer.ts). Their memory comes and goes in buffers of 64 KiB and more
// (page-cache chunks, keyword lists): with the mapping threshold fixed at 64 KiB each is mapped on
// its own and unmapped when freed, instead of staying in the main heap (glibc raises its threshold
// after the first such free, up to 32 MB, and keeps freed space below the heap's top); two arenas
// instead of one per thread that ever allocated (V8's GC and compiler threads, the thread pool).
// A worker under Node on a settled 100k store (bench/rss-probe, docs/benchmarks.md): median 120 MB
// instead of 140 after start, 131 instead of 146 after 300 keyword searches. Linux with glibc's
// malloc only: other C libraries and systems ignore the variables, and so does a runtime that
// brings its own malloc (Electron's may; not measured under VS Code's). The values live in
// glibcMalloc.json so that the benches (plain JavaScript) start a build's worker the way its
// launchers do (bench/lib.mjs launchEnv).
import values from './glibcMalloc.json';

export const RETURN_FREED_MEMORY: Readonly<Record<string, string>> = values;
