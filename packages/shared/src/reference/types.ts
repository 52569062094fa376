/**
 * One shape for every reference list: `{ id, name }`, so that a console select, a tree picker and a
 * report label all read the same two fields whatever the list is.
 */
export interface ReferenceItem<Id extends string | number = string> {
  readonly id: Id;
  readonly name: string;
}

/** A two-level tree (IAB categories, regions): a parent with its children. */
export interface ReferenceTree<Id extends string = string, ChildId extends string = string> extends ReferenceItem<Id> {
  readonly children: readonly ReferenceItem<ChildId>[];
}
