import { useEffect, useRef, useState } from 'react';
import { App, Form, Input, Modal, Spin } from 'antd';
import { type AppConfig } from '@adplane/shared';
import { api } from '../api/client.js';
import { notifyLoadError, notifySaveError } from '../errors/notify.js';
import { formSnapshot, useDiscardGuard } from '../resources/discardGuard.js';
import {
  CONFIG_FIELDS,
  configFieldError,
  formatConfigValue,
  parseConfigForm,
  type ConfigFormValues,
} from './configForm.js';

const CONFIG_TITLE = 'Application Config';

interface Props {
  open: boolean;
  onClose: () => void;
}

/** 'Application Config' for admins: monthly post-bid limits, GET then PUT /api/admin/config. */
export function ConfigModal({ open, onClose }: Props) {
  const { message } = App.useApp();
  const [form] = Form.useForm<ConfigFormValues>();
  const [loading, setLoading] = useState(false);
  const [saving, setSaving] = useState(false);
  // Closing with changes asks first: the baseline is the config as loaded.
  const edited = useRef(false);
  const baseline = useRef<string | null>(null);
  const requestClose = useDiscardGuard({
    open,
    isDirty: () => edited.current && formSnapshot(form.getFieldsValue(true)) !== baseline.current,
    close: onClose,
  });

  useEffect(() => {
    if (!open) return;
    let active = true;
    form.resetFields();
    edited.current = false;
    setLoading(true);
    api
      .get<AppConfig>('/api/admin/config')
      .then((config) => {
        if (!active) return;
        form.setFieldsValue({
          postbidMaxImps: formatConfigValue(config?.postbidMaxImps),
          postbidMaxReps: formatConfigValue(config?.postbidMaxReps),
        });
        baseline.current = formSnapshot(form.getFieldsValue(true));
      })
      .catch((error: unknown) => {
        if (active) notifyLoadError(error);
      })
      .finally(() => {
        if (active) setLoading(false);
      });
    return () => {
      active = false;
    };
  }, [open, form]);

  const save = async () => {
    let values: ConfigFormValues;
    try {
      values = await form.validateFields();
    } catch {
      return;
    }
    const parsed = parseConfigForm(values);
    if (!parsed.ok) return;
    setSaving(true);
    try {
      await api.put('/api/admin/config', parsed.value);
      void message.success('Application config saved');
      onClose();
    } catch (error) {
      notifySaveError(error);
    } finally {
      setSaving(false);
    }
  };

  const okButtonProps = { loading: saving, disabled: loading, 'data-testid': 'config-save' };

  return (
    <Modal
      title={CONFIG_TITLE}
      open={open}
      onCancel={requestClose}
      onOk={() => void save()}
      okText="Save"
      okButtonProps={okButtonProps}
      forceRender
      width={520}
      data-testid="config-modal"
    >
      <Spin spinning={loading}>
        <Form
          form={form}
          layout="vertical"
          requiredMark={false}
          // nothing can be typed before the config arrives: its values would overwrite what was typed
          disabled={loading}
          onFinish={() => void save()}
          onValuesChange={() => {
            edited.current = true;
          }}
        >
          {CONFIG_FIELDS.map(({ name, label }) => (
            <Form.Item
              key={name}
              name={name}
              label={label}
              extra="Commas, dots and spaces are ignored; empty means 0."
              rules={[
                {
                  validator: (_rule, value: string | undefined) => {
                    const error = configFieldError(value);
                    return error ? Promise.reject(new Error(error)) : Promise.resolve();
                  },
                },
              ]}
            >
              <Input inputMode="numeric" autoComplete="off" data-testid={`config-${name}`} />
            </Form.Item>
          ))}
          <button type="submit" hidden aria-hidden="true" tabIndex={-1} />
        </Form>
      </Spin>
    </Modal>
  );
}
