import { useEffect, useState } from 'react';
import { Table, Tag } from 'antd';
import { type SignInEntry } from '@adplane/shared';
import { api } from '../api/client.js';
import { notifyLoadError } from '../errors/notify.js';
import { useClock } from '../format/clock.js';

const OUTCOMES: Record<SignInEntry['outcome'], { label: string; color: string }> = {
  success: { label: 'Signed in', color: 'green' },
  failure: { label: 'Refused', color: 'red' },
  password_changed: { label: 'Password changed', color: 'blue' },
  password_reset: { label: 'Password reset by link', color: 'purple' },
};

const REASONS: Record<NonNullable<SignInEntry['reason']>, string> = {
  bad_password: 'wrong password',
  bad_code: 'wrong or reused two-factor code',
  throttled: 'too many failures',
  disabled: 'account disabled',
  archived: 'account archived',
};

/**
 * An account's sign-in log (the last 90 days, newest first): when, from which address and browser,
 * and what came of it. `path` is /api/auth/signIns (one's own) or /api/users/:id/signIns (an admin's view).
 */
export function SignInLog({ path }: { path: string }) {
  const clock = useClock();
  const [items, setItems] = useState<SignInEntry[] | null>(null);
  useEffect(() => {
    let active = true;
    api
      .get<{ items: SignInEntry[] }>(path)
      .then((answer) => active && setItems(answer.items))
      .catch((error: unknown) => {
        if (!active) return;
        notifyLoadError(error);
        setItems([]);
      });
    return () => {
      active = false;
    };
  }, [path]);
  return (
    <Table<SignInEntry>
      size="small"
      loading={items === null}
      dataSource={items ?? []}
      rowKey={(row) => `${row.at}-${row.outcome}-${row.ip ?? ''}`}
      pagination={{ pageSize: 10, hideOnSinglePage: true }}
      data-testid="sign-in-log"
      locale={{ emptyText: 'No sign-ins in the last 90 days' }}
      columns={[
        { title: 'When', dataIndex: 'at', render: (at: string) => clock(at), width: 190 },
        {
          title: 'What',
          dataIndex: 'outcome',
          render: (outcome: SignInEntry['outcome'], row) => (
            <>
              <Tag color={OUTCOMES[outcome].color}>{OUTCOMES[outcome].label}</Tag>
              {row.reason ? REASONS[row.reason] : null}
            </>
          ),
        },
        { title: 'Address', dataIndex: 'ip', render: (ip: string | null) => ip ?? '' },
        { title: 'Browser', dataIndex: 'userAgent', ellipsis: true, render: (ua: string | null) => ua ?? '' },
      ]}
    />
  );
}
