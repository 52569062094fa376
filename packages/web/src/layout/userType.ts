import { type UserType } from '@adplane/shared';

const LABELS: Record<UserType, string> = {
  admin: 'Admin',
  demand: 'Demand',
  sub: 'Subpublisher',
  adv: 'Advertiser',
  sdk: 'SDK',
};

/** The account type as people say it. */
export function userTypeLabel(type: UserType): string {
  return LABELS[type] ?? type;
}
