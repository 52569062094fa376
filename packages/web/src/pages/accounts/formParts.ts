/** Form pieces the SSP, account and SDK forms share. */

/** A 0/1 status as an on/off switch. */
export const statusSwitch = {
  valuePropName: 'checked',
  getValueProps: (v: unknown) => ({ checked: v === 1 }),
  normalize: (checked: boolean) => (checked ? 1 : 0),
} as const;

/** Same rule as the API's domain fields: empty, or a host name such as example.com. */
export const DOMAIN_RULE = {
  pattern: /^$|^(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/i,
  message: 'Enter a domain such as example.com',
};
