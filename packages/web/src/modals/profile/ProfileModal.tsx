import { type ReactNode, useEffect, useRef, useState } from 'react';
import { App, Button, Form, Modal, Spin, Tabs } from 'antd';
import { applyGeneralContactToAll, type Contact, type Profile } from '@adplane/shared';
import { api, ApiError } from '../../api/client.js';
import { useAuth, useUser } from '../../auth/authContext.js';
import { notifyLoadError, notifySaveError } from '../../errors/notify.js';
import { formSnapshot, useDiscardGuard } from '../../resources/discardGuard.js';
import { ReadOnlyView, readOnlyFormProps } from '../../resources/ReadOnlyView.js';
import { ApiKeysSection } from './ApiKeysSection.js';
import { CommonTab } from './CommonTab.js';
import { ContactTab } from './ContactTab.js';
import { OptionsTab } from './OptionsTab.js';
import { PasswordSection } from './PasswordSection.js';
import {
  APPLY_ALL_TITLE,
  APPLY_ALL_WARNING,
  CONTACT_TAB_LABELS,
  formPathOf,
  formToUpdate,
  isReadOnlyProfile,
  needsApplyConfirmation,
  profileTabs,
  profileToForm,
  tabOfField,
  type ProfileFormValues,
  type ProfileTab,
} from './profileForm.js';
import { SellersTab } from './SellersTab.js';
import { TagParamsEditor } from './TagParamsEditor.js';
import { TwoFactorSection } from './TwoFactorSection.js';

const PROFILE_TITLE = 'Profile';
const ACCOUNT_TITLE = 'Sign-in and API keys';
const PROFILE_PATH = '/api/demand/info';

interface Props {
  open: boolean;
  onClose: () => void;
}

type AccountTab = 'profile' | 'apiKeys' | 'password' | 'twoFactor';

/**
 * The signed-in user's own account, one tab each: the profile of a non-admin user (GET and PUT
 * /api/demand/info, with its own tabs and the Save and Cancel that belong to it), the API keys, the
 * password and sign-in log, and two-factor sign-in, which every user manages for themselves. An
 * admin has no profile: the modal opens on the API keys.
 * The profile is read-only for sub and adv users: the values read as text (ReadOnlyView) and there
 * is nothing to save. Save and Cancel sit in a footer that stays in view while the modal scrolls.
 */
export function ProfileModal({ open, onClose }: Props) {
  const user = useUser();
  const hasProfile = user.type !== 'admin';
  // Escape, the mask and the close X go through the editor's guard once it is there (unsaved changes ask first).
  const requestClose = useRef<((event?: unknown) => void) | null>(null);
  const tabs: { key: AccountTab; label: string; children: ReactNode }[] = [
    ...(hasProfile
      ? [
          {
            key: 'profile' as const,
            label: 'Profile',
            children: <ProfileEditor onClose={onClose} closeRequests={requestClose} />,
          },
        ]
      : []),
    { key: 'apiKeys', label: 'API keys', children: <ApiKeysSection /> },
    { key: 'password', label: 'Password and sign-ins', children: <PasswordSection /> },
    { key: 'twoFactor', label: 'Two-factor sign-in', children: <TwoFactorSection /> },
  ];
  return (
    <Modal
      title={hasProfile ? PROFILE_TITLE : ACCOUNT_TITLE}
      open={open}
      onCancel={(event) => (requestClose.current ? requestClose.current(event) : onClose())}
      footer={null}
      width={820}
      destroyOnHidden
      data-testid="profile-modal"
      className="profile-modal"
    >
      {open && (
        <Tabs
          type="card"
          className="profile-account-tabs"
          items={tabs.map((tab) => ({
            key: tab.key,
            label: <span data-testid={`account-tab-${tab.key}`}>{tab.label}</span>,
            children: tab.children,
          }))}
        />
      )}
    </Modal>
  );
}

function ProfileEditor({
  onClose,
  closeRequests,
}: {
  onClose: () => void;
  closeRequests: { current: ((event?: unknown) => void) | null };
}) {
  const user = useUser();
  const { updateUser } = useAuth();
  const { message, modal } = App.useApp();
  const [form] = Form.useForm<ProfileFormValues>();
  const [profile, setProfile] = useState<Profile | null>(null);
  const [activeTab, setActiveTab] = useState<ProfileTab>('common');
  const [saving, setSaving] = useState(false);
  const closeRef = useRef(onClose);
  useEffect(() => {
    closeRef.current = onClose;
  }, [onClose]);
  // Closing with changes asks first: the baseline is the form as the loaded profile filled it.
  const edited = useRef(false);
  const baseline = useRef<string | null>(null);
  const requestClose = useDiscardGuard({
    open: true,
    isDirty: () => {
      if (!edited.current) return false;
      const now = formSnapshot(form.getFieldsValue(true));
      return now === null || now !== baseline.current;
    },
    close: onClose,
  });
  useEffect(() => {
    closeRequests.current = requestClose;
    return () => {
      closeRequests.current = null;
    };
  }, [closeRequests, requestClose]);
  useEffect(() => {
    if (profile) baseline.current = formSnapshot(form.getFieldsValue(true));
  }, [profile, form]);

  useEffect(() => {
    let active = true;
    api
      .get<Profile>(PROFILE_PATH)
      .then((loaded) => {
        if (active) setProfile(loaded);
      })
      .catch((error: unknown) => {
        if (!active) return;
        notifyLoadError(error);
        closeRef.current();
      });
    return () => {
      active = false;
    };
  }, []);

  if (!profile) {
    return (
      <div className="profile-loading">
        <Spin />
      </div>
    );
  }

  const readOnly = isReadOnlyProfile(user.type, profile);

  const applyToAll = () => {
    const contacts = form.getFieldValue('contacts') as Contact[];
    const apply = () => form.setFieldValue('contacts', applyGeneralContactToAll(contacts));
    if (!needsApplyConfirmation(contacts)) {
      apply();
      return;
    }
    modal.confirm({
      title: APPLY_ALL_TITLE,
      content: APPLY_ALL_WARNING,
      onOk: apply,
      okText: 'OK',
      cancelText: 'Cancel',
    });
  };

  const save = async () => {
    try {
      await form.validateFields();
    } catch (error) {
      const first = (error as { errorFields?: { name: (string | number)[] }[] }).errorFields?.[0];
      if (first) setActiveTab(tabOfField(first.name));
      return;
    }
    const values = form.getFieldsValue(true) as ProfileFormValues;
    const update = formToUpdate(values, user.type);
    setSaving(true);
    try {
      const saved = await api.put<Profile | null>(PROFILE_PATH, update);
      if (user.type === 'demand') {
        updateUser({
          timezone: saved?.timezone ?? update.timezone ?? user.timezone,
          tagParams: saved ? saved.tagParams : (update.tagParams ?? null),
        });
      }
      void message.success('Profile saved');
      onClose();
    } catch (error) {
      if (error instanceof ApiError && error.errors.length > 0) {
        form.setFields(
          error.errors.map((e) => ({ name: formPathOf(e.field, user.type), errors: [e.message] })) as Parameters<
            typeof form.setFields
          >[0],
        );
        setActiveTab(tabOfField(formPathOf(error.errors[0].field, user.type)));
      }
      notifySaveError(error);
    } finally {
      setSaving(false);
    }
  };

  const labels: Record<ProfileTab, string> = {
    common: 'Common',
    options: 'Options',
    sellers: 'Sellers JSON',
    general: CONTACT_TAB_LABELS.general,
    billing: CONTACT_TAB_LABELS.billing,
    technical: CONTACT_TAB_LABELS.technical,
    tagParams: 'Tag parameters',
  };

  const content = (tab: ProfileTab) => {
    switch (tab) {
      case 'common':
        return <CommonTab user={user} profile={profile} />;
      case 'options':
        return <OptionsTab user={user} readOnly={readOnly} />;
      case 'sellers':
        return <SellersTab type={user.type} readOnly={readOnly} />;
      case 'general':
        return <ContactTab type="general" readOnly={readOnly} onApplyToAll={applyToAll} />;
      case 'billing':
      case 'technical':
        return <ContactTab type={tab} readOnly={readOnly} />;
      case 'tagParams':
        return (
          <Form.Item name="tagParams" noStyle>
            <TagParamsEditor readOnly={readOnly} impersonating={user.adminId != null} />
          </Form.Item>
        );
    }
  };

  return (
    <ReadOnlyView readOnly={readOnly} reason="Ask your account manager to change these details.">
      <Form
        form={form}
        layout="vertical"
        {...readOnlyFormProps(readOnly)}
        initialValues={profileToForm(profile)}
        onValuesChange={() => {
          edited.current = true;
        }}
        data-testid="profile-form"
        data-readonly={readOnly ? 'true' : 'false'}
      >
        <Tabs
          activeKey={activeTab}
          onChange={(key) => setActiveTab(key as ProfileTab)}
          items={profileTabs(user.type).map((tab) => ({
            key: tab,
            label: <span data-testid={`profile-tab-${tab}`}>{labels[tab]}</span>,
            children: content(tab),
            forceRender: true,
          }))}
        />
        <div className="modal-actions form-footer-sticky" data-testid="profile-footer">
          {readOnly ? (
            <Button onClick={onClose} disabled={false} data-testid="profile-close">
              Close
            </Button>
          ) : (
            <>
              <Button onClick={() => requestClose()} data-testid="profile-cancel">
                Cancel
              </Button>
              <Button type="primary" loading={saving} onClick={() => void save()} data-testid="profile-save">
                Save
              </Button>
            </>
          )}
        </div>
      </Form>
    </ReadOnlyView>
  );
}
