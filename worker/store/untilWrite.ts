// Answers of small reads kept until the store's next write (Store.writes counts every change to
// what reads return): a search asks the same few questions of an unchanged store on every request
// (is there any team record, any citation; the project's last branch; a full-text table's averages),
// each a statement. A reader without the count (a transaction's, a test's recording wrapper)
// reads every time.

const kept = new WeakMap<object, { writes: number; answers: Map<string, unknown> }>();

/** The store's write count, or undefined for a reader that has none. */
export function writeCount(store: object): number | undefined {
  const writes = (store as { writes?: unknown }).writes;
  return typeof writes === 'number' ? writes : undefined;
}

/**
 * read()'s answer, kept under `key` until the store's next write. The answer is shared by every
 * caller until then: callers must not change it.
 */
export function untilWrite<T>(store: object, key: string, read: () => T): T {
  const writes = writeCount(store);
  if (writes === undefined) return read();
  let m = kept.get(store);
  if (!m || m.writes !== writes) kept.set(store, (m = { writes, answers: new Map() }));
  if (m.answers.has(key)) return m.answers.get(key) as T;
  const answer = read();
  m.answers.set(key, answer);
  return answer;
}
