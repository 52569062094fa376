import { type AdsTxtCheckStatus, type AdsTxtFileName } from '@adplane/shared';

/**
 * The words of the channel's ads.txt section, by the file the line goes in: a web channel's publisher
 * adds it to its site's ads.txt; an app's (in-app, CTV) to the app-ads.txt of the developer's website,
 * the one the app's store listing links to (IAB app-ads.txt), so the check asks for that domain.
 */
export interface AdsTxtTexts {
  title: string;
  loadError: string;
  /** Before "seller id of ...". */
  intro: string;
  checkTitle: string;
  /** The domain field's placeholder and accessible name. */
  placeholder: string;
  fieldLabel: string;
  /** Under the field: which file is read on that domain; null when it goes without saying. */
  hint: string | null;
  results: Record<AdsTxtCheckStatus, string>;
}

const results = (file: AdsTxtFileName): Record<AdsTxtCheckStatus, string> => ({
  found: `The line is in the ${file}`,
  relationship_differs: 'Found, with the other relationship',
  missing: `The line is not in the ${file}`,
  not_adstxt: `No ${file} there`,
  unreachable: `The ${file} could not be read`,
});

const WEB: AdsTxtTexts = {
  title: 'ads.txt',
  loadError: 'The ads.txt line could not be loaded',
  intro: 'The line the publisher adds to the ads.txt of its site',
  checkTitle: "Check a publisher's ads.txt",
  placeholder: 'publisher.com',
  fieldLabel: 'Publisher domain',
  hint: null,
  results: results('ads.txt'),
};

const APP: AdsTxtTexts = {
  title: 'app-ads.txt',
  loadError: 'The app-ads.txt line could not be loaded',
  intro:
    "The line the app's developer adds to the app-ads.txt of its website (the one the app's store listing links to)",
  checkTitle: "Check a developer's app-ads.txt",
  placeholder: "Developer website domain (from the app's store listing)",
  fieldLabel: "Developer website domain (from the app's store listing)",
  hint: "Read from /app-ads.txt on that domain, without www. or m.; a subdomain's own file first, else its parent domain's.",
  results: results('app-ads.txt'),
};

export const adsTxtTexts = (file: AdsTxtFileName): AdsTxtTexts => (file === 'app-ads.txt' ? APP : WEB);
