/**
 * What snapshot builds made of each row, for the next build to keep: a row that did not change is
 * the same parsed object (parsedRows.ts), and when what else the object was made from is the same
 * too (`stillValid`: its owners' values, the compiled objects it points to), the object made from it
 * is kept instead of made again. Unchanged campaigns, creatives and targetings then stay the same
 * objects from build to build: a rebuild allocates for what changed, and memoised views of them
 * (day-part rules) stay valid. Held weakly by row: a row the store dropped, or
 * parsed again after a change, lets go of what was made from it.
 */
export class Kept<Row extends object, Made> implements KeepsMade<Row, Made> {
  private readonly made = new WeakMap<Row, Made>();

  /** The object last made from `row` while `stillValid` says so, else what `make` makes now. */
  take(row: Row, stillValid: (made: Made) => boolean, make: () => Made): Made {
    const last = this.made.get(row);
    if (last !== undefined && stillValid(last)) return last;
    const made = make();
    this.made.set(row, made);
    return made;
  }
}

/** What keeps the objects builds made, for the next build to take again (Kept; campaignBook.ts's CampaignBook). */
export interface KeepsMade<Row, Made> {
  take(row: Row, stillValid: (made: Made) => boolean, make: () => Made): Made;
  /** A build is over and `made` is all it made or kept: the rest is let go. */
  settle?(made: ReadonlyMap<number, Made>): void;
}

/** Whether two lists hold the same objects in the same order (what a kept object was made from, against what it would be made from now). */
export function sameElements<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
