import { AllowListPage } from '../lists/AllowListPage.js';

/** /iplists: one kind of the shared allow/block list page. */
export default function IpListsPage() {
  return <AllowListPage kind="iplists" />;
}
