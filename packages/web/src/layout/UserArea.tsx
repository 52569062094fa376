import { type MouseEvent } from 'react';
import { Avatar, Button, Dropdown, type MenuProps } from 'antd';
import { DownOutlined, RollbackOutlined } from '@ant-design/icons';
import { type AuthUser } from '@adplane/shared';
import { clearLists } from '../api/lists.js';
import { ModeSwitch } from './ModeSwitch.js';
import { type NavAction, type Navigation } from './navigation.js';
import { userTypeLabel } from './userType.js';
import { browser } from '../browser.js';

function initials(name: string): string {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  if (parts.length === 0) return '?';
  return (parts.length === 1 ? parts[0].slice(0, 2) : parts[0][0] + parts[parts.length - 1][0]).toUpperCase();
}

/**
 * Leaving an impersonation: the server switches the session back and redirects to /, and the
 * client store (cached lists) must not carry the impersonated user's data over.
 */
function onBackToAdmin(event: MouseEvent<HTMLElement>, href: string): void {
  event.preventDefault();
  clearLists();
  browser.assign(href);
}

interface UserAreaProps {
  user: AuthUser;
  navigation: Navigation;
  onAction: (action: NavAction) => void;
}

/** Right side of the top bar: back to admin, the SSP | DSP switch (for those who may switch), and the user menu. */
export function UserArea({ user, navigation, onAction }: UserAreaProps) {
  const items: MenuProps['items'] = navigation.userMenu.flatMap((item, index) => {
    const entry = {
      key: item.key,
      label: <span data-testid={item.testId}>{item.label}</span>,
      danger: item.action === 'signOut',
    };
    return item.action === 'signOut' && index > 0 ? [{ type: 'divider' as const }, entry] : [entry];
  });
  const byKey = new Map(navigation.userMenu.map((item) => [item.key, item]));

  return (
    <div className="app-user-area">
      {navigation.backToAdmin && (
        <div className="app-impersonation" data-testid="impersonation">
          <span className="app-impersonation-text">
            Acting as <strong>{user.name}</strong>
          </span>
          <Button
            size="small"
            color="orange"
            variant="solid"
            icon={<RollbackOutlined />}
            href={navigation.backToAdmin.href}
            onClick={(event) => onBackToAdmin(event, navigation.backToAdmin?.href ?? '/')}
            data-testid={navigation.backToAdmin.testId}
          >
            {navigation.backToAdmin.label}
          </Button>
        </div>
      )}
      {navigation.modeSwitch && <ModeSwitch current={navigation.modeSwitch.current} />}
      <Dropdown
        trigger={['click']}
        placement="bottomRight"
        menu={{
          items,
          onClick: ({ key }) => {
            const action = byKey.get(key)?.action;
            if (action) onAction(action);
          },
        }}
      >
        <Button type="text" className="app-user-button" data-testid="user-menu">
          <Avatar size={26} className="app-user-avatar">
            {initials(user.name)}
          </Avatar>
          <span className="app-user-name">{user.name}</span>
          <span className="app-user-type">{userTypeLabel(user.type)}</span>
          <DownOutlined className="app-user-caret" />
        </Button>
      </Dropdown>
    </div>
  );
}
