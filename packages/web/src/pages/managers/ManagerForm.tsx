import { type ResourceFormProps } from '../../resources/ResourceDrawer.js';
import { AccountFields } from '../accounts/AccountFields.js';

/** A manager: a team member who signs in to the tenant's console (no company or domain of its own). */
export function ManagerForm({ row }: ResourceFormProps) {
  return <AccountFields kind="managers" row={row} company={false} />;
}
