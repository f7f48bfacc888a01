// Batch reads keep IN lists bounded (DataLoader batches are capped to the same size), so a read of
// any number of keys costs one statement per chunk and never hits a driver's parameter limit.
export const READ_CHUNK = 500;

/** Runs `read` over the distinct keys, READ_CHUNK at a time. */
export async function chunked<K>(keys: readonly K[], read: (chunk: K[]) => Promise<void>): Promise<void> {
  const unique = [...new Set(keys)];
  for (let i = 0; i < unique.length; i += READ_CHUNK) await read(unique.slice(i, i + READ_CHUNK));
}

export { groupBy } from "../common/group-by";
