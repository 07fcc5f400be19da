// The contract between the processes: every route's request and reply, the stream events, the
// panel's postMessage protocol, the validators and the observation taxonomy. Every process imports
// it and none re-declares it. No Node-only, vscode or DOM imports: the webview bundles it.
export * from './taxonomy';
export * from './validate';
export * from './routes';
export * from './stream';
export * from './panel';
export * from './replies';
export * from './hooks';
export * from './refs';
