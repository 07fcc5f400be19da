// Gives memory back once a big structure was dropped in an otherwise idle worker. V8 frees a
// WebAssembly memory (the vector scan's arena, tens of MB) only when a full GC runs, and an idle
// worker allocates too little to start one, so dropping the scan alone did not lower RSS.
// --expose-gc is turned on at run time, once, so every way of starting the worker gets it.
import * as v8 from 'node:v8';
import * as vm from 'node:vm';

let gc: (() => void) | null | undefined;

/**
 * Asks V8 to favour memory over speed: the young generation stays at its first size (two 1 MB
 * semi-spaces) instead of doubling up to 16 MB each under load (300 keyword searches at 100k
 * records grew it to 34 MB, mostly garbage until the next scavenge), and the old generation grows
 * by small steps (--optimize-for-size), so the objects promoted sooner are collected sooner (about
 * 17 MB of them were garbage after the same searches). bench/scale: RSS after those searches 136-141
 * MB instead of 220-232, search and context no slower, an import 1.05-1.13x as long. Set at run time
 * for the same reason as --expose-gc; the growth factor is read each time the young generation
 * would grow (--max-semi-space-size only at start).
 */
export function keepHeapSmall(): void {
  v8.setFlagsFromString('--semi-space-growth-factor=1');
  v8.setFlagsFromString('--optimize-for-size');
}

/**
 * Runs a full GC now and twice more a second apart: the first finalizes the dropped objects, a
 * WebAssembly memory's pages go back only at a later one, and V8 shrinks its heap only at the one
 * after (measured on the scan's arena: one GC left all of it in RSS). False when this runtime does
 * not allow it. A few ms each on an idle heap: only after idle time.
 */
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
  setTimeout(() => {
    gc?.();
    setTimeout(() => gc?.(), 1000).unref();
  }, 1000).unref();
  return true;
}
