// Paths that look like they hold secrets: the extension never captures them, and a tool use that
// reads or writes one (Claude Code's Read of .env, an agent's read_file of id_rsa) keeps its path
// but loses its content. Pure string code, no Node import.
import { globToRegExp, isStarGlob, starGlobMatches } from '../glob';

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
  '*.ppk',
  '.vault-token',
  'wp-config.php',
  '.git-credentials',
  '.my.cnf',
  '.s3cfg',
  '.boto',
  '.dockercfg',
  '.terraformrc',
  'kubeconfig',
  '*.kubeconfig',
  '*.keytab',
  'htpasswd',
  'shadow',
  'gshadow',
];

/** Folders whose whole content is secret. */
export const SECRET_DIRS = ['.ssh', '.gnupg', '.aws', '.azure', '.kube', '.docker', '.password-store'];

/** Each basename glob lower-cased and split on '*' (all of them are `*`-only globs), or its RegExp. */
let secretBase: (string[] | RegExp)[] | undefined;

function isSecretBasename(lowerBase: string): boolean {
  secretBase ??= SECRET_BASENAMES.map((g) => (isStarGlob(g) ? g.toLowerCase().split('*') : globToRegExp(g, true)));
  return secretBase.some((g) => (g instanceof RegExp ? g.test(lowerBase) : starGlobMatches(g, lowerBase)));
}

/** Any length: a long path is split once, so the cost is linear in its length. */
export function isSecretPath(file: string): boolean {
  const parts = file.replace(/\\/g, '/').split('/').filter(Boolean);
  const base = (parts[parts.length - 1] ?? '').toLowerCase();
  if (base !== '' && isSecretBasename(base)) return true;
  return parts.slice(0, -1).some((d) => SECRET_DIRS.includes(d.toLowerCase()));
}
