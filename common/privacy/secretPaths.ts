// Paths that look like they hold secrets: the extension never captures them, and a tool use that
// reads or writes one (Claude Code's Read of .env, an agent's read_file of id_rsa) keeps its path
// but loses its content. Pure string code, no Node import.

/** Basenames (case-insensitive; `*` is any run of characters) that look like they hold secrets. */
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

/** Each basename pattern split at its stars, once. */
const PATTERNS = SECRET_BASENAMES.map((g) => g.split('*'));

/** Matches a basename against a pattern (split at its `*`s); linear in practice (few stars). */
function matchStar(parts: string[], name: string): boolean {
  if (parts.length === 1) return parts[0] === name;
  const first = parts[0];
  const last = parts[parts.length - 1];
  if (!name.startsWith(first) || name.length < first.length + last.length || !name.endsWith(last)) return false;
  let at = first.length;
  const stop = name.length - last.length;
  for (let i = 1; i < parts.length - 1; i++) {
    const j = name.indexOf(parts[i], at);
    if (j < 0 || j + parts[i].length > stop) return false;
    at = j + parts[i].length;
  }
  return true;
}

export function isSecretPath(file: string): boolean {
  if (file.length > 4096) return false;
  const parts = file.replace(/\\/g, '/').split('/').filter(Boolean);
  const base = (parts[parts.length - 1] ?? '').toLowerCase();
  if (base !== '' && PATTERNS.some((g) => matchStar(g, base))) return true;
  return parts.slice(0, -1).some((d) => SECRET_DIRS.includes(d.toLowerCase()));
}
