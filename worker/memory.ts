// Gives memory back once a big structure was dropped in an otherwise idle worker. V8 frees a
// WebAssembly memory (the vector scan's arena, tens of MB) only when a full GC runs, and an idle
// worker allocates too little to start one, so dropping the scan alone did not lower RSS.
// --expose-gc is turned on at run time, once, so every way of starting the worker gets it.
import * as v8 from 'node:v8';
import * as vm from 'node:vm';

let gc: (() => void) | null | undefined;

/** Runs a full GC; false when this runtime does not allow it. Tens of ms: only after idle time. */
export function collectGarbage(): boolean {
  if (gc === undefined) {
    try {
      v8.setFlagsFromString('--expose-gc');
      gc = vm.runInNewContext('gc') as () => void;
    } catch {
      gc = null;
    }
  }
  if (!gc) return false;
  gc();
  return true;
}
