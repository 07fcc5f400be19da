// Line diff summary for a save: lines added and removed and a bounded excerpt of the changed hunks,
// never the whole file. Myers' O((N+M)·D) diff on the region between the common prefix and suffix,
// with a cap on D; past the cap, counts come from a multiset comparison and the excerpt from the
// region's edges. No vscode import.

export interface DiffSummary {
  added: number;
  removed: number;
  /** Changed hunks as `@@ -a +b @@` headers and `-`/`+` lines, cut to the excerpt budget. */
  excerpt: string;
  hunks: number;
  /** True when the diff was too large to compute exactly (counts are then from a multiset comparison). */
  approximate: boolean;
}

export interface DiffOptions {
  /** Excerpt budget in characters. */
  maxChars?: number;
  /** Longest single excerpt line kept. */
  maxLineChars?: number;
  /** Largest edit distance computed exactly. */
  maxEdits?: number;
}

/** One edit; `ax`/`by` are the positions in the old and new file where it applies. */
type Op = { kind: '-' | '+'; line: number; text: string; ax: number; by: number };

export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

export function diffSummary(before: string, after: string, opts: DiffOptions = {}): DiffSummary {
  const maxChars = opts.maxChars ?? 1500;
  const maxLine = opts.maxLineChars ?? 160;
  const maxEdits = opts.maxEdits ?? 2000;
  const a = splitLines(before);
  const b = splitLines(after);
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const am = a.slice(pre, a.length - suf);
  const bm = b.slice(pre, b.length - suf);
  if (am.length === 0 && bm.length === 0) return { added: 0, removed: 0, excerpt: '', hunks: 0, approximate: false };

  const ops = myers(am, bm, maxEdits);
  if (ops) {
    const shifted = ops.map((o) => ({ ...o, line: o.line + pre, ax: o.ax + pre, by: o.by + pre }));
    const hunks = group(shifted);
    return {
      added: ops.filter((o) => o.kind === '+').length,
      removed: ops.filter((o) => o.kind === '-').length,
      excerpt: render(hunks, maxChars, maxLine),
      hunks: hunks.length,
      approximate: false,
    };
  }
  // Too different to diff exactly within budget: count by multiset, show the region's edges.
  const counts = new Map<string, number>();
  for (const l of am) counts.set(l, (counts.get(l) ?? 0) + 1);
  let common = 0;
  for (const l of bm) {
    const n = counts.get(l) ?? 0;
    if (n > 0) {
      counts.set(l, n - 1);
      common++;
    }
  }
  const edge: Op[] = [
    ...am.slice(0, 20).map((text, i) => ({ kind: '-' as const, line: pre + i, text, ax: pre, by: pre })),
    ...bm.slice(0, 20).map((text, i) => ({ kind: '+' as const, line: pre + i, text, ax: pre, by: pre })),
  ];
  return { added: bm.length - common, removed: am.length - common, excerpt: render([edge], maxChars, maxLine), hunks: 1, approximate: true };
}

/** Myers' shortest edit script; undefined when the distance exceeds maxD. Lines are numbered in their own file. */
function myers(a: string[], b: string[], maxD: number): Op[] | undefined {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, maxD);
  const offset = max + 1;
  let v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x: number;
      if (k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1])) x = v[offset + k + 1];
      else x = v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, a, b, d, offset);
    }
  }
  return undefined;
}

function backtrack(trace: Int32Array[], a: string[], b: string[], dEnd: number, offset: number): Op[] {
  const ops: Op[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = dEnd; d > 0; d--) {
    const v = trace[d];
    const k = x - y;
    const prevK = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]) ? k + 1 : k - 1;
    const prevX = v[offset + prevK];
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      x--;
      y--;
    }
    if (x === prevX) ops.push({ kind: '+', line: prevY, text: b[prevY], ax: prevX, by: prevY });
    else ops.push({ kind: '-', line: prevX, text: a[prevX], ax: prevX, by: prevY });
    x = prevX;
    y = prevY;
  }
  return ops.reverse();
}

/** Edits with no unchanged line between them form one hunk. */
function group(ops: Op[]): Op[][] {
  const hunks: Op[][] = [];
  let cur: Op[] = [];
  let endA = -1;
  let endB = -1;
  for (const o of ops) {
    if (cur.length && !(o.ax === endA && o.by === endB)) {
      hunks.push(cur);
      cur = [];
    }
    cur.push(o);
    endA = o.kind === '-' ? o.ax + 1 : o.ax;
    endB = o.kind === '+' ? o.by + 1 : o.by;
  }
  if (cur.length) hunks.push(cur);
  return hunks;
}

function render(hunks: Op[][], maxChars: number, maxLine: number): string {
  let out = '';
  let shown = 0;
  for (const h of hunks) {
    const header = `@@ -${h[0].ax + 1} +${h[0].by + 1} @@\n`;
    let block = header;
    for (const o of h) {
      const t = o.text.length > maxLine ? `${o.text.slice(0, maxLine - 1)}…` : o.text;
      block += `${o.kind}${t}\n`;
    }
    if (out.length + block.length > maxChars) {
      const room = maxChars - out.length;
      if (room > header.length + 20) out += `${block.slice(0, room - 2)}…\n`;
      out += `… ${hunks.length - shown - 1 > 0 ? `${hunks.length - shown} more hunk(s)` : 'cut'}\n`;
      break;
    }
    out += block;
    shown++;
  }
  return out.replace(/\n$/, '');
}
