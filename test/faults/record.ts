// Each fault case records its result and figure; test/run.mjs turns them into test-artifacts/reliability.md.
import * as fs from 'node:fs';
import * as path from 'node:path';

export const RESULTS_DIR = path.resolve(__dirname, '..', '..', 'test-artifacts', 'reliability');

export interface CaseResult {
  area: string;
  name: string;
  result: 'pass' | 'fail';
  figure: string;
}

export function record(file: string, r: CaseResult): void {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const out = path.join(RESULTS_DIR, `${path.basename(file).replace(/\.test\.ts$/, '')}.jsonl`);
  fs.appendFileSync(out, JSON.stringify({ ...r, at: new Date().toISOString() }) + '\n');
  console.log(`[fault] ${r.area} / ${r.name}: ${r.result} — ${r.figure}`);
}

/** Runs fn, records pass or fail with the figure fn returns (or the error). */
export async function faultCase(file: string, area: string, name: string, fn: () => Promise<string>): Promise<void> {
  try {
    const figure = await fn();
    record(file, { area, name, result: 'pass', figure });
  } catch (e) {
    record(file, { area, name, result: 'fail', figure: (e as Error).message.split('\n')[0] });
    throw e;
  }
}
