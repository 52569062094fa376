import { Alert, Tag, Tooltip } from 'antd';
import { CONTRACT_WARNING_DAYS, type ContractState } from '@adplane/shared';
import { useList } from '../../api/lists.js';
import { EmptyValue } from '../../components/EmptyValue.js';

/**
 * A demand account's contract end (the account's own profile: "Contract expires", `contactExpired`)
 * and where it stands by the server's clock (`contractState`, in the account's time zone): the
 * Demands list's Contract column, the drawer's notice and the list's notice of accounts to renew.
 */
type Dated = Record<string, unknown>;

const stateOf = (row: Dated): ContractState =>
  row.contractState === 'expired' || row.contractState === 'expiring' ? row.contractState : null;
const endOf = (row: Dated): string | null => (typeof row.contactExpired === 'string' ? row.contactExpired : null);

/** The sentence for a contract that needs attention, or null. */
export function contractSentence(row: Dated): string | null {
  const end = endOf(row);
  const state = stateOf(row);
  if (!end || !state) return null;
  return state === 'expired' ? `Contract expired on ${end}` : `Contract expires on ${end}`;
}

/** The Contract cell: the end date, red once passed, orange in its last CONTRACT_WARNING_DAYS days. */
export function ContractTag({ row }: { row: Dated }) {
  const end = endOf(row);
  if (!end) return <EmptyValue />;
  const state = stateOf(row);
  if (!state) return <span>{end}</span>;
  return (
    <Tooltip title={contractSentence(row)}>
      <Tag color={state === 'expired' ? 'red' : 'orange'} data-testid={`contract-${state}`}>
        {state === 'expired' ? 'Expired' : 'Expires'} {end}
      </Tag>
    </Tooltip>
  );
}

/** The drawer's notice: the account's contract has ended or is about to. */
export function ContractAlert({ row }: { row: Dated | null }) {
  const sentence = row && contractSentence(row);
  if (!row || !sentence) return null;
  return (
    <Alert
      type={stateOf(row) === 'expired' ? 'error' : 'warning'}
      showIcon
      style={{ marginBottom: 16 }}
      title={sentence}
      description="The account sets the date in its profile (Contract expires); renew it with them."
      data-testid="demand-contract-alert"
    />
  );
}

/** Above the Demands list: the accounts whose contract has ended or ends within CONTRACT_WARNING_DAYS days. */
export function ContractNotice() {
  const { items } = useList('demands');
  const live = items.filter((i) => !i.archived);
  const expired = live.filter((i) => stateOf(i) === 'expired');
  const expiring = live.filter((i) => stateOf(i) === 'expiring');
  if (!expired.length && !expiring.length) return null;
  const names = (rows: typeof items) => rows.map((r) => `${r.name} (${endOf(r)})`).join(', ');
  return (
    <Alert
      type={expired.length ? 'error' : 'warning'}
      showIcon
      style={{ marginBottom: 12 }}
      title="Contracts to renew"
      description={
        <>
          {expired.length > 0 && <div data-testid="contracts-expired">Expired: {names(expired)}</div>}
          {expiring.length > 0 && (
            <div data-testid="contracts-expiring">
              Ending within {CONTRACT_WARNING_DAYS} days: {names(expiring)}
            </div>
          )}
        </>
      }
      data-testid="demands-contracts"
    />
  );
}
