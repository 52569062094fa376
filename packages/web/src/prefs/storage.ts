/**
 * Browser storage that never throws: private windows and full quotas make `setItem` fail, and a
 * console must keep working without its caches.
 */
export function readStorage(storage: Storage, key: string): string | null {
  try {
    return storage.getItem(key);
  } catch {
    return null;
  }
}

export function writeStorage(storage: Storage, key: string, value: string | null): void {
  try {
    if (value === null) storage.removeItem(key);
    else storage.setItem(key, value);
  } catch {
    // Quota exceeded or storage disabled: the value simply is not cached.
  }
}

/** Every key of the storage that starts with the prefix. */
export function storageKeys(storage: Storage, prefix: string): string[] {
  const keys: string[] = [];
  try {
    for (let i = 0; i < storage.length; i++) {
      const key = storage.key(i);
      if (key !== null && key.startsWith(prefix)) keys.push(key);
    }
  } catch {
    return [];
  }
  return keys;
}
