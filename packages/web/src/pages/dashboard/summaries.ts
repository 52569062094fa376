/** One line per console page, so that the dashboard says what each section is for. */
export const PAGE_SUMMARIES: Record<string, string> = {
  '/demands': 'Demand accounts: prices, flags, impersonation',
  '/users': 'Admins and SDK users, and who may sign in how',
  '/tooltips': 'Help texts shown next to form fields',
  '/tags': 'Ad tags sold to players and apps',
  '/creatives': 'Video and display creatives of campaigns',
  '/campaigns': 'Budgets, pacing, flights and bids',
  '/adexchanges': 'OpenRTB exchanges and header-bidding partners',
  '/advertisers': 'Advertiser accounts and their logins',
  '/channels': 'Supply channels and their floors',
  '/subpublishers': 'Publishers reselling your supply',
  '/suppliers': 'Supply partners that send bid requests',
  '/applists': 'Allow and block lists of app bundles',
  '/iplists': "Allow and block lists of viewers' addresses",
  '/targetings': 'Reusable geo, device and content targeting',
  '/ivts': "Invalid-traffic vendors' pixels, pre- and post-bid",
  '/crelists': 'Lists of creatives for targeting',
  '/publists': 'Lists of publishers for targeting',
  '/deals': 'Private marketplace deals',
  '/sdk': 'SDK integrations and keys',
  '/report': 'Build a report: dimensions, metrics, dates',
  '/reports': 'Reports you saved or scheduled',
  '/report?store=1': 'Today by marketplace, in a new tab',
  '/pbReport': 'Post-bid (IVT) numbers of your traffic',
  '/finance': 'Revenue, cost and platform fees by account',
  '/log': 'Who changed what, and when',
  '/managers': 'Account managers of your team',
};

export const SECTION_SUMMARIES: Record<string, string> = {
  'menu-demand': 'What you sell and buy',
  'menu-supply': 'Where the traffic comes from',
  'menu-targeting': 'Who sees what',
  'menu-reports': 'Numbers',
  'insight-hub': 'Analytics',
};

/** 'Good morning' and friends, by the browser's local hour. */
export function greeting(now: Date): string {
  const hour = now.getHours();
  if (hour < 5) return 'Good evening';
  if (hour < 12) return 'Good morning';
  if (hour < 18) return 'Good afternoon';
  return 'Good evening';
}
