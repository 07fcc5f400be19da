// An in-page confirmation dialog (a modal <dialog>: focus stays inside, Escape cancels, focus
// returns where it was). Webviews cannot use window.confirm.
import { h } from '../dom';
import { l10n } from '../l10n';

export interface ConfirmOptions {
  title: string;
  message: string;
  confirmLabel: string;
}

export function confirmDialog(o: ConfirmOptions): Promise<boolean> {
  const before = document.activeElement as HTMLElement | null;
  return new Promise((resolve) => {
    let done = false;
    const finish = (ok: boolean) => {
      if (done) return;
      done = true;
      dialog.close();
      dialog.remove();
      before?.focus?.();
      resolve(ok);
    };
    const cancel = h('vscode-button', { secondary: true, class: 'cancel', onclick: () => finish(false) }, l10n.t('Cancel'));
    const ok = h('vscode-button', { class: 'ok', onclick: () => finish(true) }, o.confirmLabel);
    const titleId = `confirm-title-${Math.random().toString(36).slice(2)}`;
    const dialog = h(
      'dialog',
      { class: 'confirm', 'aria-labelledby': titleId, 'aria-describedby': `${titleId}-msg` },
      h('h2', { id: titleId }, o.title),
      h('p', { id: `${titleId}-msg` }, o.message),
      h('div', { class: 'actions' }, cancel, ok),
    );
    dialog.addEventListener('cancel', (e) => {
      e.preventDefault();
      finish(false);
    });
    document.body.append(dialog);
    dialog.showModal();
    cancel.focus();
  });
}
