// Maps a project name to its part of a vector file's name (vectors/files.ts). Project names come from folder
// names and hook payloads, so they are untrusted: the name keeps only [A-Za-z0-9._-],
// never starts with a dot, and ends with a hash of the exact name so that distinct names that
// sanitise alike (or differ only in case) never share a file.
import { createHash } from 'node:crypto';

export function projectFolderName(project: string): string {
  if (project.length === 0) throw new Error('vector index: empty project name');
  const slug = project
    .normalize('NFKC')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^\.+/, '_')
    .slice(0, 40);
  const hash = createHash('sha256').update(project, 'utf8').digest('hex').slice(0, 12);
  return `${slug}-${hash}`;
}
