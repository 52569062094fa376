import { dropTestDatabases } from './storeTemplates.js';

/**
 * Global set-up of the server's test projects: the PostgreSQL databases of test stores and their
 * templates (storeTemplates.ts) are dropped when the run ends, and at its start those of runs that
 * were killed before they could drop theirs.
 */
export default async function setup(): Promise<() => Promise<void>> {
  await dropTestDatabases(process.pid);
  return () => dropTestDatabases(process.pid);
}
