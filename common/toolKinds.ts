// What each hook platform's tools do, by name: one table for Claude Code, VS Code agent hooks,
// Copilot CLI, Codex CLI and Gemini CLI. The local compressor and the file evidence read tool uses
// through it (so a VS Code `replace_string_in_file` is an edit of `tool_input.filePath`), and the
// hook CLI asks it whether a PreToolUse is a read (file-context answers only for reads).
// Pure: no Node imports, so the hook path can load it for nothing.

export type ToolKind = 'read' | 'edit' | 'create' | 'delete' | 'run' | 'search' | 'fetch' | 'other';

/**
 * Tool name -> kind. Names are exact (tools differ by case across platforms: Copilot CLI `edit`,
 * Claude Code `Edit`). Sources: Claude Code tool list; VS Code agent tools (as sent in hook
 * payloads); Copilot CLI "Tool names for hook matching"; Codex hooks (Bash, apply_patch); Gemini CLI
 * built-in tools.
 */
const KINDS: Record<string, ToolKind> = {
  // Claude Code (and the extension's own capture events)
  Read: 'read', NotebookRead: 'read', FileFocus: 'read',
  Edit: 'edit', MultiEdit: 'edit', NotebookEdit: 'edit', FileSave: 'edit', FileRename: 'edit',
  Write: 'create', FileCreate: 'create', FileDelete: 'delete',
  Bash: 'run', BashOutput: 'other', TerminalCommand: 'run', TaskEnd: 'run',
  Grep: 'search', Glob: 'search', LS: 'search',
  WebFetch: 'fetch', WebSearch: 'fetch',
  // VS Code agent hooks (Copilot, Local harness)
  read_file: 'read', get_file: 'read', read_notebook_cell_output: 'read', view_image: 'read',
  create_file: 'create', create_directory: 'create', createFile: 'create', create_new_jupyter_notebook: 'create',
  replace_string_in_file: 'edit', multi_replace_string_in_file: 'edit', insert_edit_into_file: 'edit', edit_file: 'edit',
  apply_patch: 'edit', edit_notebook_file: 'edit', editFiles: 'edit', rename_file: 'edit',
  delete_file: 'delete', deleteFile: 'delete',
  run_in_terminal: 'run', runTerminalCommand: 'run', run_task: 'run', run_notebook_cell: 'run', runTests: 'run', run_tests: 'run',
  file_search: 'search', grep_search: 'search', semantic_search: 'search', list_dir: 'search', list_code_usages: 'search', search_workspace_symbols: 'search', get_errors: 'search', get_changed_files: 'search',
  fetch_webpage: 'fetch', github_repo: 'fetch', vscode_searchExtensions_internal: 'fetch',
  // GitHub Copilot CLI
  view: 'read', create: 'create', edit: 'edit', bash: 'run', powershell: 'run', glob: 'search', grep: 'search', web_fetch: 'fetch',
  // Gemini CLI
  read_many_files: 'read', write_file: 'create', replace: 'edit', run_shell_command: 'run',
  search_file_content: 'search', list_directory: 'search', google_web_search: 'fetch',
  // Codex CLI: Bash and apply_patch above; its shell tool under another name
  shell: 'run', local_shell: 'run',
};

export function toolKind(name: string): ToolKind {
  return Object.prototype.hasOwnProperty.call(KINDS, name) ? KINDS[name] : 'other';
}

/** Read-like: file-context answers for these only. */
export function isReadTool(name: string): boolean {
  const k = toolKind(name);
  return k === 'read';
}

type Obj = Record<string, unknown>;
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * Keys of tool inputs that name one file, in the order platforms use them: Claude Code `file_path`
 * and `notebook_path`, VS Code `filePath`, Gemini CLI `absolute_path` (read_file), Copilot CLI
 * `path`, and a rename's new name. The privacy module reads the same lists.
 */
export const PATH_KEYS = ['file_path', 'filePath', 'absolute_path', 'notebook_path', 'path', 'file', 'uri', 'targetFile', 'target_file', 'new_path', 'newPath', 'newFilePath'];
/** Keys of tool inputs that list files: VS Code `files`, Gemini CLI read_many_files `paths`. */
export const PATH_LIST_KEYS = ['files', 'paths', 'filePaths', 'file_paths'];
/** Keys of tool inputs that hold a list of edits, each naming its file (VS Code multi_replace_string_in_file `replacements`, `edits`). */
export const EDIT_LIST_KEYS = ['replacements', 'edits'];
/** Keys of tool inputs that hold a shell command (Claude Code and Codex `command`, VS Code `commandLine`, `cmd`). */
export const COMMAND_KEYS = ['command', 'commandLine', 'cmd'];

/** Files named by an apply_patch text (`*** Update File: a`, `*** Add File: b`, `*** Delete File: c`, `+++ b/x`). */
export function patchFiles(patch: string): string[] {
  const out: string[] = [];
  const re = /^\*\*\* (?:Update|Add|Delete) File: (.+)$|^\*\*\* Move to: (.+)$|^\+\+\+ (?:b\/)?(.+)$/gm;
  for (let m = re.exec(patch); m; m = re.exec(patch)) {
    const f = (m[1] ?? m[2] ?? m[3] ?? '').trim();
    if (f && f !== '/dev/null' && !out.includes(f)) out.push(f);
  }
  return out;
}

/** Every file a tool input names: single paths, `files`/`paths` lists, `replacements[].filePath`, patch text. */
export function toolFiles(name: string, input: unknown): string[] {
  const out: string[] = [];
  const add = (v: unknown) => {
    const s = str(v);
    if (s && !out.includes(s)) out.push(s);
  };
  if (typeof input === 'string') {
    if (name === 'apply_patch') patchFiles(input).forEach(add);
    return out;
  }
  if (!isObj(input)) return out;
  for (const k of PATH_KEYS) add(input[k]);
  // Every entry of a list, however long: the privacy module asks this for secret-looking files.
  for (const k of PATH_LIST_KEYS) if (Array.isArray(input[k])) (input[k] as unknown[]).forEach((f) => add(isObj(f) ? (f.filePath ?? f.file_path ?? f.path) : f));
  for (const k of EDIT_LIST_KEYS) if (Array.isArray(input[k])) for (const r of input[k] as unknown[]) if (isObj(r)) add(r.filePath ?? r.file_path ?? r.path);
  const patch = str(input.input) ?? str(input.patch) ?? (name === 'apply_patch' ? str(input.command) : undefined);
  if (patch && (name === 'apply_patch' || /^\*\*\* Begin Patch/m.test(patch))) patchFiles(patch).forEach(add);
  return out;
}

/**
 * The same tool use in Claude Code's words (its tool names and snake_case inputs), for the local
 * compressor, which knows those best. The stored tool name stays the platform's own.
 */
export function canonicalUse(name: string, input: Obj): { name: string; input: Obj } {
  const kind = toolKind(name);
  const files = toolFiles(name, input);
  const file = files[0];
  const withFile = (extra: Obj): Obj => ({ ...input, ...(file ? { file_path: file } : {}), ...extra });
  switch (kind) {
    case 'read':
      return { name: 'Read', input: withFile({}) };
    case 'create':
      return { name: 'Write', input: withFile({ content: input.content ?? input.file_text ?? input.contents }) };
    case 'delete':
      return { name: 'FileDelete', input: withFile({}) };
    case 'edit': {
      const replacements = Array.isArray(input.replacements) ? input.replacements : undefined;
      const edits = replacements ?? (Array.isArray(input.edits) ? input.edits : files.length > 1 ? files : undefined);
      return {
        name: name === 'Edit' || name === 'MultiEdit' || name === 'NotebookEdit' ? name : 'Edit',
        input: withFile({
          old_string: input.old_string ?? input.oldString ?? input.old_str,
          new_string: input.new_string ?? input.newString ?? input.new_str ?? input.code ?? input.content,
          ...(edits ? { edits } : {}),
        }),
      };
    }
    case 'run': {
      const cmd = input.command ?? input.commandLine ?? input.cmd;
      return { name: 'Bash', input: { ...input, command: Array.isArray(cmd) ? cmd.join(' ') : cmd } };
    }
    case 'search':
      return { name: name === 'Glob' || name === 'glob' || name === 'file_search' ? 'Glob' : 'Grep', input: { ...input, pattern: input.pattern ?? input.query ?? input.includePattern } };
    case 'fetch': {
      const urls = Array.isArray(input.urls) ? input.urls : undefined;
      return { name: input.url || urls ? 'WebFetch' : 'WebSearch', input: { ...input, url: input.url ?? urls?.[0], query: input.query } };
    }
    default:
      return { name, input };
  }
}
