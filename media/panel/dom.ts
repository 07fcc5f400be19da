// A tiny element builder. Text always goes in as text (never parsed as HTML), so stored memory
// (which may hold anything a tool saw) cannot inject markup or script.
import { typeCodicon } from '../../common/contract/taxonomy';
import { l10n } from './l10n';

export type Child = Node | string | number | false | null | undefined | Child[];
type Attrs = Record<string, string | number | boolean | undefined | null | ((e: Event) => void)>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attrs | null, ...children: Child[]): HTMLElementTagNameMap[K];
export function h(tag: string, attrs?: Attrs | null, ...children: Child[]): HTMLElement;
export function h(tag: string, attrs?: Attrs | null, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (typeof v === 'function') el.addEventListener(k.replace(/^on/, '').toLowerCase(), v as EventListener);
    else if (k === 'class') el.className = String(v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

function append(el: HTMLElement, children: Child[]): void {
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(typeof c === 'number' ? String(c) : c);
  }
}

/** A codicon, hidden from screen readers (the control around it carries the label). */
export function icon(name: string, extra = ''): HTMLSpanElement {
  return h('span', { class: `codicon codicon-${name} ${extra}`.trim(), 'aria-hidden': 'true' });
}

const rtf = typeof Intl !== 'undefined' ? new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' }) : undefined;

/** "3 minutes ago", "yesterday", or a date for older things. */
export function relativeTime(epoch: number, now = Date.now()): string {
  if (!epoch) return '';
  const s = Math.round((epoch - now) / 1000);
  const abs = Math.abs(s);
  if (!rtf) return new Date(epoch).toLocaleString();
  if (abs < 45) return l10n.t('just now');
  if (abs < 3600) return rtf.format(Math.round(s / 60), 'minute');
  if (abs < 86_400) return rtf.format(Math.round(s / 3600), 'hour');
  if (abs < 7 * 86_400) return rtf.format(Math.round(s / 86_400), 'day');
  return new Date(epoch).toLocaleDateString();
}

export function fullTime(epoch: number): string {
  return epoch ? new Date(epoch).toLocaleString() : '';
}

export function formatCount(n: number): string {
  return n.toLocaleString();
}

export function formatBytes(n: number): string {
  if (n < 1024) return l10n.t('{0} B', n);
  if (n < 1024 * 1024) return l10n.t('{0} KiB', (n / 1024).toFixed(1));
  return l10n.t('{0} MiB', (n / 1024 / 1024).toFixed(1));
}

export function formatDuration(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return l10n.t('{0} s', s);
  if (s < 3600) return l10n.t('{0} min', Math.floor(s / 60));
  if (s < 86_400) return l10n.t('{0} h {1} min', Math.floor(s / 3600), Math.floor((s % 3600) / 60));
  return l10n.t('{0} d {1} h', Math.floor(s / 86_400), Math.floor((s % 86_400) / 3600));
}

/** The codicon for an observation type (or a feed entry kind): common/contract/taxonomy.ts. */
export const typeIcon = typeCodicon;

/** An observation type (or a row kind) as people read it; an unknown one with its underscores as spaces. */
export function typeLabel(type: string): string {
  switch (type) {
    case 'bugfix':
      return l10n.t('bugfix');
    case 'feature':
      return l10n.t('feature');
    case 'refactor':
      return l10n.t('refactor');
    case 'change':
      return l10n.t('change');
    case 'discovery':
      return l10n.t('discovery');
    case 'decision':
      return l10n.t('decision');
    case 'security_alert':
      return l10n.t('security alert');
    case 'security_note':
      return l10n.t('security note');
    case 'summary':
      return l10n.t('summary');
    case 'prompt':
      return l10n.t('prompt');
    case 'session':
      return l10n.t('session');
    default:
      return type.replace(/_/g, ' ');
  }
}

/** A search mode's name in the mode picker. */
export function modeLabel(mode: string): string {
  switch (mode) {
    case 'hybrid':
      return l10n.t('Hybrid');
    case 'keyword':
      return l10n.t('Keyword');
    case 'semantic':
      return l10n.t('Semantic');
    default:
      return mode[0].toUpperCase() + mode.slice(1);
  }
}
