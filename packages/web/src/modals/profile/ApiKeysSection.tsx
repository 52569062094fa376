import { useCallback, useEffect, useState } from 'react';
import { Alert, App, Button, Input, Space, Switch, Table, Tag, Typography } from 'antd';
import { type ApiKey, type ApiKeyList, type CreatedApiKey, formatDateTime } from '@adplane/shared';
import { api, ApiError } from '../../api/client.js';
import { useUser } from '../../auth/authContext.js';
import { notifyLoadError, notifySaveError } from '../../errors/notify.js';

const API_KEYS_PATH = '/api/apiKeys';
export const KEY_SHOWN_ONCE = 'Copy this key now: it will not be shown again. Anyone holding it acts as you.';

/**
 * The user's API keys (GET, POST, DELETE /api/apiKeys): a list, a form that makes a key and shows
 * it once with a copy button, and revoke with a confirmation. Beside the profile form, not in it:
 * a sub or adv user's profile is read-only, their keys are not.
 */
export function ApiKeysSection() {
  const user = useUser();
  const { modal, message } = App.useApp();
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [name, setName] = useState('');
  const [readOnly, setReadOnly] = useState(false);
  const [nameError, setNameError] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const impersonating = user.adminId != null;

  const load = useCallback(async () => {
    try {
      const answer = await api.get<ApiKeyList>(API_KEYS_PATH);
      setKeys(Array.isArray(answer?.keys) ? answer.keys : []);
    } catch (error) {
      notifyLoadError(error);
      setKeys([]);
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load]);

  const create = async () => {
    if (!name.trim()) {
      setNameError('Name the key, e.g. what will use it');
      return;
    }
    setCreating(true);
    try {
      const made = await api.post<CreatedApiKey>(API_KEYS_PATH, { name, readOnly });
      setCreated(made);
      setName('');
      setReadOnly(false);
      setNameError(null);
      await load();
    } catch (error) {
      if (error instanceof ApiError && error.errors.some((e) => e.field === 'name'))
        setNameError(error.errors.find((e) => e.field === 'name')?.message ?? null);
      notifySaveError(error);
    } finally {
      setCreating(false);
    }
  };

  const revoke = (key: ApiKey): void => {
    modal.confirm({
      title: `Revoke the key "${key.name}"?`,
      content: 'Programs using it get 401 from now on. This cannot be undone.',
      okText: 'Revoke',
      okButtonProps: { danger: true },
      cancelText: 'Cancel',
      onOk: async () => {
        try {
          await api.delete(`${API_KEYS_PATH}/${key.id}`);
          if (created?.apiKey.id === key.id) setCreated(null);
          void message.success('API key revoked');
          await load();
        } catch (error) {
          notifySaveError(error);
        }
      },
    });
  };

  const when = (iso: string | null) => (iso ? formatDateTime(iso, user.timezone) : 'never');

  return (
    <section className="api-keys" data-testid="api-keys">
      <Typography.Title level={5}>API keys</Typography.Title>
      <Typography.Paragraph type="secondary">
        Programs call the API with <Typography.Text code>Authorization: Bearer &lt;key&gt;</Typography.Text> and act
        with your rights; a read-only key may only read. The reference is at{' '}
        <a href="/api/docs" target="_blank" rel="noreferrer">
          /api/docs
        </a>
        . (The API token above is another thing: it opens debug traces.)
      </Typography.Paragraph>
      {created && (
        <Alert
          type="warning"
          showIcon
          closable
          onClose={() => setCreated(null)}
          data-testid="api-key-created"
          style={{ marginBottom: 12 }}
          title={`Key "${created.apiKey.name}" made`}
          description={
            <>
              <div>{KEY_SHOWN_ONCE}</div>
              <Typography.Text code copyable={{ tooltips: ['Copy', 'Copied'] }} data-testid="api-key-secret">
                {created.key}
              </Typography.Text>
            </>
          }
        />
      )}
      {impersonating ? (
        <Typography.Paragraph type="secondary" data-testid="api-keys-impersonating">
          Only the user can make their own keys; you are acting for them.
        </Typography.Paragraph>
      ) : (
        <Space align="start" wrap style={{ marginBottom: 12 }}>
          <div>
            <Input
              placeholder="Key name, e.g. nightly report export"
              value={name}
              maxLength={100}
              status={nameError ? 'error' : undefined}
              onChange={(e) => {
                setName(e.target.value);
                setNameError(null);
              }}
              onPressEnter={() => void create()}
              style={{ width: 320 }}
              aria-label="Key name"
              data-testid="api-key-name"
            />
            {nameError && (
              <div className="ant-form-item-explain-error" data-testid="api-key-name-error">
                {nameError}
              </div>
            )}
          </div>
          <Space>
            <Switch checked={readOnly} onChange={setReadOnly} aria-label="Read-only" data-testid="api-key-readonly" />
            <span>Read-only</span>
          </Space>
          <Button type="primary" loading={creating} onClick={() => void create()} data-testid="api-key-create">
            Make key
          </Button>
        </Space>
      )}
      <Table<ApiKey>
        size="small"
        rowKey="id"
        loading={keys === null}
        dataSource={keys ?? []}
        pagination={false}
        locale={{ emptyText: 'No API keys yet' }}
        data-testid="api-keys-table"
        onRow={(key) => ({ 'data-testid': `api-key-row-${key.id}` }) as object}
        columns={[
          { title: 'Name', dataIndex: 'name' },
          { title: 'Key', dataIndex: 'prefix', render: (prefix: string) => <code>{prefix}…</code> },
          {
            title: 'Scope',
            dataIndex: 'readOnly',
            render: (ro: boolean) => (ro ? <Tag>read-only</Tag> : <Tag color="blue">read and write</Tag>),
          },
          { title: 'Created', dataIndex: 'createdAt', render: (v: string) => when(v) },
          { title: 'Last used', dataIndex: 'lastUsedAt', render: (v: string | null) => when(v) },
          {
            title: '',
            key: 'actions',
            render: (_: unknown, key: ApiKey) =>
              key.revokedAt ? (
                <Tag color="red" data-testid="api-key-revoked">
                  revoked {when(key.revokedAt)}
                </Tag>
              ) : (
                <Button size="small" danger onClick={() => revoke(key)} data-testid={`api-key-revoke-${key.id}`}>
                  Revoke
                </Button>
              ),
          },
        ]}
      />
    </section>
  );
}
