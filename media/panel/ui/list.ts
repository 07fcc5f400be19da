// The memory list: the live feed grouped by session, or flat search results. Rows are buttons
// with a roving tabindex: Tab enters the list once, arrows move, Enter opens, Delete deletes.
import type { Observation } from '../../../common/contract';
import { TEAM_PLATFORM } from '../../../common/contract/taxonomy';
import { h, icon, relativeTime, fullTime, typeIcon, typeLabel } from '../dom';
import { l10n } from '../l10n';
import { confirmedLabel, confirmedMarkOf, observationStale, PLATFORM_LABELS, snippetParts, staleLabel, teamLabel, type ConfirmedMark, type FeedEntry, type Row, type SessionGroup, type StaleMark } from '../model';

export interface ListCallbacks {
  open(id: number): void;
  remove(id: number): void;
  forgetSession(group: SessionGroup): void;
}

export interface ListOptions {
  selectedId?: number;
  fresh: ReadonlySet<string>;
  showProject: boolean;
}

/** The "may be stale" / "retired" badge, with what changed as its tooltip (docs/freshness.md). */
export function staleBadge(m: StaleMark | undefined): HTMLElement | null {
  return m ? h('span', { class: `badge stale ${m.status}`, title: m.reason ?? '' }, staleLabel(m)) : null;
}

/** The "confirmed" / "confirmed by alice" badge of a memory a person confirmed still holds. */
export function confirmedBadge(m: ConfirmedMark | undefined): HTMLElement | null {
  return m ? h('span', { class: 'badge confirmed', title: m.decidedBy ? l10n.t('A teammate confirmed this memory still holds') : l10n.t('Confirmed to still hold') }, confirmedLabel(m)) : null;
}

function obsButton(o: Observation, opts: ListOptions, cb: ListCallbacks): HTMLElement {
  const key = `observation:${o.id}`;
  const by = o.team ? l10n.t('by {0}', teamLabel(o.team)) : '';
  const sub = [by, o.subtitle || o.facts[0] || o.narrative?.split('\n')[0] || ''].filter(Boolean).join(' · ');
  return h(
    'button',
    {
      type: 'button',
      class: `item obs${opts.fresh.has(key) ? ' fresh' : ''}`,
      'data-key': key,
      'data-id': o.id,
      tabindex: -1,
      'aria-current': opts.selectedId === o.id ? 'true' : undefined,
      'aria-keyshortcuts': 'Enter Delete',
      title: fullTime(o.createdAtEpoch),
      onclick: () => cb.open(o.id),
    },
    icon(typeIcon(o.type), `t-${o.type}`),
    h(
      'span',
      { class: 'text' },
      h('span', { class: 'sr-only' }, l10n.t('{0}: ', typeLabel(o.type))),
      h('span', { class: 'title' }, o.title, staleBadge(observationStale(o)) ?? confirmedBadge(confirmedMarkOf(o))),
      sub ? h('span', { class: 'sub' }, (opts.showProject ? `${o.project} · ` : '') + sub) : opts.showProject ? h('span', { class: 'sub' }, o.project) : null,
    ),
    h('span', { class: 'time' }, relativeTime(o.createdAtEpoch)),
  );
}

function entryItem(e: FeedEntry, opts: ListOptions, cb: ListCallbacks): HTMLElement {
  if (e.kind === 'observation') return h('li', null, obsButton(e.obs, opts, cb));
  const fresh = opts.fresh.has(`${e.kind}:${e.kind === 'prompt' ? e.prompt.id : e.summary.id}`) ? ' fresh' : '';
  if (e.kind === 'prompt') {
    return h(
      'li',
      { class: `item prompt${fresh}` },
      icon('comment'),
      h('span', { class: 'text' }, h('span', { class: 'sr-only' }, l10n.t('Prompt {0}: ', e.prompt.promptNumber)), h('span', { class: 'title' }, e.prompt.text || l10n.t('(empty prompt)'))),
      h('span', { class: 'time' }, relativeTime(e.at)),
    );
  }
  return h(
    'li',
    { class: `item summary${fresh}` },
    icon('checklist'),
    h(
      'span',
      { class: 'text' },
      h('span', { class: 'sr-only' }, l10n.t('Session summary: ')),
      h('span', { class: 'title' }, e.summary.request ? l10n.t('Summary: {0}', e.summary.request) : l10n.t('Session summarised')),
    ),
    h('span', { class: 'time' }, relativeTime(e.at)),
  );
}

function teamOf(g: SessionGroup): Observation['team'] {
  for (const e of g.entries) if (e.kind === 'observation' && e.obs.team) return e.obs.team;
  return undefined;
}

function groupLabel(g: SessionGroup): string {
  if (g.session?.platform === 'manual') return l10n.t('Saved by hand');
  // A record that arrived live may come before its session is listed: its label tells as much.
  const team = teamOf(g);
  if (team) return l10n.t('Session by {0}', teamLabel(team));
  if (g.session?.platform === TEAM_PLATFORM) return l10n.t("A teammate's session");
  const label = g.session ? PLATFORM_LABELS[g.session.platform] : undefined;
  return label ? l10n.t('{0} session', label) : l10n.t('Session #{0}', g.sessionId);
}

export function renderFeed(groups: SessionGroup[], opts: ListOptions, cb: ListCallbacks): HTMLElement {
  const root = h('div', { class: 'groups' });
  for (const g of groups) {
    const label = groupLabel(g);
    const headId = `g-${g.sessionId}`;
    const s = g.session;
    const items = g.entries.length === 1 ? l10n.t('{0} item', g.entries.length) : l10n.t('{0} items', g.entries.length);
    const meta = [opts.showProject || !s ? g.project : '', s?.startedAt ? l10n.t('started {0}', relativeTime(s.startedAt)) : '', items].filter(Boolean).join(' · ');
    root.append(
      h(
        'section',
        { class: 'group', 'aria-labelledby': headId, 'data-session': g.sessionId },
        h(
          'div',
          { class: 'group-head' },
          icon(s?.platform === 'manual' ? 'pinned' : s?.platform === TEAM_PLATFORM || teamOf(g) ? 'organization' : 'history'),
          h('h3', { id: headId }, label),
          s?.status === 'active' ? h('span', { class: 'badge active' }, l10n.t('active')) : null,
          h('span', { class: 'meta' }, meta),
          h('span', { class: 'spacer' }),
          h(
            'button',
            {
              type: 'button',
              class: 'icon-button forget-session',
              'aria-label': l10n.t('Forget this session ({0}, {1}, #{2})', label, g.project, g.sessionId),
              title: l10n.t('Forget this session'),
              onclick: () => cb.forgetSession(g),
            },
            icon('trash'),
          ),
        ),
        h('ul', { class: 'items', 'aria-labelledby': headId }, g.entries.map((e) => entryItem(e, opts, cb))),
      ),
    );
  }
  return root;
}

export function renderRows(rows: Row[], opts: ListOptions, cb: ListCallbacks, label: string): HTMLElement {
  return h(
    'ul',
    { class: 'items', 'aria-label': label },
    rows.map((r) => {
      const sub = [
        opts.showProject ? r.project : '',
        r.team ? l10n.t('by {0}', teamLabel(r.team)) : '',
        typeLabel(r.type),
        r.score !== undefined ? l10n.t('score {0}', r.score.toFixed(2)) : '',
        r.readTokens !== undefined ? l10n.t('~{0} tokens', r.readTokens) : '',
      ]
        .filter(Boolean)
        .join(' · ');
      const body = [
        icon(typeIcon(r.kind === 'observation' ? r.type : r.kind), `t-${r.type}`),
        h(
          'span',
          { class: 'text' },
          h('span', { class: 'sr-only' }, l10n.t('{0}: ', typeLabel(r.kind === 'observation' ? r.type : r.kind))),
          h('span', { class: 'title' }, r.title, staleBadge(r.stale) ?? confirmedBadge(r.confirmed)),
          r.snippet ? h('span', { class: 'snippet' }, snippetParts(r.snippet).map((p) => (p.match ? h('mark', null, p.text) : p.text))) : null,
          h('span', { class: 'sub' }, sub),
        ),
        h('span', { class: 'time' }, relativeTime(r.at)),
      ];
      if (r.kind !== 'observation') return h('li', { class: `item ${r.kind}${r.anchor ? ' anchor' : ''}` }, body);
      return h(
        'li',
        null,
        h(
          'button',
          {
            type: 'button',
            class: `item obs${r.anchor ? ' anchor' : ''}${opts.fresh.has(r.key) ? ' fresh' : ''}`,
            'data-key': r.key,
            'data-id': r.id,
            tabindex: -1,
            'aria-current': opts.selectedId === r.id ? 'true' : undefined,
            'aria-keyshortcuts': 'Enter Delete',
            title: fullTime(r.at),
            onclick: () => cb.open(r.id),
          },
          body,
        ),
      );
    }),
  );
}

/** Arrow keys, Home/End and Delete over the list's rows; exactly one row is in the tab order. */
export function attachRovingNav(container: HTMLElement, cb: Pick<ListCallbacks, 'remove'>): void {
  const rows = () => Array.from(container.querySelectorAll<HTMLElement>('button.item'));
  container.addEventListener('focusin', (e) => {
    const t = e.target as HTMLElement;
    if (!t.matches('button.item')) return;
    for (const r of rows()) r.tabIndex = r === t ? 0 : -1;
  });
  container.addEventListener('keydown', (e) => {
    const t = e.target as HTMLElement;
    if (!t.matches('button.item')) return;
    const list = rows();
    const i = list.indexOf(t);
    let next: HTMLElement | undefined;
    switch (e.key) {
      case 'ArrowDown':
        next = list[Math.min(i + 1, list.length - 1)];
        break;
      case 'ArrowUp':
        next = list[Math.max(i - 1, 0)];
        break;
      case 'Home':
        next = list[0];
        break;
      case 'End':
        next = list[list.length - 1];
        break;
      case 'Delete':
        e.preventDefault();
        cb.remove(Number(t.dataset.id));
        return;
      default:
        return;
    }
    e.preventDefault();
    next?.focus();
  });
}

/** After a re-render: keep one row tabbable (the one focused before, the selected one, or the first). */
export function settleTabStop(container: HTMLElement, focusKey: string | undefined, selectedId: number | undefined): void {
  const list = Array.from(container.querySelectorAll<HTMLElement>('button.item'));
  const target = (focusKey && list.find((r) => r.dataset.key === focusKey)) || list.find((r) => Number(r.dataset.id) === selectedId) || list[0];
  for (const r of list) r.tabIndex = r === target ? 0 : -1;
  if (focusKey && target && target.dataset.key === focusKey) target.focus({ preventScroll: true });
}
