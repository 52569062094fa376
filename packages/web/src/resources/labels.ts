/** A kind's label inside a sentence: `Ad Exchange` -> `ad exchange`, while acronyms stay (`SDK App` -> `SDK app`). */
export function inSentence(label: string): string {
  return label.replace(/\b[A-Z][a-z]+\b/g, (word) => word.toLowerCase());
}
