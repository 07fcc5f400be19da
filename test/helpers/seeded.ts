// Seeded test data: the same numbers every run (a linear congruential generator), and words drawn
// from a vocabulary with the first ones commonest (rand() squared), as word frequencies in notes are.

export function seededWords(seed: number, vocab: readonly string[]): { rand: () => number; words: (n: number) => string } {
  let s = seed;
  const rand = () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
  const words = (n: number) => Array.from({ length: n }, () => vocab[Math.floor(rand() ** 2 * vocab.length)]).join(' ');
  return { rand, words };
}
