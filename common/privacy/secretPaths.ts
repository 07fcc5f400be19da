// Paths that look like they hold secrets: the extension never captures them, and a tool use that
// reads or writes one (Claude Code's Read of .env, an agent's read_file of id_rsa) keeps its path
// but loses its content. Pure string code, no Node import.
import { globToRegExp } from '../glob';

/** Basenames (case-insensitive globs, common/glob.ts) that look like they hold secrets. */
export const SECRET_BASENAMES = [
  '.env',
  '.env.*',
  '*.env',
  '.envrc',
  '*.pem',
  '*.key',
  '*.p12',
  '*.pfx',
  '*.jks',
  '*.keystore',
  '*.kdbx',
  '*.gpg',
  '*.asc',
  '*.ovpn',
  'id_rsa*',
  'id_dsa*',
  'id_ecdsa*',
  'id_ed25519*',
  'credentials',
  'credentials.*',
  '*credentials*.json',
  'secrets.*',
  '*.secret',
  '*.secrets',
  '.netrc',
  '_netrc',
  '.npmrc',
  '.pypirc',
  '.pgpass',
  '.htpasswd',
  'auth.token',
  'service-account*.json',
  'terraform.tfvars',
  '*.tfstate',
];

/** Folders whose whole content is secret. */
export const SECRET_DIRS = ['.ssh', '.gnupg', '.aws', '.azure', '.kube', '.docker', '.password-store'];

/** All the basename patterns as one case-insensitive RegExp, compiled on first use. */
let secretBase: RegExp | undefined;

export function isSecretPath(file: string): boolean {
  if (file.length > 4096) return false;
  const parts = file.replace(/\\/g, '/').split('/').filter(Boolean);
  const base = (parts[parts.length - 1] ?? '').toLowerCase();
  secretBase ??= new RegExp(SECRET_BASENAMES.map((g) => globToRegExp(g).source).join('|'), 'i');
  if (base !== '' && secretBase.test(base)) return true;
  return parts.slice(0, -1).some((d) => SECRET_DIRS.includes(d.toLowerCase()));
}
