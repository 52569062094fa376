import { type ConfigChangeBus, type ConfigChangeListener, Listeners } from '../delivery/configChangeBus.js';
import { type DeliveryLog } from '../delivery/types.js';
import { CLUSTER_TAG } from './protocol.js';
import { type WorkerLink } from './workerLink.js';

/**
 * Snapshot invalidation between the workers of one machine without Redis: a worker's change is
 * heard by its own listeners on the next turn and relayed by the primary to every other worker.
 */
export class IpcConfigChangeBus implements ConfigChangeBus {
  readonly engine = 'memory' as const;
  private readonly listeners: Listeners;

  constructor(
    private readonly link: WorkerLink,
    log: DeliveryLog,
  ) {
    this.listeners = new Listeners(log);
    link.onConfig((version) => this.listeners.emit(version));
  }

  publish(version: number): void {
    setImmediate(() => this.listeners.emit(version));
    this.link.send({ tag: CLUSTER_TAG, kind: 'config', version });
  }

  subscribe(listener: ConfigChangeListener): () => void {
    return this.listeners.add(listener);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
