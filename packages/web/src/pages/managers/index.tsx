import { Alert, Card, Typography } from 'antd';
import { RESOURCES } from '@adplane/shared';
import { useUser } from '../../auth/authContext.js';
import { ResourceListPage } from '../../resources/ResourceListPage.js';
import { accountToBody, accountToForm } from '../accounts/AccountFields.js';
import { accountColumns } from '../accounts/columns.js';
import { ManagerForm } from './ManagerForm.js';

export function managerDefaults(): Record<string, unknown> {
  return { name: '', username: '', email: '', password: '', status: 1 };
}

/** Managers: the account owner's team members; they work in the same console with the same inventory. */
export default function ManagersPage() {
  // The server answers 403 (which signs the console out) to a team member asking for the team.
  if (useUser().managerId !== null) {
    return (
      <Card title={RESOURCES.managers.plural} className="page-card" data-testid="page-managers">
        <Alert
          type="info"
          showIcon
          title="Only the account owner manages the team. Ask them to add or change a manager."
        />
      </Card>
    );
  }
  return (
    <ResourceListPage
      def={RESOURCES.managers}
      columns={accountColumns({ company: false })}
      FormBody={ManagerForm}
      defaults={managerDefaults}
      toForm={accountToForm}
      toBody={accountToBody}
      canDuplicate={false}
      intro={
        <Typography.Paragraph type="secondary">
          Team members sign in with their own username and work on the same channels, tags and campaigns as you. Pause
          one to stop their access.
        </Typography.Paragraph>
      }
    />
  );
}
