import { lazy, Suspense, useCallback, useMemo, useState } from 'react';
import { Link, Outlet, useLocation, useNavigate } from 'react-router';
import { Layout, Menu, type MenuProps } from 'antd';
import { ExportOutlined } from '@ant-design/icons';
import { clearLists } from '../api/lists.js';
import { useAuth } from '../auth/authContext.js';
import { PageSpinner } from '../components/PageSpinner.js';
import { ConfigModal } from '../modals/ConfigModal.js';
import { ProfileModal } from '../modals/profile/ProfileModal.js';
import { SettingsModal } from '../modals/SettingsModal.js';
import { linkTarget, useUiTabs } from '../prefs/uiTabs.js';
import { Logo } from './Logo.js';
import { buildNavigation, selectedKeys, type NavAction, type NavItem } from './navigation.js';
import { UserArea } from './UserArea.js';
import { browser } from '../browser.js';

type MenuItems = NonNullable<MenuProps['items']>;

// Report widgets of the bar load after the frame, so the first paint (and sign-in) stays light.
const SavedReportsBell = lazy(() => import('./SavedReportsBell.js').then((m) => ({ default: m.SavedReportsBell })));
const MonthToDateCost = lazy(() => import('./MonthToDateCost.js').then((m) => ({ default: m.MonthToDateCost })));

function toMenuItems(items: readonly NavItem[], newTabs: boolean): MenuItems {
  return items.map((item) => {
    if (item.children) {
      return {
        key: item.key,
        label: <span data-testid={item.testId}>{item.label}</span>,
        children: toMenuItems(item.children, newTabs),
        popupClassName: 'app-nav-popup',
      };
    }
    if (item.href) {
      return {
        key: item.key,
        label: (
          <a href={item.href} target="_blank" rel="noopener noreferrer" data-testid={item.testId}>
            {item.label} <ExportOutlined className="app-nav-external" />
          </a>
        ),
      };
    }
    return {
      key: item.key,
      label: (
        <Link to={item.path ?? '/'} data-testid={item.testId} {...linkTarget(newTabs)}>
          {item.label}
        </Link>
      ),
    };
  });
}

type OpenModal = 'profile' | 'settings' | 'config' | null;

/** The console frame: the dark top bar (the navigation) over a white content card. */
export function AppLayout() {
  const { user, ready, mode, edition, logout } = useAuth();
  const location = useLocation();
  const navigate = useNavigate();
  const newTabs = useUiTabs();
  const [openModal, setOpenModal] = useState<OpenModal>(null);
  const closeModal = useCallback(() => setOpenModal(null), []);

  const navigation = useMemo(() => (user ? buildNavigation({ user, mode, edition }) : null), [user, mode, edition]);
  const menuItems = useMemo(() => (navigation ? toMenuItems(navigation.main, newTabs) : []), [navigation, newTabs]);

  const runAction = (action: NavAction) => {
    switch (action) {
      case 'profile':
      case 'settings':
      case 'config':
        setOpenModal(action);
        break;
      case 'reload':
        clearLists();
        browser.reload();
        break;
      case 'signOut':
        void logout().then(() => navigate('/login', { replace: true }));
        break;
    }
  };

  return (
    <Layout className="app-layout">
      <Layout.Header className="app-header">
        <Logo href={navigation?.logoHref ?? '/'} />
        {navigation && user ? (
          <>
            <Menu
              className="app-nav"
              theme="dark"
              mode="horizontal"
              items={menuItems}
              selectedKeys={selectedKeys(navigation.main, location.pathname)}
              disabledOverflow
              forceSubMenuRender
              data-testid="nav"
            />
            <Suspense fallback={null}>
              {user.showSystemCost && user.type !== 'sdk' && <MonthToDateCost user={user} />}
              {user.type !== 'sdk' && <SavedReportsBell />}
            </Suspense>
            <UserArea user={user} navigation={navigation} onAction={runAction} />
          </>
        ) : (
          <div className="app-nav-spacer" />
        )}
      </Layout.Header>
      <Layout.Content className="app-content">
        <div className="app-card">{ready ? <Outlet /> : <PageSpinner />}</div>
      </Layout.Content>
      {user && <ProfileModal open={openModal === 'profile'} onClose={closeModal} />}
      <SettingsModal open={openModal === 'settings'} onClose={closeModal} />
      {user?.type === 'admin' && <ConfigModal open={openModal === 'config'} onClose={closeModal} />}
    </Layout>
  );
}
