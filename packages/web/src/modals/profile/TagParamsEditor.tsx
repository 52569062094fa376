import { useState } from 'react';
import { Button, Empty, Form, Input, Modal, Tag, Typography } from 'antd';
import { CloseOutlined, PlusOutlined } from '@ant-design/icons';
import { TagParamName } from '@adplane/shared';

const ADD_TAG_PARAMETER = 'Add Tag Parameter';

interface Props {
  /** Injected by Form.Item. */
  value?: string[];
  onChange?: (value: string[]) => void;
  readOnly: boolean;
  /** OK of the add dialog is disabled while an admin is impersonating. */
  impersonating: boolean;
}

/** The tenant's extra tag parameters: a list with remove buttons and an 'Add Tag Parameter' dialog. */
export function TagParamsEditor({ value = [], onChange, readOnly, impersonating }: Props) {
  const [adding, setAdding] = useState(false);
  return (
    <div className="tag-params" data-testid="tag-params">
      <Typography.Paragraph type="secondary">
        Query parameters that every tag of the account passes through to demand.
      </Typography.Paragraph>
      {value.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description="No tag parameters" />
      ) : (
        <div className="tag-params-list">
          {value.map((param) => (
            <Tag
              key={param}
              className="tag-param"
              data-testid="tag-param"
              closable={readOnly ? false : { closeIcon: <CloseOutlined aria-label={`Remove ${param}`} /> }}
              onClose={(event) => {
                event.preventDefault();
                onChange?.(value.filter((p) => p !== param));
              }}
            >
              {param}
            </Tag>
          ))}
        </div>
      )}
      {!readOnly && (
        <Button
          className="tag-params-add"
          icon={<PlusOutlined />}
          onClick={() => setAdding(true)}
          data-testid="tag-param-add"
        >
          {ADD_TAG_PARAMETER}
        </Button>
      )}
      <AddTagParamDialog
        open={adding}
        existing={value}
        impersonating={impersonating}
        onCancel={() => setAdding(false)}
        onAdd={(name) => {
          onChange?.([...value, name]);
          setAdding(false);
        }}
      />
    </div>
  );
}

interface DialogProps {
  open: boolean;
  existing: readonly string[];
  impersonating: boolean;
  onCancel: () => void;
  onAdd: (name: string) => void;
}

function AddTagParamDialog({ open, existing, impersonating, onCancel, onAdd }: DialogProps) {
  const [form] = Form.useForm<{ name: string }>();
  const submit = async () => {
    try {
      const { name } = await form.validateFields();
      onAdd(name.trim());
      form.resetFields();
    } catch {
      // The field shows what is wrong.
    }
  };
  const okButtonProps = { disabled: impersonating, 'data-testid': 'tag-param-ok' };
  return (
    <Modal
      title={ADD_TAG_PARAMETER}
      open={open}
      onCancel={() => {
        form.resetFields();
        onCancel();
      }}
      onOk={() => void submit()}
      okText="Add"
      okButtonProps={okButtonProps}
      // Not forceRender: a closed modal kept rendered stays on antd's Escape stack above the Profile
      // modal it sits in, and Escape would then close nothing.
      destroyOnHidden
      width={400}
    >
      <Form form={form} layout="vertical" requiredMark={false} onFinish={() => void submit()}>
        <Form.Item
          name="name"
          label="Parameter Name"
          rules={[
            {
              validator: (_rule, raw: string | undefined) => {
                const parsed = TagParamName.safeParse(raw ?? '');
                if (!parsed.success)
                  return Promise.reject(new Error(`Parameter name ${parsed.error.issues[0]?.message ?? 'is invalid'}`));
                if (existing.includes(parsed.data))
                  return Promise.reject(new Error('This parameter is already in the list'));
                return Promise.resolve();
              },
            },
          ]}
        >
          <Input autoFocus maxLength={64} placeholder="e.g. content_genre" data-testid="tag-param-name" />
        </Form.Item>
        {impersonating && (
          <Typography.Paragraph type="warning" data-testid="tag-param-impersonating">
            Tag parameters cannot be added while an admin is acting as this user.
          </Typography.Paragraph>
        )}
      </Form>
    </Modal>
  );
}
