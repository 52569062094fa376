import { AllowListPage } from '../lists/AllowListPage.js';

/** /applists: one kind of the shared allow/block list page. */
export default function AppListsPage() {
  return <AllowListPage kind="applists" />;
}
