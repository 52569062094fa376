import { type JsonSchema, type JsonType } from './jsonSchema.js';

export type PartnerParamType = Exclude<JsonType, 'null'>;

/**
 * One parameter of a partner, as the console's form needs it; derived from the partner's JSON Schema
 * by `describePartnerParams` (the schema stays the source of truth for validation).
 */
export interface PartnerParam {
  readonly name: string;
  /** The input to show: the numeric type when the parameter takes a number at all (ids are typed as numbers), else the first listed. */
  readonly type: PartnerParamType;
  /** Every JSON type the parameter accepts: rubicon's accountId takes `['integer', 'string']`. */
  readonly types: readonly PartnerParamType[];
  /** Takes a number (integer or decimal): "placement, zone, account and site ids of some partners". */
  readonly numeric: boolean;
  /** Needed in every accepted combination of parameters (see `PartnerDefinition.requiredSets`). */
  readonly required: boolean;
  readonly description: string;
  /** The schema's own text calls it deprecated (usually an old spelling kept beside the new one). */
  readonly deprecated: boolean;
  readonly enum?: readonly (string | number | boolean)[];
  /** Only when the parameter takes text: JSON Schema applies a pattern to strings only. */
  readonly pattern?: string;
  readonly format?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  /** For a list: the type of its items. */
  readonly itemType?: PartnerParamType;
  /** Parameters that must be set too once this one is set. */
  readonly requires?: readonly string[];
  /** For an object with declared properties: those properties, described the same way. */
  readonly fields?: readonly PartnerParam[];
  /** For such an object with required rules: its required combinations, as `PartnerDefinition.requiredSets`. */
  readonly requiredSets?: readonly (readonly string[])[];
}

/** A demand partner of the catalogue with the parameters it takes for an ad slot. */
export interface PartnerDefinition {
  /** The partner's bidder code, as Prebid names it: `pubmatic`, `appnexus`, `33across`. */
  readonly id: string;
  readonly name: string;
  /** Has a Prebid variant (see ./catalogue.ts for the rule). */
  readonly prebid: boolean;
  /** The id of that variant, `pubmaticP` for `pubmatic`; null when there is none. */
  readonly prebidVariantId: string | null;
  readonly params: readonly PartnerParam[];
  /**
   * The combinations of parameters that satisfy the schema's required rules, one list per alternative:
   * `[['publisherId']]` for pubmatic, `[['unit', 'delDomain'], ['unit', 'platform']]` for openx.
   */
  readonly requiredSets: readonly (readonly string[])[];
  /** The partner's JSON Schema as published, used to validate its parameters. */
  readonly schema: JsonSchema;
}
