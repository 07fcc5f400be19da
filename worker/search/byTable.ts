// What search keeps in memory per store and table (rowFacts.ts, docLengths.ts): one map per store
// object, and the hand-over from the keyword warm-up process (listWarmer.ts), where a table this
// process read meanwhile stays.
export function byTable<T>() {
  const stores = new WeakMap<object, Map<string, T>>();
  const of = (store: object): Map<string, T> => {
    let m = stores.get(store);
    if (!m) stores.set(store, (m = new Map()));
    return m;
  };
  return {
    of,
    /** Every table's entry (what the warm-up process sends). */
    exportAll: (store: object): [string, T][] => [...of(store)],
    /** Takes over entries read elsewhere; a table read here meanwhile stays. */
    importAll: (store: object, entries: [string, T][]): void => {
      const m = of(store);
      for (const [table, v] of entries) if (!m.has(table)) m.set(table, v);
    },
  };
}
