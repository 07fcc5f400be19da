// UI-driving helper: a fresh code-server with the given extensions, Chromium on its
// workbench, and named steps whose failures leave screenshots. The server and browser
// are closed afterwards whatever happens.
import { openSession, type Session, type SessionOptions } from './session';

export type PageSessionOptions = Omit<SessionOptions, 'payload' | 'beforeOpen'>;

export interface PageContext extends Session {
  /** Runs a named step; a failure screenshots the page and names the step. */
  step<T>(name: string, fn: () => Promise<T> | T): Promise<T>;
  /** Saves test-artifacts/e2e/<suite>/<nn>-<name>.png. */
  screenshot(name: string): Promise<string | undefined>;
}

export async function withCodeServerPage<T>(opts: PageSessionOptions, fn: (ctx: PageContext) => Promise<T>): Promise<T> {
  const session = await openSession(opts);
  try {
    const ctx: PageContext = {
      ...session,
      step: (name, f) => session.steps.step(name, f),
      screenshot: (name) => session.steps.screenshot(name),
    };
    return await fn(ctx);
  } finally {
    await session.close();
  }
}
