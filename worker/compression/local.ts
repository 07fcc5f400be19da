// The local heuristic compressor: turns one tool use into a structured observation with no model.
// Always available; the default when no provider is configured. Tool responses are read through
// toolOutput.ts (text, failure, exit code, test results, error lines), never shown as JSON; paths
// are made project-relative. A note's facts use fixed prefixes the local summary reads back
// (`tests: 2 passed`, `error: …`, `failed: …`, `passing: …`, `failing: …`).
import * as path from 'node:path';
import type { ObservationDraft } from '../store/repos/observations';
import { canonicalUse, patchFiles, toolFiles, toolKind } from '../../common/toolKinds';
import { errorLines, firstLine, isBuildCommand, isLookCommand, isTestCommand, printedLines, readOutput, relText, testPhrase, testResults, type Hunk, type ToolOutput } from './toolOutput';

export { summarizeLocally } from './localSummary';

export interface ToolUse {
  toolName: string;
  /** Tool input as stored: JSON text (already stripped and capped). */
  toolInput: string;
  toolResponse: string;
  cwd?: string;
}

type Input = Record<string, unknown>;

function parseInput(text: string): Input {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Input) : { value: v };
  } catch {
    return { value: text };
  }
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

function rel(file: string, cwd?: string): string {
  let f = file.replace(/^file:\/\//, '');
  if (cwd && path.isAbsolute(f)) {
    const r = path.relative(cwd, f);
    if (r && !r.startsWith('..') && !path.isAbsolute(r)) return r;
  }
  f = relText(f, cwd);
  return f.replace(/^\.\//, '');
}

/** Lines of a text as an editor counts them (a final newline ends the last line, it starts none). */
function lines(text: string | undefined): number {
  if (!text) return 0;
  return text.replace(/\n$/, '').split('\n').length;
}

function clip(line: string, max: number): string {
  const t = line.trim().replace(/\s+/g, ' ');
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The changed lines of a unified diff excerpt, added ones first (hunk headers are not content). */
function diffLines(excerpt: string): string[] {
  const body = excerpt.split('\n').filter((l) => !/^(@@|\+\+\+ |--- )/.test(l));
  const pick = (sign: string) => body.filter((l) => l.startsWith(sign) && l.slice(1).trim() !== '').map((l) => l.slice(1));
  const added = pick('+');
  return added.length > 0 ? added : pick('-');
}

/** The agent's stated reason calls the edit a fix. Code that handles an error or names a bug is not a fix by itself. */
const FIX_WORDS = /\b(?:fix(?:es|ed|ing)?|bug|broken|regression|crash(?:es|ed)?)\b/i;

function pick(input: Input, ...keys: string[]): string | undefined {
  for (const k of keys) {
    const v = str(input[k]);
    if (v) return v;
  }
  return undefined;
}

/** Names a code line declares (functions, classes, types, constants), for a read's or a write's gist. */
function declared(text: string, max = 6): string[] {
  const out: string[] = [];
  const re =
    /^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function\*?\s+([A-Za-z_$][\w$]*)|class\s+([A-Za-z_$][\w$]*)|(?:interface|type|enum)\s+([A-Za-z_$][\w$]*)|(?:const|let)\s+([A-Za-z_$][\w$]*)\s*=\s*(?:async\s*)?(?:\(|function)|def\s+([A-Za-z_]\w*)|func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)|(?:pub\s+)?fn\s+([A-Za-z_]\w*)|(?:pub\s+)?struct\s+([A-Za-z_]\w*))/gm;
  for (let m = re.exec(text); m && out.length < max; m = re.exec(text)) {
    const name = m.slice(1).find(Boolean);
    if (name && !out.includes(name)) out.push(name);
  }
  return out;
}

/** The lines an edit added that were not there before (its gist), meaningful ones, at most max. */
function gistOf(hunks: Hunk[], max = 2): string[] {
  const out: string[] = [];
  for (const h of hunks) {
    const before = new Set(h.removed.map((l) => l.trim()));
    for (const l of h.added) {
      const t = l.trim();
      if (t.length < 3 || before.has(t) || /^[{}()[\];,]+$/.test(t) || /^(\/\/|#|\*|\/\*)\s*$/.test(t)) continue;
      if (!out.includes(t)) out.push(clip(t, 120));
      if (out.length >= max) return out;
    }
  }
  if (out.length === 0) for (const h of hunks) for (const l of h.removed) if (l.trim().length >= 3 && out.length < max) out.push(`removed: ${clip(l, 110)}`);
  return out;
}

function hunkFromStrings(oldS: string, newS: string): Hunk {
  return { removed: oldS ? oldS.split('\n') : [], added: newS ? newS.split('\n') : [] };
}

/** An apply_patch text split per file: its hunks (an @@ each; a file section with none is one). */
function patchHunks(patch: string, cwd?: string): { file: string; hunks: Hunk[] }[] {
  const out: { file: string; hunks: Hunk[] }[] = [];
  let cur: { file: string; hunks: Hunk[] } | undefined;
  let hunk: Hunk | undefined;
  for (const l of patch.split('\n')) {
    const f = /^\*\*\* (?:Update|Add|Delete) File: (.+)$/.exec(l) ?? /^\+\+\+ (?:b\/)?(.+)$/.exec(l);
    if (f) {
      const file = rel(f[1].trim(), cwd);
      if (file === '/dev/null') continue;
      cur = out.find((x) => x.file === file);
      if (!cur) out.push((cur = { file, hunks: [] }));
      hunk = undefined;
      continue;
    }
    if (!cur || /^(\*\*\* |--- |diff |index )/.test(l)) continue;
    if (l.startsWith('@@')) {
      cur.hunks.push((hunk = { added: [], removed: [] }));
      continue;
    }
    if (l.startsWith('+') || l.startsWith('-')) {
      if (!hunk) cur.hunks.push((hunk = { added: [], removed: [] }));
      (l.startsWith('+') ? hunk.added : hunk.removed).push(l.slice(1));
    }
  }
  for (const x of out) if (x.hunks.length === 0) x.hunks.push({ added: [], removed: [] });
  return out;
}

/** "src/a.ts, src/b.ts and 2 more": files for a title. */
function fileList(files: string[], max = 3): string {
  if (files.length <= max) return files.join(', ');
  return `${files.slice(0, max).join(', ')} and ${files.length - max} more`;
}

/** Names the switch below knows; any other platform's tool is read through the tool table first. */
const OWN_NAMES = new Set(['Read', 'FileFocus', 'Edit', 'MultiEdit', 'NotebookEdit', 'Write', 'FileCreate', 'FileSave', 'FileDelete', 'FileRename', 'Bash', 'TerminalCommand', 'TaskEnd', 'Grep', 'Glob', 'WebFetch', 'WebSearch', 'DebugSessionEnd']);

export function observeToolUse(use: ToolUse): ObservationDraft {
  const raw = parseInput(use.toolInput);
  const out = readOutput(use.toolResponse);
  const why = pick(raw, 'explanation', 'description', 'reason');
  const kind = toolKind(use.toolName);
  // A tool that failed did nothing but fail: it is noted as a failure, whatever it would have done.
  if (out.failed && kind !== 'run' && !['Bash', 'TerminalCommand', 'TaskEnd'].includes(use.toolName)) return failure(use, raw, out);
  // Edits of several places or files: a patch, multi_replace_string_in_file.
  const multi = multiEdit(use, raw, out, why);
  if (multi) return multi;
  if (OWN_NAMES.has(use.toolName)) return observe(use, use.toolName, raw, out, why);
  const canon = canonicalUse(use.toolName, raw);
  const draft = observe(use, canon.name, canon.input, out, why);
  // A tool that names several files (read_many_files, editFiles): all of them.
  const files = toolFiles(use.toolName, raw).map((f) => rel(f, use.cwd));
  if (files.length > 1) {
    if (kind === 'edit' || kind === 'create' || kind === 'delete') draft.filesModified = files;
    else if (kind === 'read') draft.filesRead = files;
  }
  return draft;
}

function failure(use: ToolUse, raw: Input, out: ToolOutput): ObservationDraft {
  const kind = toolKind(use.toolName);
  const files = toolFiles(use.toolName, raw).map((f) => rel(f, use.cwd));
  const target = files.length ? fileList(files) : (pick(raw, 'pattern', 'query', 'url') ?? '');
  const verb: Record<string, string> = { read: 'Could not read', edit: 'Edit failed on', create: 'Could not write', delete: 'Could not delete', search: 'Search failed for', fetch: 'Could not fetch' };
  const err = clip(relText(out.error ?? firstLine(out.text) ?? 'failed', use.cwd), 200);
  const title = verb[kind] ? `${verb[kind]} ${target || 'it'}` : `${use.toolName} failed${target ? ` on ${target}` : ''}`;
  return {
    type: 'discovery',
    title: `${title}: ${clip(err, 100)}`,
    facts: [`failed: ${err}`],
    narrative: `${title}: ${err}.`,
    concepts: ['gotcha'],
    filesRead: [],
    filesModified: [],
  };
}

function multiEdit(use: ToolUse, raw: Input, out: ToolOutput, why: string | undefined): ObservationDraft | undefined {
  let perFile: { file: string; hunks: Hunk[] }[] | undefined;
  const patch = str(raw.input) ?? str(raw.patch) ?? (use.toolName === 'apply_patch' ? (str(raw.command) ?? str(raw.value)) : undefined);
  if (patch && (use.toolName === 'apply_patch' || /^\*\*\* Begin Patch/m.test(patch)) && patchFiles(patch).length > 0) perFile = patchHunks(patch, use.cwd);
  else if (Array.isArray(raw.replacements)) {
    perFile = [];
    for (const r of raw.replacements as unknown[]) {
      if (!r || typeof r !== 'object') continue;
      const o = r as Input;
      const f = pick(o, 'filePath', 'file_path', 'path');
      if (!f) continue;
      const file = rel(f, use.cwd);
      let cur = perFile.find((x) => x.file === file);
      if (!cur) perFile.push((cur = { file, hunks: [] }));
      cur.hunks.push(hunkFromStrings(pick(o, 'oldString', 'old_string') ?? '', pick(o, 'newString', 'new_string') ?? ''));
    }
  } else if (use.toolName === 'MultiEdit' && Array.isArray(raw.edits)) {
    const f = pick(raw, 'file_path', 'filePath', 'path');
    if (!f) return undefined;
    perFile = [{ file: rel(f, use.cwd), hunks: (raw.edits as Input[]).filter((e) => e && typeof e === 'object').map((e) => hunkFromStrings(str(e.old_string) ?? '', str(e.new_string) ?? '')) }];
  }
  if (!perFile || perFile.length === 0) return undefined;
  const all = perFile.flatMap((x) => x.hunks);
  const files = perFile.map((x) => x.file);
  const added = all.reduce((n, h) => n + h.added.length, 0);
  const removed = all.reduce((n, h) => n + h.removed.length, 0);
  const gist = gistOf(all);
  const shape = `${plural(all.length, 'hunk')} in ${plural(files.length, 'file')}`;
  return {
    type: FIX_WORDS.test(why ?? '') ? 'bugfix' : 'change',
    title: `Edited ${fileList(files)}`,
    subtitle: `${shape} (+${added} −${removed})`,
    facts: [...perFile.slice(0, 5).map((x) => `${x.file}: ${plural(x.hunks.length, 'hunk')}`), ...gist.map((g) => `changed: ${g}`)],
    narrative: `${why ? `${clip(why, 200)}: ` : ''}changed ${fileList(files, 5)} (${shape})${gist.length ? `; now ${gist[0]}` : ''}.`,
    concepts: ['what-changed'],
    filesModified: files,
  };
}

function observe(use: ToolUse, toolName: string, input: Input, out: ToolOutput, why: string | undefined): ObservationDraft {
  const file = pick(input, 'file_path', 'filePath', 'path', 'notebook_path', 'file', 'uri');
  const shown = file ? rel(file, use.cwd) : undefined;
  const name = toolName;
  const because = why ? `${clip(why, 200)}. ` : '';

  switch (name) {
    case 'Read':
    case 'FileFocus': {
      if (out.media) {
        const { kind, type, bytes } = out.media;
        const about = [type, bytes !== undefined ? `${Math.max(1, Math.round(bytes / 1024))} KB` : undefined].filter(Boolean).join(', ');
        return {
          type: 'discovery',
          title: `Read ${shown ?? 'a file'}`,
          facts: [`${shown ?? 'file'}: ${kind}${about ? ` (${about})` : ''}`],
          narrative: `${because}Looked at ${shown ?? 'a file'} (${kind}).`,
          concepts: ['how-it-works'],
          filesRead: file ? [shown as string] : [],
        };
      }
      const content = out.text.replace(/^ *\d+[\t→]/gm, '');
      const n = out.lines ?? lines(content);
      const offset = num(input.offset) ?? num(input.startLine) ?? num(input.view_range);
      const names = declared(content);
      const head = names.length ? `, which defines ${names.map((x) => `${x}`).join(', ')}` : content.trim() ? `, which starts with: ${clip(relText(firstLine(content, 120), use.cwd), 120)}` : '';
      return {
        type: 'discovery',
        title: `Read ${shown ?? 'a file'}`,
        facts: [`${shown ?? 'file'}: ${n > 0 ? plural(n, 'line') : 'empty'}${offset && offset > 1 ? ` from line ${offset}` : ''}`, ...(names.length ? [`defines: ${names.join(', ')}`] : [])],
        narrative: `${because}Looked at ${shown ?? 'a file'}${n > 0 ? ` (${plural(n, 'line')})` : ''}${head}.`,
        concepts: ['how-it-works'],
        filesRead: file ? [shown as string] : [],
      };
    }
    case 'Edit':
    case 'MultiEdit':
    case 'NotebookEdit': {
      const oldS = str(input.old_string) ?? '';
      const newS = str(input.new_string) ?? str(input.new_source) ?? '';
      const edits = Array.isArray(input.edits) ? input.edits.length : 1;
      const hunks = out.hunks && out.hunks.length > 0 ? out.hunks : oldS || newS ? [hunkFromStrings(oldS, newS)] : [];
      const added = hunks.reduce((n, h) => n + h.added.length, 0);
      const removed = hunks.reduce((n, h) => n + h.removed.length, 0);
      const gist = gistOf(hunks);
      const size = hunks.length === 0 ? 'edited' : oldS && !out.hunks?.length ? `replaced ${plural(lines(oldS), 'line')} with ${lines(newS)}` : `+${added} −${removed}`;
      return {
        type: FIX_WORDS.test(why ?? '') ? 'bugfix' : 'change',
        title: `Edited ${shown ?? 'a file'}`,
        subtitle: edits > 1 ? `${edits} edits` : hunks.length === 0 ? null : oldS && !out.hunks?.length ? `${plural(lines(oldS), 'line')} replaced by ${lines(newS)}` : `+${added} −${removed}`,
        facts: [`${shown ?? 'file'}: ${edits > 1 ? `${edits} edits` : size}`, ...(gist.length ? gist.map((g) => `changed: ${g}`) : newS ? [`new text starts: ${clip(firstLine(newS, 120), 120)}`] : [])],
        narrative: `${because}Changed ${shown ?? 'a file'}${gist.length ? `: now ${gist.map((g) => g.replace(/[;,]$/, '')).join('; ')}` : ''}.`,
        concepts: ['what-changed'],
        filesModified: file ? [shown as string] : [],
      };
    }
    case 'Write':
    case 'FileCreate': {
      const content = str(input.content) ?? '';
      const names = declared(content);
      const created = name === 'FileCreate' || /created|^create$/i.test(out.text) || /"type"\s*:\s*"create"/.test(use.toolResponse);
      return {
        type: created ? 'feature' : 'change',
        title: `${created ? 'Created' : 'Wrote'} ${shown ?? 'a file'}`,
        facts: [`${shown ?? 'file'}: ${plural(lines(content), 'line')} written`, ...(names.length ? [`defines: ${names.join(', ')}`] : [])],
        narrative: `${because}Wrote ${shown ?? 'a file'}${names.length ? `, defining ${names.join(', ')}` : content ? ` starting with: ${clip(firstLine(content, 120), 120)}` : ''}.`,
        concepts: ['what-changed'],
        filesModified: file ? [shown as string] : [],
      };
    }
    case 'FileSave': {
      const added = num(input.added) ?? 0;
      const removed = num(input.removed) ?? 0;
      const excerpt = str(input.excerpt) ?? '';
      return {
        type: 'change',
        title: `Saved ${shown ?? 'a file'} (+${added} −${removed})`,
        facts: [`${shown ?? 'file'}: ${added} lines added, ${removed} removed`, ...diffLines(excerpt).slice(0, 3).map((l) => `changed: ${clip(l, 120)}`)],
        narrative: `Edited and saved ${shown ?? 'a file'}.`,
        concepts: ['what-changed'],
        filesModified: file ? [shown as string] : [],
      };
    }
    case 'FileDelete':
    case 'FileRename': {
      const to = pick(input, 'new_path', 'newPath', 'to');
      return {
        type: 'change',
        title: name === 'FileDelete' ? `Deleted ${shown ?? 'a file'}` : `Renamed ${shown ?? 'a file'} to ${to ? rel(to, use.cwd) : '?'}`,
        facts: [],
        narrative: null,
        concepts: ['what-changed'],
        filesModified: [shown, to ? rel(to, use.cwd) : undefined].filter((x): x is string => !!x),
      };
    }
    case 'Bash':
    case 'TerminalCommand':
    case 'TaskEnd':
      return command(use, input, out, why);
    case 'Grep':
    case 'Glob': {
      const pattern = pick(input, 'pattern', 'query') ?? '';
      // Claude Code's Grep sends `filenames` in every mode, empty in content and count mode, whose
      // findings are the lines of `content`.
      const listed = (out.files?.length ? out.files : out.text.split('\n').filter((l) => l.trim() !== '')).map((l) => rel(relText(l.trim(), use.cwd), use.cwd));
      const hits = listed.length;
      const none = hits === 0 || /^(no (matches|files|results)|found 0)/i.test(out.text.trim());
      return {
        type: 'discovery',
        title: `Searched for ${pattern ? `\`${firstLine(pattern, 60)}\`` : 'files'}${none ? ': no matches' : ''}`,
        facts: none ? ['no matches'] : [`${plural(hits, 'result line')}`, ...listed.slice(0, 3).map((l) => clip(l, 120))],
        narrative: because ? because.trim() : null,
        concepts: ['how-it-works'],
        filesRead: [],
      };
    }
    case 'WebFetch':
    case 'WebSearch': {
      const target = pick(input, 'url', 'query') ?? 'the web';
      const status = out.status ? ` (${out.status.code}${out.status.text ? ` ${out.status.text}` : ''})` : '';
      return {
        type: 'discovery',
        title: `${name === 'WebFetch' ? 'Fetched' : 'Searched the web for'} ${firstLine(target, 80)}${status}`,
        facts: [...(out.status ? [`status ${out.status.code}`] : []), ...(out.text ? [clip(firstLine(out.text, 160), 160)] : [])],
        narrative: because ? because.trim() : null,
        concepts: ['how-it-works'],
      };
    }
    case 'DebugSessionEnd':
      return { type: 'discovery', title: `Debug session ended: ${pick(input, 'name') ?? 'debug'}`, facts: [], concepts: ['how-it-works'] };
    default: {
      const args = Object.entries(input)
        .filter(([, v]) => typeof v === 'string' || typeof v === 'number')
        .slice(0, 3)
        .map(([k, v]) => `${k}: ${clip(relText(String(v), use.cwd), 60)}`)
        .join(', ');
      const said = clip(relText(firstLine(out.text, 120), use.cwd), 120);
      return {
        type: 'discovery',
        title: `Used ${name}${shown ? ` on ${shown}` : ''}`,
        facts: [args, said].filter((x) => x !== ''),
        narrative: because ? because.trim() : null,
        concepts: [],
        filesRead: file ? [shown as string] : [],
      };
    }
  }
}

/** A shell command that only prints one file (Codex reads files this way): `nl -ba f | sed -n '1,80p'`, `cat f`, `sed -n '1,80p' f`. */
const READ_CMD = /^\s*(?:nl(?:\s+-\w+)*|cat|head(?:\s+-n?\s*\d+)?|tail(?:\s+-n?\s*\d+)?|sed\s+-n\s+(?:'[^']*'|"[^"]*"|\S+))\s+([^\s|;&<>]+)(?:\s*\|\s*(?:sed\s+-n\s+(?:'[^']*'|"[^"]*"|\S+)|head(?:\s+-n?\s*\d+)?|tail(?:\s+-n?\s*\d+)?))?\s*$/;

/** A plain text search over files (a pipeline's status is its last command's, so not with `|`). */
const SEARCH_CMD = /^\s*(?:(?:bash|sh|zsh)\s+-l?c\s+)?['"]?(?:rg|grep|egrep|fgrep|ag|git\s+grep)\s/;
/** A response that is only the exit status's message. */
const EXIT_ONLY = /^\s*(?:error:\s*)?(?:exit code|command exited with code)\s*1\s*$/i;

/** A shell command: a test run is a verification with its result; a build or lint a check; a failure a failure. */
function command(use: ToolUse, input: Input, out: ToolOutput, why: string | undefined): ObservationDraft {
  const cmd = relText(pick(input, 'command', 'commandLine', 'task', 'name') ?? 'a command', use.cwd);
  const exit = num(input.exitCode) ?? num(input.exit_code) ?? out.exit;
  const shownCmd = `\`${firstLine(cmd, 80)}\``;
  const because = why ? `${clip(why, 200)}. ` : '';
  const reads = READ_CMD.exec(cmd);
  if (reads && !out.failed && (exit === undefined || exit === 0) && out.text.trim()) {
    return observe(use, 'Read', { file_path: reads[1].replace(/^['"]|['"]$/g, '') }, { ...out, lines: undefined }, why);
  }
  // Started in the background: the tool answered before the command ended, so its result is unknown.
  if ((out.background || input.run_in_background === true) && !out.failed && !out.text.trim()) {
    return {
      type: 'change',
      title: `Started ${shownCmd} in the background`,
      subtitle: str(input.description) ?? null,
      facts: [],
      narrative: `${because}Started ${firstLine(cmd, 120)} in the background; its result is not known yet.`,
      concepts: ['what-changed'],
    };
  }
  // grep, rg, ag and git grep exit with 1 when nothing matched (2 on an error): a search that found nothing did not fail.
  if (exit === 1 && SEARCH_CMD.test(cmd) && !/[|;&]/.test(cmd.replace(/'[^']*'|"[^"]*"/g, '')) && !out.text.replace(EXIT_ONLY, '').trim()) {
    return {
      type: 'discovery',
      title: `Ran ${shownCmd}: no matches`,
      subtitle: str(input.description) ?? null,
      facts: ['no matches'],
      narrative: `${because}Searched with ${firstLine(cmd, 120)}: nothing matched.`,
      concepts: ['how-it-works'],
    };
  }
  const text = relText([out.text, out.error && !out.text.includes(out.error) ? out.error : ''].filter(Boolean).join('\n'), use.cwd);
  const tests = testResults(text);
  const isTest = tests !== undefined || isTestCommand(cmd);
  const errs = errorLines(text).filter((e) => !tests || !/^\s*(Tests?:|test result)/i.test(e));
  const failed = out.failed || (exit !== undefined && exit !== 0) || (tests !== undefined && tests.failed > 0);
  const exitNote = exit !== undefined ? ` (exit ${exit})` : '';
  const facts: string[] = [];
  if (exit !== undefined) facts.push(`exit code ${exit}`);
  if (tests) facts.push(`tests: ${testPhrase(tests)}`);
  if (tests) facts.push(...tests.failures.slice(0, 3).map((f) => `failing: ${clip(f, 140)}`));
  for (const e of errs) facts.push(`error: ${e}`);
  if (tests && !failed) facts.push(...tests.passes.slice(0, 3).map((p) => `passing: ${clip(p, 140)}`));
  /** What the command printed that no fact says yet. */
  const printed = () => printedLines(text).filter((l) => !facts.some((f) => f.endsWith(l)));
  // A test command whose runner's result lines were not read: what it printed is the evidence.
  if (isTestCommand(cmd) && !tests) facts.push(...printed());
  if (isTest) {
    const result = tests ? testPhrase(tests) : failed ? 'failed' : 'passed';
    const detail = tests && failed && tests.failures.length ? `; failing: ${tests.failures.slice(0, 2).join('; ')}` : tests && !failed && tests.passes.length ? ` (${tests.passes.slice(0, 3).join('; ')})` : '';
    return {
      type: 'discovery',
      title: `Ran ${shownCmd}${exitNote}${tests ? `: ${result}` : failed && exit === undefined ? ': failed' : ''}`,
      subtitle: failed ? 'tests failed' : 'tests passed',
      facts,
      narrative: `${because}${failed ? 'Tests failed' : 'Tests passed'} with ${firstLine(cmd, 120)}: ${result}${detail}${failed && errs[0] ? `. First error: ${errs[0]}` : ''}.`,
      concepts: failed ? ['gotcha'] : ['how-it-works'],
    };
  }
  if (failed) {
    const err = errs[0] ?? (out.error ? clip(relText(out.error, use.cwd), 160) : undefined);
    if (err && !facts.some((f) => f.endsWith(err))) facts.push(`failed: ${err}`);
    return {
      type: 'discovery',
      title: `Ran ${shownCmd}${exitNote}${exit === undefined ? ': failed' : ''}`,
      subtitle: str(input.description) ?? null,
      facts,
      narrative: `${because}The command failed: ${err ?? `exit ${exit}`}.`,
      concepts: ['gotcha'],
    };
  }
  const look = isLookCommand(cmd);
  const build = isBuildCommand(cmd);
  // What the command printed is what it found (a count, a timing, a plan); a passing build's output is chatter.
  const said = build ? [] : printed();
  facts.push(...said);
  return {
    type: look || build ? 'discovery' : 'change',
    // One short printed line is the answer the command was run for (a count, a version): the title says it.
    title: `Ran ${shownCmd}${exitNote}${said.length === 1 && said[0].length <= 60 ? `: ${said[0]}` : ''}`,
    subtitle: str(input.description) ?? null,
    facts,
    narrative: `${because}${build ? `Checked with ${firstLine(cmd, 120)}: no errors` : `Ran ${firstLine(cmd, 120)}${said.length ? `, which printed: ${said[0]}` : ''}`}.`,
    concepts: look || build ? ['how-it-works'] : ['what-changed'],
  };
}
