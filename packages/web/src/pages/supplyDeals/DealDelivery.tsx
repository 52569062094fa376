import { Progress, Tooltip, Typography } from 'antd';
import { type DeliveryState } from '@adplane/shared';
import { limitText } from '../../resources/unitFields.js';

/**
 * A supply deal's impressions against its caps, as an ad-ops list shows a line item's
 * "Delivered / Goal": `12,345 / 50,000` over its life and `1,200 / 5,000 today`, each over a thin
 * bar of how much of the cap is used. The counts are delivery control's, answered with the deal's
 * delivery state (GET /api/deliveryStates, `delivered`); until they come, or for a deal whose counts
 * are not known, the caps alone.
 */
type Delivered = DeliveryState['delivered'];

/** The deal's row: its caps `impCap` and `dailyImpCap`, each a whole number or 'unlimited'. */
type DealCaps = Readonly<Record<string, unknown>>;

const count = (n: number) => n.toLocaleString('en-US');

/** How much of `cap` is used, in percent (a cap of 0 is reached from the start). */
export function usedPercent(used: number, cap: number): number {
  if (cap <= 0) return 100;
  return Math.min(100, Math.floor((used / cap) * 1000) / 10);
}

/** One cap: `used / cap` (with `suffix`) over its bar, the share on hover. */
function CapLine({ used, cap, suffix, what }: { used: number; cap: number; suffix: string; what: string }) {
  const percent = usedPercent(used, cap);
  return (
    <Tooltip title={`${percent}% of the ${what} delivered`} mouseEnterDelay={0.3}>
      <div className="deal-delivery-line" data-percent={percent}>
        <span className="deal-delivery-text">
          {count(used)} / {count(cap)}
          {suffix}
        </span>
        <Progress percent={percent} showInfo={false} size={['100%', 4]} />
      </div>
    </Tooltip>
  );
}

/** The list's cell and the drawer's lines: each cap the deal has, with what it delivered when known. */
export function DealDelivery({ row, delivered }: { row: DealCaps; delivered?: Delivered }) {
  const { impCap: total, dailyImpCap: daily } = row;
  if (typeof total !== 'number' && typeof daily !== 'number')
    return <Typography.Text type="secondary">No cap</Typography.Text>;
  return (
    <div className="deal-delivery" data-testid="deal-cap">
      {typeof total === 'number' &&
        (delivered ? (
          <CapLine used={delivered.imps} cap={total} suffix="" what="lifetime cap" />
        ) : (
          <div>{limitText(total)}</div>
        ))}
      {typeof daily === 'number' &&
        (delivered ? (
          <CapLine used={delivered.today} cap={daily} suffix=" today" what="daily cap" />
        ) : (
          <Typography.Text type="secondary">{limitText(daily)} a day</Typography.Text>
        ))}
    </div>
  );
}

/** The drawer's lines under the deal's delivery state: what it delivered against its caps (nothing for a deal without caps). */
export function DealDeliveryDetail({ row, delivered }: { row: DealCaps; delivered?: Delivered }) {
  if (!delivered) return null;
  return (
    <div className="deal-delivery-detail" data-testid="deal-delivered">
      <Typography.Text type="secondary">Delivered against its caps</Typography.Text>
      <DealDelivery row={row} delivered={delivered} />
    </div>
  );
}
