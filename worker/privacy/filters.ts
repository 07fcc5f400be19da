// What is never captured: low-value tools, excluded projects, and fields too big to keep whole.
import { globToRegExp } from '../../common/glob';
import { cutText } from '../../common/privacy/cut';

export { globToRegExp };

export function isSkippedTool(toolName: string, skipTools: readonly string[]): boolean {
  return skipTools.includes(toolName);
}

/** A project is excluded when a glob (common/glob.ts) matches its name or its folder. */
export function isExcludedProject(project: string, cwd: string | undefined, globs: readonly string[]): boolean {
  return globs.some((g) => {
    const re = globToRegExp(g);
    return re.test(project) || (cwd !== undefined && re.test(cwd));
  });
}

/** Serialises a tool field (any JSON) to text and caps it. */
export function fieldText(value: unknown, max: number): string {
  if (value === undefined || value === null) return '';
  let text: string;
  if (typeof value === 'string') text = value;
  else {
    try {
      text = JSON.stringify(value) ?? '';
    } catch {
      text = String(value);
    }
  }
  return cutText(text, max);
}
