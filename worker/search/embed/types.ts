// What search needs from any embedding source: local model thread, remote API or a cache around either.

export interface Embedder {
  /** Identifies the model; stored next to vectors so a model change can trigger a re-embed. */
  readonly name: string;
  /** One vector per text, same order. An empty input gives an empty output. */
  embed(texts: string[]): Promise<Float32Array[]>;
  close(): Promise<void>;
}
