// Module shapes for the media bundle's loaders (esbuild.config.mjs: .css as text, .ttf as a data URL)
// and the function VS Code defines in a webview.
declare module '*.css' {
  const text: string;
  export default text;
}
declare module '*.ttf' {
  const dataUrl: string;
  export default dataUrl;
}

interface VsCodeWebviewApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeWebviewApi;
