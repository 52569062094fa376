import { RESOURCES, RESOURCE_KINDS, type ResourceKind } from '@adplane/shared';

export interface FieldKey {
  key: string;
  kind: ResourceKind;
  field: string;
}

/** Every `<kind>.<field>` a form can show a (?) for: the fields of each kind's API schema. */
export const FIELD_KEYS: readonly FieldKey[] = RESOURCE_KINDS.flatMap((kind) => {
  const shape = (RESOURCES[kind].schema as unknown as { shape?: Record<string, unknown> }).shape ?? {};
  return Object.keys(shape).map((field) => ({ key: `${kind}.${field}`, kind, field }));
});

/** `channels.floorCpm` -> `Channels`: the page whose form shows the tooltip. */
export function formOfKey(key: string): string {
  const kind = key.split('.')[0] as ResourceKind;
  return RESOURCES[kind]?.plural ?? '';
}

/** The shape the API takes: `resource.field`. */
export const TOOLTIP_KEY = /^[a-zA-Z]+\.[a-zA-Z0-9.]+$/;
