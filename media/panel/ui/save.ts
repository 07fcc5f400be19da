// "Save a memory": a note written by hand, stored at once as an observation.
import { h, icon } from '../dom';
import { l10n } from '../l10n';

export interface SaveForm {
  element: HTMLElement;
  /** The project new memories go to when the field is empty. */
  setDefaultProject(project: string | undefined): void;
}

export interface SaveValues {
  text: string;
  title?: string;
  project?: string;
}

type Field = HTMLElement & { value: string; invalid?: boolean };

export function saveForm(submit: (v: SaveValues) => Promise<string>): SaveForm {
  const title = h('vscode-textfield', { id: 'save-title', class: 'save-title', label: l10n.t('Title (optional)'), placeholder: l10n.t('A short title') }) as Field;
  const text = h('vscode-textarea', {
    id: 'save-text',
    class: 'save-text',
    label: l10n.t('Memory'),
    rows: 6,
    resize: 'vertical',
    placeholder: l10n.t('What should future sessions remember? e.g. "We use pnpm, not npm; the API base URL is set in .env.local."'),
  }) as Field;
  const project = h('vscode-textfield', { id: 'save-project', class: 'save-project', label: l10n.t('Project'), placeholder: l10n.t('default') }) as Field;
  const result = h('p', { class: 'save-result', role: 'status' });
  const button = h('vscode-button', { class: 'save-button' }, icon('save'), ` ${l10n.t('Save memory')}`);
  let busy = false;
  let projectEdited = false;
  project.addEventListener('input', () => (projectEdited = true));
  const run = async () => {
    if (busy) return;
    const value = text.value.trim();
    if (!value) {
      text.invalid = true;
      result.textContent = l10n.t('Write the memory first: the text cannot be empty.');
      text.focus();
      return;
    }
    text.invalid = false;
    busy = true;
    button.setAttribute('disabled', '');
    result.textContent = l10n.t('Saving…');
    try {
      result.textContent = await submit({ text: value, title: title.value.trim() || undefined, project: project.value.trim() || undefined });
      text.value = '';
      title.value = '';
    } catch (e) {
      result.textContent = l10n.t('Not saved: {0}', (e as Error).message);
    } finally {
      busy = false;
      button.removeAttribute('disabled');
    }
  };
  button.addEventListener('click', () => void run());
  text.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      void run();
    }
  });
  const element = h(
    'form',
    { class: 'save-form', 'aria-label': l10n.t('Save a memory'), onsubmit: (e: Event) => e.preventDefault() },
    h('p', { class: 'muted' }, l10n.t('Save something worth remembering. It is stored at once, searchable, and given back as context in new sessions.')),
    h('div', { class: 'field' }, h('label', { for: 'save-title' }, l10n.t('Title')), title),
    h('div', { class: 'field' }, h('label', { for: 'save-text' }, l10n.t('Memory (Ctrl+Enter saves)')), text),
    h('div', { class: 'field' }, h('label', { for: 'save-project' }, l10n.t('Project')), project),
    h('div', { class: 'actions' }, button),
    result,
  );
  return {
    element,
    setDefaultProject(p) {
      if (!projectEdited) project.value = p ?? '';
    },
  };
}
