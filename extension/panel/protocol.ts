// The panel's protocol lives in common/contract/panel.ts; this module re-exports the contract for
// the extension's panel host.
export * from '../../common/contract';
