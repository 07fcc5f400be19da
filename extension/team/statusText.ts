// What the team hub's status bar item says (no vscode import, so it is unit-tested directly).
import type { TeamStatus } from '../../common/contract';

export function teamStatusText(s: TeamStatus | undefined): { text: string; tooltip: string; warn: boolean } | undefined {
  if (!s || s.state === 'off') return undefined;
  const shares = s.shares.length === 0 ? 'no project shared yet' : `sharing ${s.shares.map((x) => x.project).join(', ')}`;
  const hub = s.hub ? ` (${s.hub})` : '';
  switch (s.state) {
    case 'connected':
      return { text: s.waiting > 0 ? `$(cloud-upload) Team ${s.waiting}` : '$(cloud) Team', tooltip: `Team memory: connected${hub} as ${s.author ?? '?'} on ${s.machine}; ${shares}${s.waiting > 0 ? `; ${s.waiting} pushing` : ''}.${s.lastError ? ` Last problem: ${s.lastError}` : ''}`, warn: false };
    case 'connecting':
      return { text: '$(sync~spin) Team', tooltip: `Team memory: connecting${hub}…`, warn: false };
    case 'offline':
      return { text: `$(cloud-offline) Team ${s.waiting}`, tooltip: `Team memory: offline${hub}; ${s.waiting} record(s) waiting, kept until the hub is back. ${s.lastError ?? ''}`, warn: false };
    case 'error':
      return { text: '$(error) Team', tooltip: `Team memory: ${s.lastError ?? 'error'}. Click to set up the connection again.`, warn: true };
  }
}
