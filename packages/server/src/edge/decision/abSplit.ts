import { type ArmTrace } from '@adplane/shared';
import { inShare, postbidDraw } from '../postbid/postbidSampling.js';
import { type SnapChannel } from '../snapshot/types.js';

/**
 * The arm of a split channel that serves a request (docs/ad-server.md, "A/B splits"): B when the
 * request's draw (0 <= draw < 100) falls under the split's percent, else A. A request that names its
 * viewer's device (`device_id`, `ifa`) draws from a hash of it and the channel (the post-bid stage's
 * draw: FNV-1a and a finaliser), so a viewer sees one arm on every request; any other draws at random.
 */
export function splitArm(
  channel: SnapChannel,
  deviceId: string,
  random: () => number,
): { channel: SnapChannel; trace: ArmTrace } | null {
  const split = channel.split;
  if (!split) return null;
  const draw = deviceId ? postbidDraw(deviceId, `split:${channel.uid}`) : Math.floor(random() * 10_000) / 100;
  const b = inShare(draw, split.percent);
  return {
    channel: b ? split.b : channel,
    trace: { arm: b ? 'B' : 'A', percent: split.percent, draw, by: deviceId ? 'viewer' : 'random' },
  };
}
