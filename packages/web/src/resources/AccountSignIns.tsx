import { Collapse } from 'antd';
import { type ResourceDef } from '@adplane/shared';
import { useUser } from '../auth/authContext.js';
import { SignInLog } from '../components/SignInLog.js';

const ACCOUNT_KINDS: ReadonlySet<string> = new Set(['demands', 'managers', 'subs', 'advs']);

/** An admin's view of an account's sign-in log in the account's drawer (GET /api/users/:id/signIns); nothing for anyone else. */
export function AccountSignIns({ def, id }: { def: ResourceDef; id: number }) {
  const user = useUser();
  if (user.type !== 'admin' || !ACCOUNT_KINDS.has(def.kind)) return null;
  return (
    <Collapse
      size="small"
      style={{ marginTop: 16 }}
      data-testid="account-sign-ins"
      destroyOnHidden
      items={[{ key: 'signIns', label: 'Sign-in log', children: <SignInLog path={`/api/users/${id}/signIns`} /> }]}
    />
  );
}
