// One term's matches read straight from FTS4's segment b-trees (the %_segdir and %_segments
// tables), with the hits in each column of each matching row: what matchinfo 'y' gives for a
// one-word phrase, without a statement that calls into JavaScript once a match. Ranking a word's
// matches the first time it is searched is keyword search's tail at 100k records (2.4 µs a match
// through `MATCH` and a scoring function; termLists.ts uses this instead for one-word phrases).
//
// The format (sqlite.org/fts3.html, "Data Structures"): each segment is a b-tree of terms; a node
// starts with its height (0: a leaf). A leaf holds terms prefix-compressed (nPrefix, nSuffix,
// suffix), each followed by its doclist's size and the doclist. An interior node holds the first
// child's block id, then separator terms the same way; child i + 1 holds the terms from separator
// i on. A doclist is, per row, the docid (the first whole, then deltas) and a position list:
// varints where 0 ends the row, 1 is followed by a column number, and anything else is a
// position (+2) in the current column. A row with no positions is a delete marker. A row in
// several segments takes the newest one's entry: a lower level is newer, and within a level a
// higher index.
//
// Anything not as described (a prefix index's levels aside) makes the reader give up: the caller
// then ranks through SQL, so a format surprise costs time, never a wrong answer.
import type { Store } from '../store/store';

type Db = Pick<Store, 'all'>;

/** One term's matching rows: ids ascending, hits[i * cols + j] in column j of row ids[i]. */
export interface TermHits {
  ids: Int32Array;
  hits: Uint32Array;
}

interface SegdirRow {
  level: number;
  idx: number;
  /** "<block>" or "<block> <bytes>"; negative while an incremental merge writes the segment. */
  end_block: number | string;
  root: Uint8Array;
}

/** Levels from 1024 up hold prefix indexes (the `prefix=` option), not whole terms. */
const PREFIX_LEVELS = 1024;
/** A b-tree deeper than this is not one FTS4 wrote. */
const MAX_HEIGHT = 32;

/**
 * The rows of fts that hold `term` (one token as the index spells it: a porter stem) with
 * after < docid <= upTo, or undefined when the segments are not as this reader expects.
 */
export function readTermHits(db: Db, fts: string, term: string, cols: number, after = 0, upTo = Infinity): TermHits | undefined {
  const want = new TextEncoder().encode(term);
  // Oldest first: a newer segment's entry for a row replaces an older one's. Sorted here: SQLite
  // sorting rows with their root blobs cost 6x reading them in key order (200 against 35 µs).
  const segs = db.all<SegdirRow>(`SELECT level, idx, end_block, root FROM ${fts}_segdir WHERE level < ${PREFIX_LEVELS}`).sort((a, b) => b.level - a.level || a.idx - b.idx);
  const parts: Decoded[] = [];
  for (const s of segs) {
    // A negative end block: left to SQL. (A segment an incremental merge, ftsMerge.ts's 'merge=', is
    // still writing has its size negated, "<block> -<bytes>", and reads like any other: the terms it
    // holds so far are gone from its input segments; test/unit/search-postings.test.ts.)
    if (!(s.root instanceof Uint8Array) || String(s.end_block).startsWith('-')) return undefined;
    const doclist = findDoclist(db, fts, s.root, want);
    if (doclist === undefined) return undefined;
    if (doclist === null) continue;
    const d = decodeDoclist(doclist, cols, after, upTo);
    if (!d) return undefined;
    if (d.n > 0) parts.push(d);
  }
  return mergeNewestWins(parts, cols);
}

/** The term's doclist in one segment, null when the segment does not hold it, undefined when the node is not as expected. */
function findDoclist(db: Db, fts: string, root: Uint8Array, want: Uint8Array): Uint8Array | null | undefined {
  let node = root;
  for (let depth = 0; depth < MAX_HEIGHT; depth++) {
    const r = new Reader(node);
    const height = r.varint();
    if (height === 0) return leafDoclist(r, want);
    let child = r.varint();
    const first = child;
    const term = new Term();
    for (let i = 0; !r.done(); i++) {
      const prefix = i === 0 ? 0 : r.varint();
      const suffix = r.varint();
      if (prefix > term.length || r.left() < suffix) return undefined;
      term.set(prefix, node, r.at, suffix);
      r.skip(suffix);
      // Separator i is where child i + 1 begins: past the term sought, stay in child i.
      if (term.compare(want) > 0) break;
      child = first + i + 1;
    }
    const block = db.all<{ block: Uint8Array }>(`SELECT block FROM ${fts}_segments WHERE blockid = ?`, [child])[0]?.block;
    if (!(block instanceof Uint8Array)) return undefined;
    node = block;
  }
  return undefined;
}

/** r is past the leaf's first byte: its height 0, which is also the first term's prefix length. */
function leafDoclist(r: Reader, want: Uint8Array): Uint8Array | null | undefined {
  const term = new Term();
  for (let i = 0; !r.done(); i++) {
    const prefix = i === 0 ? 0 : r.varint();
    const suffix = r.varint();
    if (prefix > term.length || r.left() < suffix) return undefined;
    term.set(prefix, r.node, r.at, suffix);
    r.skip(suffix);
    const size = r.varint();
    if (r.left() < size) return undefined;
    const c = term.compare(want);
    if (c === 0) return r.bytes(size);
    if (c > 0) return null; // terms are sorted: it is not here
    r.skip(size);
  }
  return null;
}

interface Decoded {
  n: number;
  ids: Int32Array;
  /** cols hits a row. */
  hits: Uint32Array;
  /** 1 for a delete marker (a row with no positions). */
  deleted: Uint8Array;
}

/** Decodes a doclist into typed arrays, grown as needed (a row takes 2 bytes at least, 8 or so usually). */
function decodeDoclist(b: Uint8Array, cols: number, after: number, upTo: number): Decoded | undefined {
  const out: Decoded = { n: 0, ids: new Int32Array(0), hits: new Uint32Array(0), deleted: new Uint8Array(0) };
  grow(out, cols, Math.max(64, b.length >> 3));
  const len = b.length;
  let at = 0;
  let docid = 0;
  while (at < len) {
    // The docid (delta), inline: this loop runs once a match.
    let v = 0;
    let mul = 1;
    for (;;) {
      if (at >= len) return undefined;
      const byte = b[at++];
      v += (byte & 0x7f) * mul;
      if (byte < 0x80) break;
      mul *= 128;
    }
    docid += v;
    const keep = docid > after && docid <= upTo;
    if (keep && out.n === out.ids.length) grow(out, cols, out.n * 2);
    const base = out.n * cols;
    let col = 0;
    let any = false;
    for (;;) {
      if (at >= len) return undefined;
      let x = 0;
      let m = 1;
      for (;;) {
        if (at >= len) return undefined;
        const byte = b[at++];
        x += (byte & 0x7f) * m;
        if (byte < 0x80) break;
        m *= 128;
      }
      if (x === 0) break;
      if (x === 1) {
        col = 0;
        m = 1;
        for (;;) {
          if (at >= len) return undefined;
          const byte = b[at++];
          col += (byte & 0x7f) * m;
          if (byte < 0x80) break;
          m *= 128;
        }
        if (col >= cols) return undefined;
        continue;
      }
      any = true;
      if (keep) out.hits[base + col]++;
    }
    if (!keep) continue;
    out.ids[out.n] = docid;
    out.deleted[out.n] = any ? 0 : 1;
    out.n++;
  }
  return out;
}

function grow(d: Decoded, cols: number, cap: number): void {
  const ids = new Int32Array(cap);
  const hits = new Uint32Array(cap * cols);
  const deleted = new Uint8Array(cap);
  ids.set(d.ids.subarray(0, d.n));
  hits.set(d.hits.subarray(0, d.n * cols));
  deleted.set(d.deleted.subarray(0, d.n));
  Object.assign(d, { ids, hits, deleted });
}

/** Segments' rows merged by docid, a newer segment's entry (or delete marker) replacing an older one's. */
function mergeNewestWins(parts: Decoded[], cols: number): TermHits {
  // The usual case, rows only added: each segment's rows all come after the older segments' ones.
  const appendOnly = parts.every((p, s) => p.n === 0 || parts.slice(0, s).every((q) => q.n === 0 || q.ids[q.n - 1] < p.ids[0]));
  let order: { seg: number; at: number }[] | undefined;
  if (!appendOnly) {
    const byId = new Map<number, { seg: number; at: number }>();
    parts.forEach((p, seg) => {
      for (let at = 0; at < p.n; at++) byId.set(p.ids[at], { seg, at });
    });
    order = [...byId.keys()].sort((a, b) => a - b).map((id) => byId.get(id) as { seg: number; at: number });
  } else {
    order = undefined;
  }
  const segs = appendOnly ? [...parts].sort((a, b) => (a.n ? a.ids[0] : 0) - (b.n ? b.ids[0] : 0)) : parts;
  let n = 0;
  if (order) for (const e of order) n += 1 - segs[e.seg].deleted[e.at];
  else for (const p of segs) for (let i = 0; i < p.n; i++) n += 1 - p.deleted[i];
  const out: TermHits = { ids: new Int32Array(n), hits: new Uint32Array(n * cols) };
  let k = 0;
  const take = (p: Decoded, at: number) => {
    if (p.deleted[at]) return;
    out.ids[k] = p.ids[at];
    // Copied a number at a time: a subarray per row cost more than the row's few numbers.
    for (let c = 0, from = at * cols, to = k * cols; c < cols; c++) out.hits[to + c] = p.hits[from + c];
    k++;
  };
  if (order) for (const e of order) take(segs[e.seg], e.at);
  else for (const p of segs) for (let i = 0; i < p.n; i++) take(p, i);
  return out;
}

/** A term rebuilt from prefix-compressed pieces, in place: a node's scan allocates nothing per term. */
class Term {
  private buf = new Uint8Array(64);
  length = 0;

  /** Keeps the first `prefix` bytes and appends src[at, at + n). */
  set(prefix: number, src: Uint8Array, at: number, n: number): void {
    const len = prefix + n;
    if (len > this.buf.length) {
      const b = new Uint8Array(Math.max(len, this.buf.length * 2));
      b.set(this.buf.subarray(0, prefix));
      this.buf = b;
    }
    for (let i = 0; i < n; i++) this.buf[prefix + i] = src[at + i];
    this.length = len;
  }

  /** Byte order, as FTS4 sorts terms: < 0 when this term comes before `other`. */
  compare(other: Uint8Array): number {
    const n = Math.min(this.length, other.length);
    for (let i = 0; i < n; i++) if (this.buf[i] !== other[i]) return this.buf[i] - other[i];
    return this.length - other.length;
  }
}

/** FTS3/4 varints (7 bits a byte, least significant first) over a node or doclist. */
class Reader {
  at = 0;
  bad = false;

  constructor(readonly node: Uint8Array) {}

  done(): boolean {
    return this.at >= this.node.length || this.bad;
  }

  left(): number {
    return this.node.length - this.at;
  }

  varint(): number {
    let v = 0;
    let mul = 1;
    for (let n = 0; n < 10; n++) {
      if (this.at >= this.node.length) break;
      const byte = this.node[this.at++];
      v += (byte & 0x7f) * mul;
      if ((byte & 0x80) === 0) return v;
      mul *= 128;
    }
    this.bad = true;
    this.at = this.node.length;
    return 0;
  }

  bytes(n: number): Uint8Array {
    const s = this.node.subarray(this.at, this.at + n);
    this.at += n;
    return s;
  }

  skip(n: number): void {
    this.at += n;
  }
}
