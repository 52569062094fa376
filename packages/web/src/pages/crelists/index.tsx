import { AllowListPage } from '../lists/AllowListPage.js';

/** /crelists: one kind of the shared allow/block list page. */
export default function CreListsPage() {
  return <AllowListPage kind="crelists" />;
}
