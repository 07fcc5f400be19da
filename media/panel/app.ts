// The Memory panel app: one codebase for the VS Code webview and the browser viewer. A thin
// composition: the state (state.ts), what the panel does (actions.ts: it asks the transport, which
// does the talking, and reacts to the live event stream) and the views (ui/panel.ts and the parts
// under ui/), which subscribe to the state: the actions never call a view.
import { PanelActions } from './actions';
import { PanelState } from './state';
import { Timers } from './timers';
import type { Transport } from './transport';
import { PanelView } from './ui/panel';

export class App {
  private readonly state = new PanelState();
  private readonly timers = new Timers();
  private readonly actions: PanelActions;
  private readonly view: PanelView;

  constructor(
    private readonly t: Transport,
    private readonly root: HTMLElement,
  ) {
    this.actions = new PanelActions(this.state, t, this.timers);
    this.view = new PanelView(this.state, this.actions, this.timers, t.host, root);
  }

  async start(): Promise<void> {
    const { state, actions, view } = this;
    view.build();
    state.info = await this.t.start({
      event: (e) => actions.onEvent(e),
      connection: (s, d) => actions.onConnection(s, d),
      capture: (paused) => {
        state.capturePaused = paused;
        state.changed({ part: 'header' });
      },
    });
    state.project = state.info.project;
    state.capturePaused = state.info.capturePaused;
    state.changed({ part: 'defaultProject', project: state.project });
    state.changed({ part: 'header' });
    this.root.removeAttribute('aria-busy');
    await Promise.all([actions.loadProjects(), actions.reload()]);
  }
}
