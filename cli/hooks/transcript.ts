// The last user prompt and assistant reply of a Claude Code transcript (JSONL), read from the
// end of the file in growing windows so a long session costs no more than its last turns.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

export interface LastMessages {
  user?: string;
  assistant?: string;
}

type Entry = { type?: unknown; message?: { role?: unknown; content?: unknown }; isMeta?: unknown };

/** Text of a message's content; undefined when it holds no plain text (tool results, images). */
function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content.trim() || undefined;
  if (!Array.isArray(content)) return undefined;
  const parts: string[] = [];
  for (const b of content) {
    if (b && typeof b === 'object' && (b as { type?: unknown }).type === 'text' && typeof (b as { text?: unknown }).text === 'string') {
      parts.push((b as { text: string }).text);
    }
  }
  const t = parts.join('\n').trim();
  return t || undefined;
}

function scan(lines: string[], found: LastMessages): void {
  for (let i = lines.length - 1; i >= 0 && (found.user === undefined || found.assistant === undefined); i--) {
    const line = lines[i].trim();
    if (!line.startsWith('{')) continue;
    let e: Entry;
    try {
      e = JSON.parse(line) as Entry;
    } catch {
      continue;
    }
    if (!e || typeof e !== 'object' || e.isMeta === true) continue;
    const role = e.message?.role ?? e.type;
    if (role === 'assistant' && found.assistant === undefined) found.assistant = textOf(e.message?.content);
    else if (role === 'user' && found.user === undefined) {
      const t = textOf(e.message?.content);
      // Commands and hook echoes are wrapped in tags; a real prompt is not.
      if (t !== undefined && !/^<(command-|local-command|system-reminder)/.test(t)) found.user = t;
    }
  }
}

/** Reads at most maxBytes from the end of the transcript. Never throws. */
export function lastMessages(file: string, maxBytes = 4 * 1024 * 1024): LastMessages {
  const found: LastMessages = {};
  let fd: number | undefined;
  try {
    // O_NONBLOCK: opening a FIFO to read would wait for a writer; anything but a regular file is
    // left unread (a FIFO, a device such as /dev/zero, a folder).
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    const st = fstatSync(fd);
    if (!st.isFile()) return found;
    const size = st.size;
    let window = Math.min(size, 64 * 1024);
    for (;;) {
      const start = size - window;
      const buf = Buffer.allocUnsafe(window);
      const n = readSync(fd, buf, 0, window, start);
      let text = buf.subarray(0, n).toString('utf8');
      // The first line of a window that does not start the file is partial.
      if (start > 0) text = text.slice(text.indexOf('\n') + 1);
      const f: LastMessages = {};
      scan(text.split('\n'), f);
      found.user = f.user;
      found.assistant = f.assistant;
      if ((f.user !== undefined && f.assistant !== undefined) || start === 0 || window >= maxBytes) break;
      window = Math.min(size, window * 4, maxBytes);
    }
  } catch {
    /* missing or unreadable transcript: summarise with what the hook gave us */
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  return found;
}
