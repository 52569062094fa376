import { useCallback, useEffect, useState } from 'react';
import { PlusOutlined } from '@ant-design/icons';
import { App, Button, Card, Drawer, Form, Popconfirm, Radio, Select, Space, Table, Tag, Typography } from 'antd';
import { type PlatformUser } from '@adplane/shared';
import { api, ApiError } from '../../api/client.js';
import { useList } from '../../api/lists.js';
import { useUser } from '../../auth/authContext.js';
import { notifyLoadError, notifySaveError } from '../../errors/notify.js';
import { useClock } from '../../format/clock.js';
import { AccountFields } from '../accounts/AccountFields.js';

type NewUserValues = {
  type: 'admin' | 'sdk';
  name: string;
  username: string;
  email: string;
  password: string;
  status: number;
  tenantId?: number;
};

const TYPE_LABEL: Record<PlatformUser['type'], string> = { admin: 'Admin', sdk: 'SDK user' };

/**
 * Users: the platform's admins and SDK users (GET /api/users), and making new ones (POST
 * /api/users): an SDK user belongs to a demand account, an admin to none, and only the super admin
 * makes admins (the server decides; the choice is greyed out for other admins). Each row can have
 * its two-factor sign-in reset (a lost phone).
 */
export default function UsersPage() {
  const me = useUser();
  const clock = useClock();
  const { message } = App.useApp();
  const demands = useList('demands');
  const [users, setUsers] = useState<PlatformUser[] | null>(null);
  const [creating, setCreating] = useState(false);
  const [saving, setSaving] = useState(false);
  const [form] = Form.useForm<NewUserValues>();
  const type = Form.useWatch('type', form);
  const superAdmin = me.type === 'admin' && !me.disabled;

  const load = useCallback(() => {
    api
      .get<{ items: PlatformUser[] }>('/api/users')
      .then((answer) => setUsers(answer.items))
      .catch((error: unknown) => notifyLoadError(error));
  }, []);
  useEffect(load, [load]);

  const tenantName = (id: number | null) =>
    id === null ? '' : (demands.items.find((d) => d.id === id)?.name ?? `Demand account ${id}`);

  const create = async () => {
    const values = await form.validateFields();
    setSaving(true);
    try {
      const made = await api.post<PlatformUser>('/api/users', {
        ...values,
        tenantId: values.type === 'sdk' ? (values.tenantId ?? null) : null,
      });
      void message.success(`${made.name} created (${TYPE_LABEL[made.type]})`);
      setCreating(false);
      form.resetFields();
      load();
    } catch (error) {
      if (error instanceof ApiError && error.errors.length > 0) {
        form.setFields(error.errors.map((e) => ({ name: e.field as keyof NewUserValues, errors: [e.message] })));
      }
      notifySaveError(error);
    } finally {
      setSaving(false);
    }
  };

  const resetTwoFactor = async (row: PlatformUser) => {
    try {
      const answer = await api.post<{ reset: boolean }>(`/api/users/${row.id}/twoFactor/reset`, {});
      void message.success(
        answer.reset ? `Two-factor sign-in of ${row.name} reset` : `${row.name} had no two-factor sign-in`,
      );
    } catch (error) {
      notifySaveError(error);
    }
  };

  return (
    <Card
      title="Users"
      className="page-card"
      data-testid="page-users"
      extra={
        <Button type="primary" icon={<PlusOutlined />} onClick={() => setCreating(true)} data-testid="users-new">
          New user
        </Button>
      }
    >
      <Typography.Paragraph type="secondary">
        Admins run the whole platform; an SDK user works with the SDK apps of one demand account. Demand accounts and
        their own users are made on the Demands page and by the accounts themselves.
      </Typography.Paragraph>
      <Table<PlatformUser>
        rowKey="id"
        size="middle"
        loading={users === null}
        dataSource={users ?? []}
        pagination={false}
        data-testid="users-table"
        columns={[
          { title: 'Name', dataIndex: 'name' },
          { title: 'Username', dataIndex: 'username' },
          {
            title: 'Type',
            dataIndex: 'type',
            render: (value: PlatformUser['type'], row) => (
              <Space size={4}>
                <Tag color={value === 'admin' ? 'blue' : 'purple'}>{TYPE_LABEL[value]}</Tag>
                {row.uid === 'super' && <Tag color="gold">Super admin</Tag>}
              </Space>
            ),
          },
          { title: 'Demand account', dataIndex: 'tenantId', render: (id: number | null) => tenantName(id) },
          { title: 'E-mail', dataIndex: 'email' },
          {
            title: 'Status',
            dataIndex: 'status',
            render: (status: number) => (status === 1 ? <Tag color="green">Active</Tag> : <Tag>Paused</Tag>),
          },
          { title: 'Created', dataIndex: 'createdAt', render: (at: string) => clock(at) },
          {
            title: '',
            key: 'actions',
            align: 'right',
            render: (_value, row) => (
              <Popconfirm
                title={`Reset the two-factor sign-in of ${row.name}?`}
                description="For a lost phone: the password alone signs in again, or the account enrols anew if its tenant requires it."
                okText="Reset"
                onConfirm={() => void resetTwoFactor(row)}
              >
                <Button size="small" data-testid={`users-reset-2fa-${row.username}`}>
                  Reset two-factor
                </Button>
              </Popconfirm>
            ),
          },
        ]}
      />
      <Drawer
        title="New user"
        open={creating}
        onClose={() => setCreating(false)}
        size={720}
        destroyOnHidden
        data-testid="users-drawer"
        extra={
          <Space>
            <Button onClick={() => setCreating(false)}>Cancel</Button>
            <Button type="primary" loading={saving} onClick={() => void create()} data-testid="users-save">
              Create
            </Button>
          </Space>
        }
      >
        <Form<NewUserValues>
          form={form}
          layout="vertical"
          initialValues={{ type: 'sdk', name: '', username: '', email: '', password: '', status: 1 }}
          data-testid="users-form"
        >
          <Form.Item name="type" label="Type">
            <Radio.Group
              optionType="button"
              buttonStyle="solid"
              options={[
                { value: 'sdk', label: 'SDK user' },
                {
                  value: 'admin',
                  label: 'Admin',
                  disabled: !superAdmin,
                  title: superAdmin ? undefined : 'Only the super admin creates admins',
                },
              ]}
              data-testid="users-type"
            />
          </Form.Item>
          {type !== 'admin' && (
            <Form.Item
              name="tenantId"
              label="Demand account"
              extra="The SDK user works with this account's SDK apps only"
              rules={[{ required: true, message: 'Choose the demand account the SDK user belongs to' }]}
            >
              <Select
                showSearch
                optionFilterProp="label"
                placeholder="Choose a demand account"
                loading={demands.loading}
                options={demands.items.filter((d) => !d.archived).map((d) => ({ value: d.id, label: d.name }))}
                data-testid="users-tenant"
              />
            </Form.Item>
          )}
          <AccountFields kind="managers" row={null} company={false} />
        </Form>
      </Drawer>
    </Card>
  );
}
