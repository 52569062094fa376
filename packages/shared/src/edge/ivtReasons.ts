/**
 * The reasons a request is flagged as invalid traffic: stable codes (they go into counters, logs and
 * reports), in the order the check tries them. `givt` marks the general invalid traffic the MRC's
 * IVT guidelines expect every ad server to filter (known crawlers, data centres, malformed data);
 * `sivt` the signs of misrepresentation that take a rule about the request as a whole. Here so that
 * the edge that flags and the console that shows a decision trace read one table.
 */
export const IVT_REASONS = {
  empty_user_agent: { category: 'givt', label: 'No user agent' },
  malformed_ip: { category: 'givt', label: 'Malformed IP address' },
  private_ip: { category: 'givt', label: 'Private or reserved IP address' },
  known_crawler: { category: 'givt', label: 'Known crawler or spider' },
  bot_user_agent: { category: 'givt', label: 'Bot, automation tool or HTTP library' },
  datacenter_ip: { category: 'givt', label: 'Data centre or cloud IP address' },
  invalid_device_id: { category: 'givt', label: 'Malformed device id' },
  zero_device_id: { category: 'givt', label: 'All-zero device id without limited ad tracking' },
  invalid_bundle: { category: 'givt', label: 'Implausible app bundle' },
  app_without_bundle: { category: 'givt', label: 'App request without a bundle' },
  invalid_store_url: { category: 'givt', label: 'Malformed app store URL' },
  ua_device_mismatch: { category: 'sivt', label: 'Stated device type contradicts the user agent' },
  ua_os_mismatch: { category: 'sivt', label: 'Stated OS contradicts the user agent' },
  app_os_mismatch: { category: 'sivt', label: "App's store id or store URL contradicts the user agent's OS" },
  device_rate: { category: 'sivt', label: 'Impossible request rate for one device' },
  ip_ua_rate: { category: 'sivt', label: 'Impossible request rate for one IP address and user agent' },
} as const satisfies Record<string, { category: 'givt' | 'sivt'; label: string }>;

export type IvtReason = keyof typeof IVT_REASONS;
