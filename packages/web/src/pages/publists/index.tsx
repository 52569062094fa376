import { AllowListPage } from '../lists/AllowListPage.js';

/** /publists: one kind of the shared allow/block list page. */
export default function PubListsPage() {
  return <AllowListPage kind="publists" />;
}
