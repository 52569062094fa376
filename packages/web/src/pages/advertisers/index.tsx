import { RESOURCES } from '@adplane/shared';
import { ResourceListPage } from '../../resources/ResourceListPage.js';
import { accountDefaults, accountToBody, accountToForm } from '../accounts/AccountFields.js';
import { ADVERTISER_GROUPS, useAssignedCountColumn, useEntitledGroups } from '../accounts/assigned.js';
import { accountColumns } from '../accounts/columns.js';
import { AdvertiserForm } from './AdvertiserForm.js';

/** Advertisers: brands the tenant serves; each signs in to see the tags, campaigns and creatives assigned to it. */
export default function AdvertisersPage() {
  const tags = useAssignedCountColumn(ADVERTISER_GROUPS[0]);
  const campaigns = useAssignedCountColumn(ADVERTISER_GROUPS[1]);
  const creatives = useAssignedCountColumn(ADVERTISER_GROUPS[2]);
  // Campaigns and creatives only for a tenant with the DSP view (their lists are refused otherwise).
  const shown = new Set(useEntitledGroups(ADVERTISER_GROUPS).map((g) => g.list));
  const counts = [tags, campaigns, creatives].filter((_, i) => shown.has(ADVERTISER_GROUPS[i].list));
  return (
    <ResourceListPage
      def={RESOURCES.advs}
      columns={[...accountColumns({ domain: true }), ...counts]}
      FormBody={AdvertiserForm}
      defaults={accountDefaults}
      toForm={accountToForm}
      toBody={accountToBody}
      canDuplicate={false}
      // With the domain the list is wider than a 1280 px window: it waits in the column chooser, with the e-mail and company.
      defaultHidden={['updatedAt', 'email', 'companyName', 'domain']}
    />
  );
}
