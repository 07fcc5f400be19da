// One observation in full: facts, narrative, concepts, files (links that open in the editor when
// the host can), tokens, and the timeline around it.
import { recordRef, type Observation } from '../../../common/contract';
import { formatCount, fullTime, h, icon, relativeTime, typeIcon, typeLabel } from '../dom';
import { l10n } from '../l10n';
import { observationStale, readTokens, type StaleMark } from '../model';
import type { TimelineState } from '../state';
import { renderRows, type ListCallbacks } from './list';

export type { TimelineState };

export interface DetailCallbacks {
  back(): void;
  remove(id: number): void;
  timeline(id: number): void;
  openFile(path: string, project: string): void;
  filterConcept(concept: string): void;
  open(id: number): void;
}

export interface DetailOptions {
  canOpenFiles: boolean;
  timeline: TimelineState;
}

function files(title: string, list: string[], o: Observation, opts: DetailOptions, cb: DetailCallbacks): HTMLElement[] {
  if (list.length === 0) return [];
  return [
    h('h3', null, title),
    h(
      'ul',
      { class: 'files' },
      list.map((f) =>
        h(
          'li',
          null,
          icon('file'),
          opts.canOpenFiles
            ? h(
                'a',
                {
                  href: '#',
                  class: 'mono file-link',
                  title: l10n.t('Open {0} in the editor', f),
                  onclick: (e: Event) => {
                    e.preventDefault();
                    cb.openFile(f, o.project);
                  },
                },
                f,
              )
            : h('code', { class: 'file-path' }, f),
        ),
      ),
    ),
  ];
}

export function renderDetail(o: Observation, opts: DetailOptions, cb: DetailCallbacks): HTMLElement {
  const headingId = `detail-title-${o.id}`;
  const tl = opts.timeline;
  const rowsCb: ListCallbacks = { open: cb.open, remove: cb.remove, forgetSession: () => undefined };
  return h(
    'article',
    { class: 'detail', 'aria-labelledby': headingId, 'data-id': o.id },
    h(
      'div',
      { class: 'detail-toolbar', role: 'toolbar', 'aria-label': l10n.t('Observation actions') },
      h('vscode-button', { secondary: true, class: 'back-button', onclick: cb.back, 'aria-label': l10n.t('Back to the list (Escape)') }, icon('arrow-left'), ` ${l10n.t('Back')}`),
      h('span', { class: 'spacer' }),
      h('vscode-button', { secondary: true, class: 'timeline-button', onclick: () => cb.timeline(o.id) }, icon('history'), ` ${l10n.t('Timeline')}`),
      h('vscode-button', { secondary: true, class: 'delete-button', onclick: () => cb.remove(o.id), 'aria-label': l10n.t('Delete observation #{0}', o.id) }, icon('trash'), ` ${l10n.t('Delete')}`),
    ),
    h('h2', { id: headingId, tabindex: -1 }, icon(typeIcon(o.type), `t-${o.type}`), h('span', null, o.title)),
    o.subtitle ? h('p', { class: 'subtitle' }, o.subtitle) : null,
    staleNote(observationStale(o)),
    h(
      'div',
      { class: 'chips', 'aria-label': l10n.t('Kind') },
      h('span', { class: 'badge' }, typeLabel(o.type)),
      h('span', { class: 'badge' }, recordRef('observation', o.id)),
      o.source ? h('span', { class: 'badge' }, o.source) : null,
    ),
    o.narrative ? [h('h3', null, l10n.t('Narrative')), h('p', { class: 'narrative' }, o.narrative)] : null,
    o.facts.length ? [h('h3', null, l10n.t('Facts')), h('ul', { class: 'facts' }, o.facts.map((f) => h('li', null, f)))] : null,
    o.concepts.length
      ? [
          h('h3', null, l10n.t('Concepts')),
          h(
            'div',
            { class: 'chips' },
            o.concepts.map((c) => h('button', { type: 'button', class: 'chip', title: l10n.t('Show observations about {0}', c), onclick: () => cb.filterConcept(c) }, c)),
          ),
        ]
      : null,
    files(l10n.t('Files modified'), o.filesModified, o, opts, cb),
    files(l10n.t('Files read'), o.filesRead, o, opts, cb),
    h('h3', null, l10n.t('Details')),
    h(
      'dl',
      { class: 'meta-grid' },
      h('dt', null, l10n.t('Project')),
      h('dd', null, o.project),
      h('dt', null, l10n.t('When')),
      h('dd', null, `${fullTime(o.createdAtEpoch)} (${relativeTime(o.createdAtEpoch)})`),
      h('dt', null, l10n.t('Session')),
      h('dd', null, o.promptNumber !== null ? l10n.t('#{0}, prompt {1}', o.sessionId, o.promptNumber) : `#${o.sessionId}`),
      o.toolName ? [h('dt', null, l10n.t('Tool')), h('dd', null, o.toolName)] : null,
      h('dt', null, l10n.t('Tokens')),
      h(
        'dd',
        { class: 'tokens' },
        l10n.t(
          '~{0} to read · {1} of work recorded · {2} in / {3} out to compress',
          formatCount(readTokens(o)),
          formatCount(o.discoveryTokens),
          formatCount(o.inputTokens),
          formatCount(o.outputTokens),
        ),
      ),
    ),
    h(
      'section',
      { class: 'timeline', 'aria-label': l10n.t('Timeline around this observation'), 'aria-busy': tl.state === 'loading' ? 'true' : 'false' },
      tl.state === 'idle' ? null : h('h3', null, l10n.t('Around this observation')),
      tl.state === 'loading' ? h('vscode-progress-ring', { 'aria-label': l10n.t('Loading the timeline') }) : null,
      tl.state === 'error' ? h('div', { class: 'notice warning', role: 'status' }, icon('warning'), h('span', { class: 'grow' }, tl.message)) : null,
      tl.state === 'ready' && tl.list.notice ? h('div', { class: 'notice', role: 'status' }, icon('info'), h('span', { class: 'grow' }, tl.list.notice)) : null,
      tl.state === 'ready'
        ? tl.list.rows.length
          ? renderRows(tl.list.rows, { fresh: new Set(), showProject: false, selectedId: o.id }, rowsCb, l10n.t('Timeline'))
          : h('p', { class: 'muted' }, l10n.t('Nothing else was recorded around this observation.'))
        : null,
    ),
  );
}

/** Why this memory may not hold any more, above everything else it says. */
function staleNote(m: StaleMark | undefined): HTMLElement | null {
  if (!m) return null;
  const stale = m.status === 'stale';
  const what = m.reason
    ? stale
      ? l10n.t('This memory may be stale: {0}', m.reason)
      : l10n.t('This memory was retired: {0}', m.reason)
    : stale
      ? l10n.t('This memory may be stale.')
      : l10n.t('This memory was retired.');
  return h('p', { class: `stale-note ${m.status}`, role: 'note' }, icon('warning'), ` ${what}`);
}
