// Maps a project name to its own folder under the vectors root. Project names come from folder
// names and hook payloads, so they are untrusted: the folder name keeps only [A-Za-z0-9._-],
// never starts with a dot, and ends with a hash of the exact name so that distinct names that
// sanitise alike (or differ only in case) never share a folder.
import { createHash } from 'node:crypto';
import * as path from 'node:path';

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

export function projectFolder(root: string, project: string): string {
  const base = path.resolve(root);
  const dir = path.join(base, projectFolderName(project));
  // Cannot happen given the name above; checked anyway because the cost of being wrong is a write outside root.
  if (path.dirname(dir) !== base) throw new Error(`vector index: bad project folder for ${JSON.stringify(project)}`);
  return dir;
}
