// What search keeps in memory per store and table (rowFacts.ts, docLengths.ts): one map per store object.
export function byTable<T>() {
  const stores = new WeakMap<object, Map<string, T>>();
  return {
    of: (store: object): Map<string, T> => {
      let m = stores.get(store);
      if (!m) stores.set(store, (m = new Map()));
      return m;
    },
  };
}
